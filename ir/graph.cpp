#include "ir/graph.h"

#include <algorithm>

namespace mgedump::ir {

Range Graph::add_dims(std::span<const uint32_t> shape) {
    Range r{static_cast<uint32_t>(dims.size()), static_cast<uint32_t>(shape.size())};
    dims.insert(dims.end(), shape.begin(), shape.end());
    return r;
}

void Graph::redirect(VarId from, VarId to) {
    inferred = false;
    std::replace(opr_inputs.begin(), opr_inputs.end(), from, to);
    std::replace(outputs.begin(), outputs.end(), from, to);
}

uint64_t element_count(std::span<const uint32_t> shape) {
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    return n;
}

}  // namespace mgedump::ir
