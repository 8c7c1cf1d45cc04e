#include "jobs/error_text.h"

#include <charconv>

#include "jobs/output_path.h"

namespace mgedump::jobs {
namespace {

// Parses "<key> <number>" at the front of `s`, advancing past it.
bool take_number(std::string_view& s, std::string_view key, size_t& out) {
    if (!s.starts_with(key)) return false;
    s.remove_prefix(key.size());
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec != std::errc()) return false;
    s.remove_prefix(static_cast<size_t>(p - s.data()));
    return true;
}

}  // namespace

std::string without_json_prefixes(std::string_view text) {
    constexpr std::string_view kTag = "[json.exception.";
    std::string out;
    for (size_t at = 0;;) {
        const size_t tag = text.find(kTag, at);
        const size_t end = tag == std::string_view::npos ? std::string_view::npos : text.find("] ", tag);
        if (end == std::string_view::npos) {
            out += text.substr(at);
            return out;
        }
        out += text.substr(at, tag - at);
        at = end + 2;
    }
}

JsonSyntaxError describe_parse_error(const nlohmann::json::parse_error& e) {
    JsonSyntaxError out;
    const std::string text = without_json_prefixes(e.what());
    std::string_view s = text;
    // "parse error at line L, column C: what" (newer releases) or "parse error at L: what".
    if (s.starts_with("parse error")) {
        std::string_view rest = s;
        rest.remove_prefix(std::string_view("parse error").size());
        size_t line = 0, column = 0;
        if (take_number(rest, " at line ", line) && take_number(rest, ", column ", column) &&
            rest.starts_with(": ")) {
            out.line = line;
            out.column = column;
            s = rest.substr(2);
        } else if (const size_t colon = s.find(": "); colon != std::string_view::npos) {
            s = s.substr(colon + 2);
        }
    }
    out.what = std::string(s);
    return out;
}

namespace {

// The file a temporary name stands for: ".a.mge.tmp-12-3" -> "a.mge", "s.json.tmp.12.3" -> "s.json".
std::string final_name(std::string_view temp) {
    if (temp.starts_with('.') && temp.rfind(".tmp-") != std::string_view::npos)
        return std::string(temp.substr(1, temp.rfind(".tmp-") - 1));
    return std::string(temp.substr(0, temp.rfind(".tmp.")));
}

bool ends_token(char c) { return c == ' ' || c == ':' || c == '\'' || c == '"' || c == '\n' || c == ','; }

}  // namespace

std::string without_temp_names(std::string_view text) {
    std::string out;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = at;
        while (end < text.size() && !ends_token(text[end])) ++end;
        std::string_view token = text.substr(at, end - at);
        const size_t slash = token.rfind('/');
        const std::string_view name = slash == std::string_view::npos ? token : token.substr(slash + 1);
        if (!name.empty() && is_temp_file_name(name))
            out += std::string(token.substr(0, token.size() - name.size())) + final_name(name);
        else
            out += token;
        if (end < text.size()) out += text[end];
        at = end + 1;
    }
    return out;
}

}  // namespace mgedump::jobs
