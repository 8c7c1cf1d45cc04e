// Arbitrary bytes through the FBS v1 reader (and, when they load, a re-dump).
#include <cstring>
#include <vector>

#include "../fuzz_common.h"
#include "../targets.h"

namespace mgedump::fuzz {

int fuzz_read_v1(const uint8_t* data, size_t size) {
    // Force the v1 path: the first byte selects MGBC or MGBS, the rest is the file after its magic.
    if (size < 1) return 0;
    std::vector<uint8_t> file(size + 3);
    const uint32_t magic = (data[0] & 1) ? 0x5342474D : 0x4342474D;
    std::memcpy(file.data(), &magic, 4);
    std::memcpy(file.data() + 4, data + 1, size - 1);
    return read_and_redump(file);
}

}  // namespace mgedump::fuzz
