// How deeply a JSON document from outside may nest. Code that walks parsed JSON
// recursively (tensor "values", python_json_dumps, nlohmann's dump() in error
// messages) uses a stack frame per level, so a hostile document of a few MB of
// '[' would overflow the stack; real documents nest a handful of levels (a
// tensor's values at most 7, its dimensions). Python's json module stops near
// 1000 levels; we stop earlier, before parsing.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace mgedump::formats {

inline constexpr size_t kMaxJsonDepth = 128;

// The byte offset of the first '[' or '{' that opens level max_depth + 1 of
// `text`, outside strings (and, with `comments`, outside // and /* */ comments,
// which the graph JSON reader allows); nullopt when the text stays within it.
// A scan of the raw text: it needs no valid JSON and never recurses.
std::optional<size_t> json_too_deep_at(std::string_view text, bool comments = false,
                                       size_t max_depth = kMaxJsonDepth);

}  // namespace mgedump::formats
