// Helpers for the conv and image inference rule tests: a var's inferred shape as a vector,
// and "this throws a GraphError whose message says X".
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/error.h"

namespace mgedump::test {

inline std::vector<uint32_t> shape_of(ir::GraphBuilder& b, ir::VarId v) {
    auto s = b.graph().var_shape(v);
    return {s.begin(), s.end()};
}

inline ir::DType dtype_of(ir::GraphBuilder& b, ir::VarId v) { return b.graph().vars.dtype[v.value]; }

inline ir::DType f32() { return ir::DType::of(ir::DTypeEnum::Float32); }
inline ir::DType qs8(float scale) { return ir::DType::quantized(ir::DTypeEnum::QuantizedS8, scale); }
inline ir::DType qs32(float scale) { return ir::DType::quantized(ir::DTypeEnum::QuantizedS32, scale); }

template <class F>
void expect_refused(F&& f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "not refused; expected a message containing \"" << needle << "\"";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

}  // namespace mgedump::test
