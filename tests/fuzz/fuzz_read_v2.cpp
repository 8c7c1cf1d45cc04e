// libFuzzer target: arbitrary bytes through the FBS_V2 reader (and, when they
// load, through a re-dump). Anything but success or FormatError is a bug.
#include <cstdint>
#include <vector>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint8_t> file(data, data + size);
    if (file.size() >= 12) {  // keep the identifier so the fuzzer explores the model, not detection
        file[8] = 'm', file[9] = 'g', file[10] = 'v', file[11] = '2';
    }
    return mgedump::fuzz::read_and_redump(file);
}
