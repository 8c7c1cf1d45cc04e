// Writing an artifact so that nothing partial is ever seen at its path: the bytes
// go to a temporary file in the same directory (one gather write from the
// planned segments, no flattening copy), which is renamed into place only when
// complete. On failure the temporary file is removed.
#pragma once

#include <span>
#include <string>
#include <vector>

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

// Throws Error naming `path` and the OS error.
void write_file_atomically(const std::string& path, std::span<const std::span<const std::byte>> segments,
                           FileOps& ops);
void write_file_atomically(const std::string& path, const formats::Serialized& bytes);
void write_file_atomically(const std::string& path, std::string_view text);

}  // namespace mgedump::engine
