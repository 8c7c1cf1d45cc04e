#include "engine/eval/numeric_verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/dump.h"
#include "engine/eval/elements.h"
#include "formats/model_reader.h"
#include "ir/error.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

bool exact_dtype(ir::DTypeEnum t) { return !is_float_dtype(t); }

// Storage values: quantized outputs are compared as their integers.
std::vector<double> stored(const Tensor& t) {
    if (!ir::dtype_is_quantized(t.dtype().type)) return to_doubles(t);
    std::vector<double> out(t.elements());
    with_storage_type(t.dtype().type, [&](auto tag) {
        auto in = t.data<decltype(tag)>();
        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(in[i]);
    });
    return out;
}

struct Variant {
    const char* name;
    DumpFormat format;
    bool no_change_graph;
};
constexpr Variant kVariants[] = {
    {"FBS_V2", DumpFormat::FBS_V2, false},
    {"FBS_V2 no_change_graph", DumpFormat::FBS_V2, true},
    {"FBS", DumpFormat::FBS, false},
    {"FBS no_change_graph", DumpFormat::FBS, true},
};

}  // namespace

bool NumericReport::ok() const {
    for (const VariantDiff& v : variants)
        for (const OutputDiff& o : v.outputs) {
            if (!o.problem.empty()) return false;
            if (o.max_rel > kFloatTolerance) return false;
        }
    return true;
}

OutputDiff diff_output(const std::string& name, const Tensor& got, const Tensor& reference) {
    OutputDiff d;
    d.name = name;
    if (!(got.dtype() == reference.dtype())) {
        d.problem = fmt::format("dtype {} != {}", ir::dtype_string(got.dtype()), ir::dtype_string(reference.dtype()));
        return d;
    }
    if (!(got.shape() == reference.shape())) {
        d.problem = fmt::format("shape {} != {}", ir::shape_string(got.shape()), ir::shape_string(reference.shape()));
        return d;
    }
    const std::vector<double> a = stored(got), b = stored(reference);
    double max_ref = 0;
    uint64_t nan_mismatch = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
            nan_mismatch += std::isnan(a[i]) != std::isnan(b[i]);
            continue;
        }
        if (std::isinf(a[i]) || std::isinf(b[i])) {
            nan_mismatch += a[i] != b[i];
            continue;
        }
        d.max_abs = std::max(d.max_abs, std::fabs(a[i] - b[i]));
        max_ref = std::max(max_ref, std::fabs(b[i]));
    }
    d.max_rel = max_ref > 0 ? d.max_abs / max_ref : (d.max_abs > 0 ? INFINITY : 0);
    if (nan_mismatch) d.problem = fmt::format("{} elements differ in NaN/Inf", nan_mismatch);
    else if (exact_dtype(reference.dtype().type) && d.max_abs != 0)
        d.problem = fmt::format("{} values differ (exact dtype), by up to {}", ir::dtype_string(reference.dtype()), d.max_abs);
    return d;
}

NumericReport verify_numeric(const ir::Graph& g, uint64_t seed, const EvalOptions& options) {
    const Feeds feeds = random_feeds(g, seed);
    const std::vector<EvalOutput> reference = evaluate(g, feeds, options);
    NumericReport report;
    for (const Variant& v : kVariants) {
        VariantDiff vd;
        vd.variant = v.name;
        DumpOptions o;
        o.dump_format = v.format;
        o.no_change_graph = v.no_change_graph;
        o.keep_var_name = 2;
        std::shared_ptr<std::vector<std::byte>> bytes;
        try {
            bytes = std::make_shared<std::vector<std::byte>>(dump_graph(g, o).bytes.to_bytes());
        } catch (const OptionError& e) {
            vd.not_dumpable = e.what();
            report.variants.push_back(std::move(vd));
            continue;
        }
        const formats::LoadedModel m = formats::read_model(*bytes, bytes);
        const std::vector<EvalOutput> got = evaluate(m.graph, feeds, options);
        if (got.size() != reference.size())
            throw Error(fmt::format("{}: {} outputs after loading, {} before", v.name, got.size(), reference.size()));
        for (size_t i = 0; i < got.size(); ++i)
            vd.outputs.push_back(diff_output(reference[i].name, got[i].value, reference[i].value));
        report.variants.push_back(std::move(vd));
    }
    return report;
}

}  // namespace mgedump::engine::eval
