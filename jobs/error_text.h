// Error text for people. nlohmann::json's messages start with its own bookkeeping
// ("[json.exception.parse_error.101] parse error at line 1, column 7: ..."), and
// writers may name the temporary file they were writing: neither tells a user
// anything. These helpers keep what does: which file, where, what was wrong.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mgedump::jobs {

struct JsonSyntaxError {
    size_t line = 0, column = 0;  // 1-based; 0 when the library did not say
    std::string what;             // "syntax error while parsing value - invalid literal; last read: 'x'"
};

JsonSyntaxError describe_parse_error(const nlohmann::json::parse_error& e);

// `text` with every "[json.exception.<kind>.<id>] " prefix removed (for messages
// that other readers built around the library's what()).
std::string without_json_prefixes(std::string_view text);

// `text` with every temporary-file name of an atomic write (jobs/output_path.h:
// is_temp_file_name) replaced by the name of the file it was going to become.
std::string without_temp_names(std::string_view text);

}  // namespace mgedump::jobs
