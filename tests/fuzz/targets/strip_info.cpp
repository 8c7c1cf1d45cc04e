// The text of an existing strip-info file through merge_strip_info_json (what
// --append-json merges into), and its result merged into once more, as the next
// dump appending to the same file does.
#include <string>
#include <string_view>

#include "../targets.h"
#include "formats/strip_info_json.h"
#include "ir/error.h"

namespace mgedump::fuzz {

int fuzz_strip_info(const uint8_t* data, size_t size) {
    const formats::StripInfo info{.opr_types = {"Elemwise", "Host2DeviceCopy", "MatrixMul"},
                                  .dtypes = {"Float32", "Int32"},
                                  .elemwise_modes = {"ADD", "RELU"}};
    try {
        const std::string merged = formats::merge_strip_info_json(
            std::string_view(reinterpret_cast<const char*>(data), size), info, 42, "fuzz.json");
        (void)formats::merge_strip_info_json(merged, info, 43, "fuzz.json");
    } catch (const Error&) {
    }
    return 0;
}

}  // namespace mgedump::fuzz
