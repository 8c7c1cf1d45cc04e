#include "formats/strip_info_json.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "formats/json_depth.h"
#include "ir/error.h"

namespace mgedump::formats {
namespace {

using Json = nlohmann::ordered_json;

void dumps(const Json& j, std::string& out) {
    switch (j.type()) {
        case Json::value_t::object: {
            out += '{';
            bool first = true;
            for (auto& [k, v] : j.items()) {
                if (!first) out += ", ";
                first = false;
                out += Json(k).dump(-1, ' ', /*ensure_ascii=*/true);
                out += ": ";
                dumps(v, out);
            }
            out += '}';
            break;
        }
        case Json::value_t::array: {
            out += '[';
            for (size_t i = 0; i < j.size(); ++i) {
                if (i) out += ", ";
                dumps(j[i], out);
            }
            out += ']';
            break;
        }
        default: out += j.dump(-1, ' ', /*ensure_ascii=*/true);
    }
}

const char* const kKeys[] = {"opr_types", "dtypes", "elemwise_modes"};

const std::vector<std::string>& values_of(const StripInfo& info, std::string_view key) {
    if (key == "opr_types") return info.opr_types;
    if (key == "dtypes") return info.dtypes;
    return info.elemwise_modes;
}

[[noreturn]] void io_fail(const std::filesystem::path& p, std::string_view what, int err) {
    throw Error(fmt::format("{}: {}: {}", p.string(), what, std::strerror(err)));
}

void write_atomically(const std::filesystem::path& path, const std::string& content) {
    static std::atomic<uint64_t> counter{0};
    const std::filesystem::path tmp =
        path.string() + fmt::format(".tmp.{}.{}", ::getpid(), counter.fetch_add(1));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) io_fail(tmp, "cannot create", errno);
    auto abandon = [&](std::string_view what) {
        int e = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        io_fail(tmp, what, e);
    };
    // Keep the permissions of the file being replaced, as rewriting it in place would.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && ::fchmod(fd, st.st_mode & 07777) != 0) abandon("cannot set permissions");
    size_t done = 0;
    while (done < content.size()) {
        ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            abandon("cannot write");
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) abandon("cannot sync");
    if (::close(fd) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        io_fail(tmp, "cannot close", e);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        io_fail(path, "cannot replace", e);
    }
}

}  // namespace

std::string python_json_dumps(const nlohmann::ordered_json& j) {
    std::string out;
    dumps(j, out);
    return out;
}

std::string strip_info_json(const StripInfo& info, uint64_t hash) {
    Json j = Json::object();
    for (const char* k : kKeys) j[k] = values_of(info, k);
    j["hash"] = hash;
    return python_json_dumps(j);
}

std::string merge_strip_info_json(std::string_view existing, const StripInfo& info, uint64_t hash,
                                  std::string_view label) {
    // The merge writes the existing document back through a recursive dumps().
    if (auto at = json_too_deep_at(existing))
        throw LimitError(fmt::format("{}: cannot append to it: JSON nests deeper than {} levels (byte {})", label,
                                     kMaxJsonDepth, *at));
    Json j;
    try {
        j = Json::parse(existing.begin(), existing.end());
    } catch (const Json::exception& e) {  // parse_error, and out_of_range for a number past a double (1e309)
        throw FormatError(fmt::format("{}: cannot append to it: invalid JSON: {}", label, e.what()));
    }
    if (!j.is_object()) throw FormatError(fmt::format("{}: cannot append to it: not a JSON object", label));
    for (auto& [key, list] : j.items()) {
        bool known = false;
        for (const char* k : kKeys) known = known || key == k;
        if (!known) continue;  // includes "hash", which is set below
        if (!list.is_array())
            throw FormatError(fmt::format("{}: cannot append to it: \"{}\" is not a list", label, key));
        for (const std::string& v : values_of(info, key))
            if (std::find(list.begin(), list.end(), Json(v)) == list.end()) list.push_back(v);
    }
    j["hash"] = hash;
    return python_json_dumps(j);
}

void write_strip_info_file(const std::filesystem::path& path, const StripInfo& info, uint64_t hash, bool append) {
    std::string content;
    if (append) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream existing;
        if (in) existing << in.rdbuf();
        if (!existing.str().empty()) content = merge_strip_info_json(existing.str(), info, hash, path.string());
    }
    if (content.empty()) content = strip_info_json(info, hash);
    write_atomically(path, content);
}

}  // namespace mgedump::formats
