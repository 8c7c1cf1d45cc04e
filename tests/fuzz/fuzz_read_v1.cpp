// libFuzzer target: arbitrary bytes through the FBS v1 reader (and, when they
// load, through a re-dump). Anything but success or FormatError is a bug.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // Force the v1 path: the first 4 bytes select MGBC or MGBS, the rest is the file.
    if (size < 1) return 0;
    std::vector<uint8_t> file(size + 3);
    const uint32_t magic = (data[0] & 1) ? 0x5342474D : 0x4342474D;
    std::memcpy(file.data(), &magic, 4);
    std::memcpy(file.data() + 4, data + 1, size - 1);
    return mgedump::fuzz::read_and_redump(file);
}
