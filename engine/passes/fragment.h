// A fragment: the operators that replace one operator, as a small self-contained
// list that can be built without touching the graph (so many can be built in
// parallel) and appended to the tables later, in a fixed order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/dtype.h"
#include "ir/ids.h"
#include "ir/param_schema.h"

namespace mgedump::engine::passes {

// An operand: an existing var of the graph, or the (single) output of an earlier
// operator of the same fragment.
struct Ref {
    uint32_t index = 0;
    bool local = false;

    static Ref var(ir::VarId v) { return Ref{v.value, false}; }
    static Ref op(uint32_t i) { return Ref{i, true}; }
    bool operator==(const Ref&) const = default;
};

// The value of a new ImmutableTensor (VALUE_ANONYMOUS), with its own bytes.
struct ConstValue {
    ir::DType dtype;
    std::vector<uint32_t> shape;
    std::vector<std::byte> bytes;
    ir::StrId comp_node;
};

struct NewOp {
    ir::OpTypeId type;
    std::vector<ir::ParamValue> params;
    std::vector<Ref> inputs;
    ir::DType dtype;                     // of its output
    std::optional<ConstValue> constant;  // set for ImmutableTensor
};

struct Fragment {
    ir::OprId source;
    std::vector<NewOp> ops;
    // Replacements of the source's outputs 0, 1, ...; empty when the source is kept.
    std::vector<Ref> outputs;
    // The source's first `volatile_outputs` outputs become volatile (CheckNonFinite).
    uint32_t volatile_outputs = 0;
};

}  // namespace mgedump::engine::passes
