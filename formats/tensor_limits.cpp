#include "formats/tensor_limits.h"

#include <fmt/format.h>

#include "ir/error.h"

namespace mgedump::formats {

uint64_t checked_element_count(std::span<const uint32_t> shape, std::string_view what) {
    uint64_t n = 1;
    for (uint32_t d : shape) {
        if (d == 0) return 0;
        // n * d > kMaxTensorElements, without computing the product.
        if (n > kMaxTensorElements / d)
            throw LimitError(fmt::format("{}: shape [{}] holds more than 2^48 elements", what, fmt::join(shape, ", ")));
        n *= d;
    }
    return n;
}

}  // namespace mgedump::formats
