// Shared by the kernel tests (tests/eval/*_kernels_test.cpp): the names they
// use, the common dtypes, constants and fed values for small graphs, running
// them, and "these are the values" / "this was refused with a message saying X".
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/evaluator.h"
#include "ir/builder.h"
#include "tests/eval/eval_test_util.h"

namespace mgedump::test {

using engine::eval::EvalError;
using engine::eval::evaluate;
using engine::eval::Feeds;
using engine::eval::Tensor;
using ir::DType;
using ir::DTypeEnum;
using ir::GraphBuilder;
using ir::OpOptions;
using ir::ParamArg;
using ir::ParamArgs;
using ir::VarId;
using U = std::vector<uint32_t>;  // a shape
using D = std::vector<double>;    // values, as storage_values / to_doubles give them

inline const DType F32 = DType::of(DTypeEnum::Float32);
inline const DType F16 = DType::of(DTypeEnum::Float16);
inline const DType I32 = DType::of(DTypeEnum::Int32);
inline const DType I16 = DType::of(DTypeEnum::Int16);
inline const DType I8 = DType::of(DTypeEnum::Int8);
inline const DType U8 = DType::of(DTypeEnum::Uint8);
inline const DType BOOL = DType::of(DTypeEnum::Bool);
inline DType qs8(float scale) { return DType::quantized(DTypeEnum::QuantizedS8, scale); }
inline DType qs32(float scale) { return DType::quantized(DTypeEnum::QuantizedS32, scale); }

// Floats, so that they fit the float lists of constants as well as the doubles.
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

// A constant of `d` from its storage values (a quantized dtype's integers,
// Float16's bits).
template <class T>
VarId constant(GraphBuilder& b, DType d, const U& shape, const std::vector<T>& v) {
    std::vector<std::byte> bytes(v.size() * sizeof(T));
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return b.constant(d, shape, std::move(bytes));
}
inline VarId floats(GraphBuilder& b, const U& shape, const std::vector<float>& v) {
    return constant(b, F32, shape, v);
}

// A value from its real elements (a quantized dtype's are quantized).
inline Tensor tensor(DType d, U shape, D v) { return engine::eval::from_doubles(d, ir::Shape::of(shape), v); }
inline D values(const Tensor& t) { return engine::eval::to_doubles(t); }
inline U dims(const Tensor& t) { return {t.shape().dims().begin(), t.shape().dims().end()}; }
// from, from + 1, ... (n of them).
inline D iota(size_t n, double from = 0) {
    D v(n);
    for (size_t i = 0; i < n; ++i) v[i] = from + static_cast<double>(i);
    return v;
}
// The k-th var after `first` (an operator's outputs are consecutive).
inline VarId nth(VarId first, uint32_t k) { return VarId(first.value + k); }
// Options giving an operator's output dtype.
inline OpOptions to(DType d) {
    OpOptions o;
    o.output_dtype = d;
    return o;
}

// Marks `outs` as the graph's outputs and runs it on `feeds`.
inline std::vector<Tensor> run(GraphBuilder& b, std::vector<VarId> outs, const Feeds& feeds = {}) {
    for (size_t i = 0; i < outs.size(); ++i) b.output(outs[i], "out" + std::to_string(i));
    const ir::Graph g = b.finish();
    std::vector<Tensor> result;
    for (auto& o : evaluate(g, feeds)) result.push_back(o.value);
    return result;
}
// The one output `y` of a graph without inputs, on `threads` (0: every core).
inline Tensor run1(GraphBuilder& b, VarId y, int threads = 0) {
    b.output(y, "y");
    const ir::Graph g = b.finish();
    return evaluate(g, {}, {.threads = threads}).at(0).value;
}

// The message of the EvalError `f` throws.
template <class F>
std::string eval_error_of(F&& f) {
    try {
        f();
    } catch (const EvalError& e) {
        return e.what();
    }
    return "(no EvalError)";
}
inline std::string error_of(GraphBuilder& b, VarId y) {
    return eval_error_of([&] { run1(b, y); });
}
// Runs a graph that must be refused with an EvalError naming `part`.
inline void expect_refused(GraphBuilder& b, VarId out, const Feeds& feeds, std::string_view part) {
    try {
        run(b, {out}, feeds);
        ADD_FAILURE() << "not refused; expected: " << part;
    } catch (const EvalError& e) {
        EXPECT_NE(std::string_view(e.what()).find(part), std::string_view::npos) << e.what();
    }
}

// Equal element by element, NaN where NaN (and the sign of zero ignored).
inline void expect_values(const D& got, const D& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i]))
            EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
        else
            EXPECT_EQ(got[i], want[i]) << "element " << i;
    }
}
// `t` has `shape` and exactly the storage values `want`.
inline void expect_values(const Tensor& t, const U& shape, const D& want) {
    EXPECT_EQ(t.shape(), ir::Shape::of(std::span<const uint32_t>(shape)));
    expect_values(storage_values(t), want);
}
// Equal as floats (within 4 float ulps), NaN where NaN.
inline void expect_floats(const D& got, const D& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i]))
            EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
        else
            EXPECT_FLOAT_EQ(static_cast<float>(got[i]), static_cast<float>(want[i])) << "element " << i;
    }
}
inline void expect_floats(const Tensor& t, const D& want) { expect_floats(values(t), want); }
// Within `tol` of `want`, element by element.
inline void expect_near(const D& got, const D& want, double tol) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}
inline void expect_near(const Tensor& t, const D& want, double tol) { expect_near(values(t), want, tol); }

}  // namespace mgedump::test
