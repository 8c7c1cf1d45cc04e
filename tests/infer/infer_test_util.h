// Helpers shared by the inference rule tests (tests/infer/*_test.cpp): the ir
// names they use, the common dtypes, a var's inferred shape / dtype / value,
// small constant builders, and "this throws a GraphError whose message says X".
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string_view>
#include <vector>

#include "ir/builder.h"
#include "ir/error.h"

namespace mgedump::test {

using ir::DType;
using ir::DTypeEnum;
using ir::GraphBuilder;
using ir::OpOptions;
using ir::VarId;

inline const ir::DType F32 = ir::DType::of(ir::DTypeEnum::Float32);
inline const ir::DType I32 = ir::DType::of(ir::DTypeEnum::Int32);
inline const ir::DType BOOL = ir::DType::of(ir::DTypeEnum::Bool);
inline ir::DType qs8(float scale) { return ir::DType::quantized(ir::DTypeEnum::QuantizedS8, scale); }
inline ir::DType qs32(float scale) { return ir::DType::quantized(ir::DTypeEnum::QuantizedS32, scale); }

inline std::vector<uint32_t> shape_of(ir::GraphBuilder& b, ir::VarId v) {
    auto s = b.graph().var_shape(v);
    return {s.begin(), s.end()};
}
inline ir::DType dtype_of(ir::GraphBuilder& b, ir::VarId v) { return b.graph().vars.dtype[v.value]; }
// The statically inferred value, or empty when there is none.
inline std::vector<double> value_of(ir::GraphBuilder& b, ir::VarId v) {
    const ir::StaticValue* s = b.inferred().value(v);
    return s ? s->elems : std::vector<double>{};
}
inline bool has_value(ir::GraphBuilder& b, ir::VarId v) { return b.inferred().value(v) != nullptr; }
// The k-th var after `first` (an operator's outputs are consecutive).
inline ir::VarId nth(ir::VarId first, uint32_t k) { return ir::VarId(first.value + k); }

// A one-element Int32 constant.
inline ir::VarId scalar(ir::GraphBuilder& b, int32_t v) { return b.constant<int32_t>({1}, {v}); }
inline ir::VarId bool_const(ir::GraphBuilder& b, std::vector<uint32_t> shape, std::vector<uint8_t> v) {
    std::vector<std::byte> bytes(v.size());
    std::memcpy(bytes.data(), v.data(), v.size());
    return b.constant(BOOL, std::move(shape), std::move(bytes));
}
// A zero-filled Float32 parameter.
inline ir::VarId float_param(ir::GraphBuilder& b, std::string_view name, std::vector<uint32_t> shape) {
    size_t n = 1;
    for (uint32_t d : shape) n *= d;
    return b.param(name, F32, std::move(shape), std::vector<std::byte>(n * 4));
}

// Runs `f`, which must be refused with a GraphError whose message contains `part`.
template <class F>
void expect_refused(F&& f, std::string_view part) {
    try {
        f();
        ADD_FAILURE() << "not refused; expected a message with: " << part;
    } catch (const GraphError& e) {
        EXPECT_NE(std::string_view(e.what()).find(part), std::string_view::npos) << e.what();
    }
}

}  // namespace mgedump::test
