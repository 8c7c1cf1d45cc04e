// Standard base64 (RFC 4648, "+/" alphabet, "=" padding) for tensor values and
// blobs inlined in graph JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mgedump::formats {

std::string base64_encode(std::span<const std::byte> bytes);
// Strict: only alphabet characters, padding optional but correct if present;
// nullopt on anything else (the caller knows what to name in the error).
std::optional<std::vector<std::byte>> base64_decode(std::string_view text);

}  // namespace mgedump::formats
