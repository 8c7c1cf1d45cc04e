// Shared by the compatibility-rewrite tests (tests/eval/rewrite_*_test.cpp): a
// graph is evaluated as given and again as a dump that applies the rewrites of
// spec §9.1 loads back, on the same inputs, and the outputs are compared.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/dump.h"
#include "engine/eval/elements.h"
#include "engine/eval/evaluator.h"
#include "formats/model_reader.h"
#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/order.h"
#include "tests/eval/eval_test_util.h"

namespace mgedump::test {

inline const ir::DType kF32 = ir::DType::of(ir::DTypeEnum::Float32);
inline const ir::DType kF16 = ir::DType::of(ir::DTypeEnum::Float16);
inline const ir::DType kI32 = ir::DType::of(ir::DTypeEnum::Int32);
inline const ir::DType kBool = ir::DType::of(ir::DTypeEnum::Bool);

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A tensor of `dtype` (Float32, Float16, Int32, Bool) holding `values` rounded as
// the dtype stores them.
inline engine::eval::Tensor tensor_of(ir::DType dtype, const std::vector<double>& values) {
    const ir::Shape shape = ir::Shape::of({static_cast<uint32_t>(values.size())});
    return engine::eval::from_doubles(dtype, shape, values);
}
inline engine::eval::Tensor tensor_of(ir::DType dtype, std::vector<uint32_t> shape,
                                      const std::vector<double>& values) {
    return engine::eval::from_doubles(dtype, ir::Shape::of(shape), values);
}

// The graph read back from a dump, with the bytes it views.
struct Reloaded {
    std::shared_ptr<std::vector<std::byte>> bytes;
    formats::LoadedModel model;
};

inline Reloaded dump_and_reload(const ir::Graph& g, engine::DumpFormat format) {
    engine::DumpOptions o;
    o.dump_format = format;
    o.keep_var_name = 2;
    Reloaded r;
    r.bytes = std::make_shared<std::vector<std::byte>>(engine::dump_graph(g, o).bytes.to_bytes());
    r.model = formats::read_model(*r.bytes, r.bytes);
    return r;
}

// "Elemwise(SIGN)", "Reduce", ... for each operator in dump order: to check that a
// rewrite happened and what it produced.
inline std::vector<std::string> operator_list(const ir::Graph& g) {
    std::vector<std::string> out;
    for (ir::OprId o : ir::dump_order(g)) {
        const ir::OpDef& def = ir::op_def(g.oprs.type[o.value]);
        std::string s(def.name);
        auto params = g.params_of(o);
        if ((def.name == "Elemwise" || def.name == "ElemwiseMultiType") && !params.empty()) {
            const ir::ParamTableDesc& t = ir::param_table(params[0].table);
            const auto value = static_cast<uint32_t>(std::get<int64_t>(params[0].fields[0]));
            std::string mode(ir::find_enum_member(*t.fields[0].enum_type, value)->name);
            if (mode.ends_with('_')) mode.pop_back();
            s += "(" + mode + ")";
        }
        out.push_back(s);
    }
    return out;
}

inline bool has_operator(const ir::Graph& g, std::string_view label) {
    for (const std::string& s : operator_list(g))
        if (s == label) return true;
    return false;
}

// The graph's outputs as given and as the rewritten dump computes them.
struct RewriteRun {
    std::vector<engine::eval::EvalOutput> original, rewritten;
    Reloaded reloaded;
};

inline RewriteRun run_rewritten(const ir::Graph& g, const engine::eval::Feeds& feeds,
                                engine::DumpFormat format) {
    RewriteRun r;
    r.original = engine::eval::evaluate(g, feeds);
    r.reloaded = dump_and_reload(g, format);
    // A rewrite may leave an input unused (the weight of a norm with affine=false).
    engine::eval::Feeds used;
    for (const auto& in : engine::eval::graph_inputs(r.reloaded.model.graph))
        if (auto f = feeds.find(in.name); f != feeds.end()) used.emplace(f->first, f->second);
    r.rewritten = engine::eval::evaluate(r.reloaded.model.graph, used);
    return r;
}

// One unit in the last place of |v| in `dtype` (Float32 or Float16), subnormals
// included.
inline double ulp_of(double v, ir::DTypeEnum dtype) {
    const double a = std::fabs(v);
    const int mantissa = dtype == ir::DTypeEnum::Float16 ? 10 : 23;
    const int min_exp = dtype == ir::DTypeEnum::Float16 ? -14 : -126;
    int e = a > 0 ? std::ilogb(a) : min_exp;
    if (e < min_exp) e = min_exp;
    return std::ldexp(1.0, e - mantissa);
}

// Largest difference found, in units in the last place of the original's value.
struct UlpReport {
    std::string problem;  // "" when every element is within the bound
    double max_ulps = 0;
};

// Element by element: NaN where the original has NaN, the same infinity where it
// has one, and otherwise within `max_ulps` units in the last place of the
// original's value. `inputs` (same length) names the input of a differing element.
inline UlpReport compare_ulps(const engine::eval::Tensor& got, const engine::eval::Tensor& want,
                              double max_ulps, const std::vector<double>& inputs = {}) {
    UlpReport r;
    if (got.dtype().type != want.dtype().type || !(got.shape() == want.shape())) {
        r.problem =
            fmt::format("{} != {}", engine::eval::describe_tensor(got), engine::eval::describe_tensor(want));
        return r;
    }
    const auto a = storage_values(got), b = storage_values(want);
    std::string bad;
    size_t nbad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        bool ok;
        double ulps = 0;
        if (std::isnan(b[i]) || std::isinf(b[i]) || std::isnan(a[i]) || std::isinf(a[i])) {
            ok = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i];
        } else {
            ulps = std::fabs(a[i] - b[i]) / ulp_of(b[i], want.dtype().type);
            ok = ulps <= max_ulps;
            r.max_ulps = std::max(r.max_ulps, ulps);
        }
        if (!ok && nbad++ < 6)
            bad += fmt::format("\n  [{}]{}: rewritten {} != operator {}{}", i,
                               i < inputs.size() ? fmt::format(" x={}", inputs[i]) : "", a[i], b[i],
                               std::isfinite(ulps) && ulps > 0 ? fmt::format(" ({:.1f} ulps)", ulps) : "");
    }
    if (nbad) r.problem = fmt::format("{} of {} elements differ:{}", nbad, a.size(), bad);
    return r;
}

// max |got − want| / max |want| over elements finite in both (0 when all agree):
// recorded by the tests (RecordProperty) for the report of how close each rewrite is.
inline double max_relative_difference(const engine::eval::Tensor& got, const engine::eval::Tensor& want) {
    if (!(got.shape() == want.shape())) return INFINITY;
    const auto a = storage_values(got), b = storage_values(want);
    double diff = 0, top = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) continue;
        diff = std::max(diff, std::fabs(a[i] - b[i]));
        top = std::max(top, std::fabs(b[i]));
    }
    return top > 0 ? diff / top : diff;
}

// Exact equality of storage values (integers, Bool), NaN matching NaN.
inline std::string compare_exact(const engine::eval::Tensor& got, const engine::eval::Tensor& want) {
    return compare_tensors(got, want, Tolerance{0, 0});
}

}  // namespace mgedump::test
