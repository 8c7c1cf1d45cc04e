// Arbitrary bytes through the FBS_V2 reader (and, when they load, a re-dump).
#include <vector>

#include "../fuzz_common.h"
#include "../targets.h"

namespace mgedump::fuzz {

int fuzz_read_v2(const uint8_t* data, size_t size) {
    std::vector<uint8_t> file(data, data + size);
    if (file.size() >= 12) {  // keep the identifier so the fuzzer explores the model, not detection
        file[8] = 'm', file[9] = 'g', file[10] = 'v', file[11] = '2';
    }
    return read_and_redump(file);
}

}  // namespace mgedump::fuzz
