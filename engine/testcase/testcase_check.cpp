#include "engine/testcase/testcase_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include "engine/eval/elements.h"
#include "ir/describe.h"
#include "ir/error.h"
#include "ir/op_registry.h"
#include "ir/opr_fields.h"

namespace mgedump::engine::testcase {
namespace {

// What AssertEqual::make computes from two inputs, for an AssertEqual read with
// only those (MegEngine's files always carry the err input).
double assert_err(const eval::Tensor& expect, const eval::Tensor& get) {
    if (!(expect.shape() == get.shape())) return std::numeric_limits<double>::quiet_NaN();
    const std::vector<float> a = eval::to_floats(expect), b = eval::to_floats(get);
    float err = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const float e = std::fabs(a[i] - b[i]) / std::max(std::min(std::fabs(a[i]), std::fabs(b[i])), 1.f);
        if (std::isnan(e)) return e;
        err = std::max(err, e);
    }
    return err;
}

// An output of the model and what its check reads.
struct Checked {
    ir::VarId output;
    bool asserts = false;
    ir::VarId expect, get, err;  // err invalid: two-input AssertEqual
    std::string name;
    double maxerr = 0;
};

std::string var_label(const ir::Graph& g, ir::VarId v) {
    const ir::StrId n = g.vars.name[v.value];
    return n.valid() ? std::string(g.str(n)) : fmt::format("%{}", v.value);
}

// "out" for the Host2DeviceCopy input "out:expect" that trace.dump adds.
std::optional<std::string> expect_output_name(const ir::Graph& g, ir::VarId expect) {
    constexpr std::string_view kSuffix = ":expect";
    const ir::OprId o = g.vars.owner[expect.value];
    if (ir::op_def(g.oprs.type[o.value]).tensors != ir::OpTensors::Input ||
        g.oprs.tensors[o.value].count == 0)
        return std::nullopt;
    const std::string_view name = g.str(g.tensors.name[g.oprs.tensors[o.value].begin]);
    if (!name.ends_with(kSuffix) || name.size() == kSuffix.size()) return std::nullopt;
    return std::string(name.substr(0, name.size() - kSuffix.size()));
}

}  // namespace

bool CaseCheck::ok() const {
    return problem.empty() && std::ranges::all_of(outputs, [](const OutputCheck& o) { return o.passed(); });
}

bool TestcaseReport::ok() const {
    return std::ranges::all_of(cases, [](const CaseCheck& c) { return c.ok(); });
}

std::vector<eval::Tensor> case_values(const ir::Graph& testcase) {
    std::vector<eval::Tensor> values;
    for (eval::EvalOutput& o : eval::evaluate(testcase, {})) values.push_back(std::move(o.value));
    return values;
}

TestcaseReport check_testcases(const formats::TestcaseFile& f, const eval::EvalOptions& options) {
    const ir::Graph& model = f.model.graph;
    TestcaseReport r;
    for (const eval::GraphInput& in : eval::graph_inputs(model)) r.input_names.push_back(in.name);
    std::ranges::sort(r.input_names);

    // The graph executed: AssertEqual's inputs instead of its output, so every
    // err is read (the evaluator's AssertEqual kernel would stop at the first).
    const ir::OpTypeId assert_equal = ir::find_op("AssertEqual");
    std::vector<Checked> checked;
    ir::Graph run = model;
    run.outputs.clear();
    auto want = [&run](ir::VarId v) {
        run.outputs.push_back(v);
        return v;
    };
    for (ir::VarId v : model.outputs) {
        Checked c{.output = v};
        const ir::OprId o = model.vars.owner[v.value];
        if (model.oprs.type[o.value] == assert_equal) {
            const auto in = model.inputs_of(o);
            c.asserts = true;
            c.expect = want(in[0]);
            c.get = want(in[1]);
            if (in.size() > 2) c.err = want(in[2]);
            // The expect input's name says which output it is, also where the file
            // keeps no name for the var compared (FBS keeps only the outputs').
            c.name = expect_output_name(model, in[0]).value_or(var_label(model, in[1]));
            // A graph that passed validation always holds it; a hand-built one
            // that did not gets an error, not an out-of-range read.
            const double* maxerr = ir::field_as<double>(model, o, "maxerr");
            if (maxerr == nullptr)
                throw Error(fmt::format("{} holds no 'maxerr' field", ir::describe_opr(model, o)));
            c.maxerr = *maxerr;
            ++r.asserts;
        } else {
            want(v);
            c.name = var_label(model, v);
        }
        checked.push_back(c);
    }
    auto index_of = [&run](ir::VarId v) {
        return static_cast<size_t>(std::ranges::find(run.outputs, v) - run.outputs.begin());
    };

    for (size_t k = 0; k < f.cases.size(); ++k) {
        CaseCheck cc;
        try {
            std::vector<eval::Tensor> values = case_values(f.cases[k].graph);
            if (values.size() != r.input_names.size())
                throw Error(fmt::format("it holds {} value(s), the model has {} input(s)", values.size(),
                                        r.input_names.size()));
            eval::Feeds feeds;
            for (size_t i = 0; i < values.size(); ++i) feeds.emplace(r.input_names[i], std::move(values[i]));
            const std::vector<eval::EvalOutput> got = eval::evaluate(run, feeds, options);
            for (const Checked& c : checked) {
                if (!c.asserts) continue;
                OutputCheck oc{.name = c.name, .maxerr = c.maxerr};
                if (c.err.valid()) {
                    const eval::Tensor& err = got[index_of(c.err)].value;
                    oc.err = err.elements() == 1 ? eval::element_as_float(err, 0) : std::nan("");
                } else {
                    oc.err = assert_err(got[index_of(c.expect)].value, got[index_of(c.get)].value);
                }
                cc.outputs.push_back(oc);
            }
        } catch (const Error& e) {
            cc.problem = e.what();
        }
        r.cases.push_back(std::move(cc));
    }
    return r;
}

}  // namespace mgedump::engine::testcase
