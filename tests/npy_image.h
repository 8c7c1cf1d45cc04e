// .npy file images written by hand, for tests that need what formats::encode_npy
// does not write: an arbitrary header dict or version, or a dtype MegEngine has
// no counterpart for (numpy's int64).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace mgedump::test {

// A file image with an arbitrary header dict, version and data.
inline std::vector<std::byte> npy_image(std::string dict, std::string_view data, int major = 1) {
    std::string h = "\x93NUMPY";
    h += char(major);
    h += char(0);
    dict += '\n';
    const uint32_t len = static_cast<uint32_t>(dict.size());
    h += char(len & 0xff);
    h += char((len >> 8) & 0xff);
    if (major > 1) {
        h += char((len >> 16) & 0xff);
        h += char((len >> 24) & 0xff);
    }
    const std::string image = h + dict + std::string(data);
    std::vector<std::byte> out(image.size());
    std::memcpy(out.data(), image.data(), image.size());
    return out;
}

// numpy's int64 layout: little-endian two's complement.
inline std::string int64_bytes(std::initializer_list<int64_t> values) {
    std::string out;
    for (int64_t v : values)
        for (int b = 0; b < 8; ++b) out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * b)) & 0xff);
    return out;
}

}  // namespace mgedump::test
