#include "formats/base64.h"

#include <array>
#include <cstdint>

namespace mgedump::formats {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> make_decode_table() {
    std::array<int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int i = 0; i < 64; ++i) t[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
    return t;
}
constexpr auto kDecode = make_decode_table();

}  // namespace

std::string base64_encode(std::span<const std::byte> bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        uint32_t v = (uint32_t(bytes[i]) << 16) | (uint32_t(bytes[i + 1]) << 8) | uint32_t(bytes[i + 2]);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (size_t rest = bytes.size() - i) {
        uint32_t v = uint32_t(bytes[i]) << 16;
        if (rest == 2) v |= uint32_t(bytes[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::vector<std::byte>> base64_decode(std::string_view text) {
    size_t pad = 0;
    while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
    std::string_view body = text.substr(0, text.size() - pad);
    if (pad && text.size() % 4 != 0) return std::nullopt;
    if (body.size() % 4 == 1) return std::nullopt;  // no whole byte in a lone sextet
    std::vector<std::byte> out;
    out.reserve(body.size() * 3 / 4);
    uint32_t acc = 0;
    int bits = 0;
    for (char c : body) {
        int8_t d = kDecode[static_cast<uint8_t>(c)];
        if (d < 0) return std::nullopt;
        acc = (acc << 6) | uint32_t(d);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(std::byte((acc >> bits) & 0xff));
        }
    }
    // Leftover bits must be zero, or two encodings would decode to the same bytes.
    if (bits && (acc & ((1u << bits) - 1))) return std::nullopt;
    return out;
}

}  // namespace mgedump::formats
