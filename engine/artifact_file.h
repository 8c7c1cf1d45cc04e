// Writing an artifact so that nothing partial is ever seen at its path: the bytes
// go to a temporary file in the same directory (straight from the planned
// segments, or streamed by the artifact pass), which is renamed into place only
// when complete. On failure the temporary file is removed.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/artifact_pass.h"
#include "formats/serialized.h"

namespace mgedump::engine {

// The OS calls used to write, replaceable so tests can inject failures
// (disk full, permission denied) without a real full disk.
struct FileOps {
    virtual ~FileOps() = default;
    virtual int open_exclusive(const std::string& path);  // returns fd or -1 (errno set)
    virtual long write_some(int fd, std::span<const std::span<const std::byte>> segments);  // writev semantics
    virtual int fsync(int fd);
    virtual int close(int fd);
    virtual int rename(const std::string& from, const std::string& to);
    virtual int unlink(const std::string& path);
};

// An artifact written as it is produced: bytes go to a temporary file beside
// `path`, and commit() renames it into place. As a sink of the artifact pass
// (engine/artifact_pass.h) it hands out room in a 256 KiB buffer that stays in
// cache, so each weight is read from memory once on its way to the file.
// Destroyed before commit (an error anywhere), the temporary file is removed.
// Errors are thrown as Error naming `path` and the OS error.
class AtomicFile : public ArtifactSink {
  public:
    AtomicFile(std::string path, FileOps& ops);
    ~AtomicFile() override;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(std::span<const std::byte> bytes);
    void begin(uint64_t) override {}
    std::span<std::byte> next(size_t n) override;
    void filled(size_t n) override { used_ += n; }
    bool reads_input_files() const override { return true; }
    // Everything written reaches `path`, or Error is thrown and nothing does.
    void commit();

  private:
    void flush();
    void write_out(std::span<const std::byte> bytes);
    [[noreturn]] void abandon(std::string_view what, int err);

    std::string path_, tmp_;
    FileOps& ops_;
    int fd_ = -1;
    std::unique_ptr<std::byte[]> buffer_;  // a recycled 256 KiB buffer, taken at the first write
    size_t used_ = 0;
    bool done_ = false;  // committed or abandoned: the temporary file is gone or renamed
};

// Throws Error naming `path` and the OS error.
void write_file_atomically(const std::string& path, std::span<const std::span<const std::byte>> segments,
                           FileOps& ops);
void write_file_atomically(const std::string& path, const formats::Serialized& bytes);
void write_file_atomically(const std::string& path, std::string_view text);

}  // namespace mgedump::engine
