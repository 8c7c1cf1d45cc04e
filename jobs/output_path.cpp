#include "jobs/output_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "engine/artifact_file.h"
#include "ir/error.h"

namespace mgedump::jobs {
namespace {

[[noreturn]] void reject(std::string_view name, std::string_view why) {
    throw OptionError(fmt::format("output \"{}\": {}", name, why));
}

// All digits, at least one.
bool digits(std::string_view s) {
    return !s.empty() && std::ranges::all_of(s, [](char c) { return c >= '0' && c <= '9'; });
}

// `rest` is "PID<sep>N".
bool pid_and_counter(std::string_view rest, char sep) {
    const size_t at = rest.find(sep);
    return at != std::string_view::npos && digits(rest.substr(0, at)) && digits(rest.substr(at + 1));
}

// The final path's state: refused when it is a link or a directory.
void check_final(std::string_view name, const std::filesystem::path& full) {
    std::error_code ec;
    std::filesystem::file_status st = std::filesystem::symlink_status(full, ec);
    if (std::filesystem::is_symlink(st)) reject(name, fmt::format("{} is a symlink; it is not replaced", full.string()));
    if (std::filesystem::is_directory(st)) reject(name, fmt::format("{} is a directory", full.string()));
}

}  // namespace

bool is_temp_file_name(std::string_view n) {
    if (engine::is_temp_file_name(n)) return true;
    if (size_t at = n.rfind(".tmp."); at != std::string_view::npos && at > 0) return pid_and_counter(n.substr(at + 5), '.');
    return false;
}

std::string check_output_name(std::string_view name) {
    if (name.empty()) reject(name, "empty name");
    if (name.size() > 4096) reject(name.substr(0, 64), "name longer than 4096 bytes");
    for (char c : name) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) reject(name, "control characters are not allowed");
        // A backslash is a separator elsewhere; refusing it keeps names portable and unambiguous.
        if (c == '\\') reject(name, "backslashes are not allowed; use '/'");
    }
    if (name.front() == '/') reject(name, "absolute paths are not allowed; names are relative to OUT_DIR");
    size_t start = 0;
    bool first = true;
    while (start <= name.size()) {
        size_t end = name.find('/', start);
        if (end == std::string_view::npos) end = name.size();
        std::string_view part = name.substr(start, end - start);
        if (part.empty()) reject(name, end == name.size() ? "names a directory (ends with '/')" : "empty path component");
        if (part == "..") reject(name, "'..' would leave OUT_DIR");
        if (part == ".") reject(name, "'.' components are not allowed");
        if (part.size() > 255) reject(name, "a path component is longer than 255 bytes");
        if (end == name.size() && is_temp_file_name(part))
            reject(name, "names like a temporary file of an interrupted write, which a later run removes");
        if (first && part == kStampDirName) reject(name, fmt::format("'{}' is reserved for incremental stamps", kStampDirName));
        first = false;
        start = end + 1;
    }
    return std::string(name);
}

void check_output_location(const std::filesystem::path& out_dir, std::string_view name) {
    namespace fs = std::filesystem;
    const fs::path rel(check_output_name(name));
    fs::path at = out_dir;
    std::error_code ec;
    for (const fs::path& part : rel.parent_path()) {
        at /= part;
        fs::file_status st = fs::symlink_status(at, ec);
        if (fs::is_symlink(st)) reject(name, fmt::format("{} is a symlink; outputs never go through links", at.string()));
        if (!fs::exists(st)) return;  // created by the batch: nothing below it exists yet
        if (!fs::is_directory(st)) reject(name, fmt::format("{} exists and is not a directory", at.string()));
    }
    check_final(name, out_dir / rel);
}

std::filesystem::path resolve_output(const std::filesystem::path& out_dir, std::string_view name) {
    namespace fs = std::filesystem;
    const std::string checked = check_output_name(name);
    const fs::path rel(checked);
    fs::path at = out_dir;
    std::error_code ec;
    auto parent = rel.parent_path();
    for (const fs::path& part : parent) {
        at /= part;
        fs::file_status st = fs::symlink_status(at, ec);
        if (fs::is_symlink(st)) reject(name, fmt::format("{} is a symlink; outputs never go through links", at.string()));
        if (!fs::exists(st)) {
            fs::create_directory(at, ec);
            // Another job may have created it in the meantime; only a non-directory is a problem.
            if (ec && !fs::is_directory(fs::symlink_status(at)))
                throw Error(fmt::format("output \"{}\": cannot create directory {}: {}", name, at.string(), ec.message()));
        } else if (!fs::is_directory(st)) {
            reject(name, fmt::format("{} exists and is not a directory", at.string()));
        }
    }
    fs::path full = out_dir / rel;
    check_final(name, full);
    return full;
}

std::filesystem::path resolved_place(const std::filesystem::path& p) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(p, ec);
    if (ec) absolute = p;
    std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, ec);
    return ec ? absolute.lexically_normal() : canonical;
}

}  // namespace mgedump::jobs
