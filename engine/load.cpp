#include "engine/load.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ir/error.h"

namespace mgedump::engine {
namespace {

// Owns one read-only mapping; unmapped when the last blob view lets go.
struct Mapping {
    void* addr = nullptr;
    size_t size = 0;
    Mapping(void* a, size_t s) : addr(a), size(s) {}
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping() {
        if (addr) munmap(addr, size);
    }
};

template <class F>
auto with_path(const std::string& path, F&& f) {
    try {
        return f();
    } catch (const FormatError& e) {
        throw FormatError(fmt::format("{}: {}", path, e.what()));
    }
}

}  // namespace

MappedFile map_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        throw Error(fmt::format("{}: cannot stat: {}", path, std::strerror(err)));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(fmt::format("{}: not a regular file", path));
    }
    if (st.st_size == 0) {
        ::close(fd);
        throw FormatError(fmt::format("{}: the file is empty, not a MegEngine model", path));
    }
    const auto size = static_cast<size_t>(st.st_size);
    void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    ::close(fd);  // the mapping stays valid without the descriptor
    if (addr == MAP_FAILED) throw Error(fmt::format("{}: cannot map: {}", path, std::strerror(err)));
    auto owner = std::make_shared<const Mapping>(addr, size);
    return {ir::Bytes(static_cast<const std::byte*>(addr), size), owner};
}

formats::LoadedModel load_file(const std::string& path) {
    MappedFile m = map_file(path);
    return with_path(path, [&] { return formats::read_model(m.bytes, m.owner); });
}

std::vector<formats::LoadedModel> load_files(const std::string& path) {
    MappedFile m = map_file(path);
    return with_path(path, [&] { return formats::read_models(m.bytes, m.owner); });
}

}  // namespace mgedump::engine
