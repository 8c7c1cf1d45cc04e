// Sizes as people write them on a command line: "512M", "2G", "1.5GiB", "4096".
#pragma once

#include <cstdint>
#include <string_view>

namespace mgedump::jobs {

// K/M/G/T (optionally followed by "B" or "iB") are powers of 1024. Throws OptionError.
uint64_t parse_byte_size(std::string_view text);

}  // namespace mgedump::jobs
