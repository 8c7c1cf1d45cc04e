// Writing an artifact so that nothing partial is ever seen at its path: the bytes
// go to a temporary file in the same directory (straight from the planned
// segments, or streamed by the artifact pass), which is renamed into place only
// when complete. On failure the temporary file is removed.
//
// What the output path is decides how it is written:
//   "-"                           standard output, written through
//   a FIFO, character or block     opened and written through, never replaced (a
//     device, a socket              failure can leave part of the bytes written)
//   a directory                   Error, nothing written
//   a symlink                     followed (chains too, dangling ones included):
//                                 its target is written as below, the link stays
//   a regular file, or nothing    atomically: temporary file, then rename
// The temporary file is unnamed (O_TMPFILE, linked in at commit) where the file
// system allows, so a killed writer leaves nothing; elsewhere it is named
// `.NAME.tmp-PID-N` beside NAME, and remove_stale_temp_files() clears those whose
// writer is gone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
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
    // A new file that is to become the temporary file `path`: unnamed (open_unnamed
    // in path's directory) where possible, else created exclusively at `path`.
    // Returns fd or -1 (errno set).
    virtual int open_exclusive(const std::string& path);
    virtual int open_unnamed(const std::string& dir);  // O_TMPFILE; -1 where unsupported
    virtual int link(int fd, const std::string& to);  // names an unnamed file `to` (fails if `to` exists)
    virtual int open_existing(const std::string& path);  // a FIFO or device to write through
    virtual long write_some(int fd, std::span<const std::span<const std::byte>> segments);  // writev semantics
    virtual int fsync(int fd);
    virtual int close(int fd);
    virtual int rename(const std::string& from, const std::string& to);
    virtual int unlink(const std::string& path);
};

class WriteBehind;

// Whether a large artifact is written on a thread of its own while the artifact
// pass reads on (engine/write_behind.h): right for one dump on an otherwise idle
// machine (the command line, dump_to_file), where it overlaps the read and the
// write of the weights on two cores; wrong in a batch, whose jobs already keep
// every core busy.
enum class WriteThread : uint8_t { Never, ForLargeArtifacts };

// An artifact written as it is produced: bytes go to a temporary file beside
// `path` (or its symlink's target), and commit() renames it into place; "-" and
// special files are written through instead (see the top of this file). As a sink of the artifact pass
// (engine/artifact_pass.h) it hands out room in a 256 KiB buffer that stays in
// cache, so each weight is read from memory once on its way to the file.
// Destroyed before commit (an error anywhere), the temporary file is removed.
// Errors are thrown as Error naming `path` and the OS error.
class AtomicFile : public ArtifactSink {
  public:
    AtomicFile(std::string path, FileOps& ops, WriteThread thread = WriteThread::Never);
    ~AtomicFile() override;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(std::span<const std::byte> bytes);
    // Starts the write thread for an artifact of kWriteBehindFrom bytes or more,
    // when the constructor allowed it.
    void begin(uint64_t size) override;
    // Below this a thread costs more than the overlap gains.
    static constexpr uint64_t kWriteBehindFrom = uint64_t{8} << 20;
    std::span<std::byte> next(size_t n) override;
    void filled(size_t n) override { used_ += n; }
    bool reads_input_files() const override { return true; }
    // Everything written reaches `path`, or Error is thrown and nothing does.
    void commit();

  private:
    void flush();
    void write_out(std::span<const std::byte> bytes);
    // Waits for the write thread's queue to empty (abandons on its failure).
    void drain_writer();
    [[noreturn]] void abandon(std::string_view what, int err);
    [[noreturn]] void abandon_for_writer();

    void discard();

    std::string path_;    // as given, for messages
    std::string target_;  // the file replaced (path_ with symlinks followed); empty: written through
    std::string tmp_;     // the temporary file's name (once it has one)
    FileOps& ops_;
    int fd_ = -1;
    bool owns_fd_ = true;  // false for standard output
    bool named_ = false;   // tmp_ exists in the file system
    std::unique_ptr<std::byte[]> buffer_;  // a recycled 256 KiB buffer, taken at the first write
    size_t used_ = 0;
    WriteThread thread_;
    std::unique_ptr<WriteBehind> writer_;  // while a large artifact is written
    bool done_ = false;  // committed or abandoned: the temporary file is gone or renamed
};

// Throws Error naming `path` and the OS error.
void write_file_atomically(const std::string& path, std::span<const std::span<const std::byte>> segments,
                           FileOps& ops);
void write_file_atomically(const std::string& path, const formats::Serialized& bytes);
void write_file_atomically(const std::string& path, std::string_view text);

// Removes, from `dir` (not its subdirectories), the temporary files an AtomicFile
// left there when its process was killed: regular files named exactly
// `.NAME.tmp-PID-N` (NAME not empty, PID and N decimal), owned by this user, whose
// PID is no running process (kill(PID, 0) fails with ESRCH) and which no process
// holds locked (writers hold a flock on theirs). Anything else is never touched,
// nor is a file whose writer may be alive. Best effort: an unreadable directory or
// a file that cannot be removed is skipped. Returns the files removed. Cheap enough
// to call once per output directory at the start of a run, not per artifact.
std::vector<std::filesystem::path> remove_stale_temp_files(const std::filesystem::path& dir);

// True for a name AtomicFile gives its temporary files (`.NAME.tmp-PID-N`), e.g.
// to leave them out when listing a directory's artifacts.
bool is_temp_file_name(std::string_view file_name);

// The directory the artifact written to `path` lands in (symlinks followed; ""
// for "-" and special files, which have no temporary file): where to call
// remove_stale_temp_files for a single `-o PATH`.
std::filesystem::path temp_dir_for(const std::string& path);

// An existing file's identity, links followed: two names with the same one are
// one file (hard links, symlinks, "dir/../name"). Ordered, for a map of inputs.
struct FileIdentity {
    uint64_t device = 0;
    uint64_t inode = 0;
    auto operator<=>(const FileIdentity&) const = default;
};
// nullopt when `p` names no existing file (or a dangling symlink).
std::optional<FileIdentity> file_identity(const std::filesystem::path& p);

// Whether writing `a` would replace `b` (or the reverse): the same existing file
// whichever name, hard link or symlink spells it, or, when neither exists yet,
// the same path once made absolute (symlinked directories followed, and a
// dangling symlink to the path it names, where AtomicFile would write). For
// refusing two outputs of one run on one file, or an output on its own input,
// before anything is written. "-" (standard output) is no file: never the same.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace mgedump::engine
