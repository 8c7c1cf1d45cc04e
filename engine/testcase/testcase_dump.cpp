#include "engine/testcase/testcase_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "engine/dump.h"
#include "engine/eval/elements.h"
#include "engine/strip_info.h"
#include "engine/testcase/input_data.h"
#include "formats/testcase_file.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "ir/infer.h"
#include "ir/validate.h"
#include "ir/xxh3_dispatch.h"

namespace mgedump::engine::testcase {
namespace {

// Where trace.dump puts the expected values (make_h2d(graph, "xpux", ...)) and
// the scalars AssertEqual::make adds (make_scalar on the expect var's comp node).
constexpr std::string_view kExpectCompNode = "xpux:0";
// Where the test cases' values live (make_dev_tensor(..., device="cpux")).
constexpr std::string_view kTestcaseCompNode = "cpux:0";

std::string expect_name(std::string_view output) { return fmt::format("{}:expect", output); }

ir::OprId append(ir::Graph& g, std::string_view op, std::span<const ir::VarId> inputs,
                 const ir::ParamArgs& args = {}, const ir::OpOptions& options = {}) {
    const ir::OpTypeId type = ir::find_op(op);
    return ir::append_op(g, type, inputs, ir::make_params(ir::op_def(type), args, op), options);
}

ir::VarId elemwise(ir::Graph& g, const char* mode, std::initializer_list<ir::VarId> inputs) {
    const std::vector<ir::VarId> in(inputs);
    return g.output_var(append(g, "Elemwise", in, {{"mode", mode}}), 0);
}

// The operator's one tensor, as GraphBuilder::add_tensor records it.
ir::VarId with_tensor(ir::Graph& g, ir::OprId o, std::string_view name, ir::TensorMethod method,
                      ir::DType dtype, std::span<const uint32_t> shape, std::string_view comp_node,
                      ir::BlobId blob) {
    const auto t = static_cast<uint32_t>(g.tensors.size());
    const ir::Range dims = g.add_dims(shape);
    g.tensors.name.push_back(name.empty() ? ir::StrId() : g.strings.intern(name));
    g.tensors.dtype.push_back(dtype);
    g.tensors.shape.push_back(dims);
    g.tensors.comp_node.push_back(g.strings.intern(comp_node));
    g.tensors.method.push_back(method);
    g.tensors.blob.push_back(blob);
    g.tensors.format_type.push_back(1);
    g.oprs.tensors[o.value] = ir::Range{t, 1};
    const ir::VarId v = g.output_var(o, 0);
    g.vars.dtype[v.value] = dtype;
    g.vars.shape[v.value] = dims;
    return v;
}

// SymbolVar::make_scalar: an ImmutableTensor of shape [1], its comp node also the operator's.
ir::VarId scalar(ir::Graph& g, ir::DType dtype, double value) {
    ir::OpOptions options;
    options.comp_nodes = {std::string(kExpectCompNode)};
    const ir::OprId o = append(g, "ImmutableTensor", {}, {}, options);
    const double one[] = {value};
    const eval::Tensor t = eval::from_doubles(dtype, ir::Shape::of({1}), one);
    const std::vector<std::byte> bytes(t.bytes().begin(), t.bytes().end());
    const uint32_t shape[] = {1};
    return with_tensor(g, o, {}, ir::TensorMethod::ValueAnonymous, dtype, shape, kExpectCompNode,
                       g.blobs.add_owned(bytes));
}

// Pieces written one after the other into `into`, hashed on their way.
class ConcatSink final : public ArtifactSink {
  public:
    explicit ConcatSink(ArtifactSink& into, bool hash) : into_(into), hash_(hash) {}
    void begin(uint64_t size) override {
        into_.begin(size);
        total_ += size;
    }
    std::span<std::byte> next(size_t n) override { return room_ = into_.next(n); }
    void filled(size_t n) override {
        if (hash_) state_.update(room_.data(), n);
        into_.filled(n);
    }
    Stores stores() const override { return into_.stores(); }
    bool reads_input_files() const override { return into_.reads_input_files(); }

    void write(std::span<const std::byte> bytes) {
        begin(bytes.size());
        for (size_t at = 0; at < bytes.size();) {
            const size_t n = std::min<size_t>(bytes.size() - at, 64 << 10);
            std::memcpy(next(n).data(), bytes.data() + at, n);
            filled(n);
            at += n;
        }
    }
    uint64_t total() const { return total_; }
    std::string digest() const { return hash_ ? ir::xxh3_128_hex(state_.digest()) : std::string(); }

  private:
    ArtifactSink& into_;
    bool hash_;
    ir::Xxh3State state_;
    std::span<std::byte> room_;
    uint64_t total_ = 0;
};

void merge(formats::StripInfo& into, const formats::StripInfo& from) {
    auto add = [](std::vector<std::string>& to, const std::vector<std::string>& more) {
        for (const std::string& s : more)
            if (std::ranges::find(to, s) == to.end()) to.push_back(s);
        std::ranges::sort(to);
    };
    add(into.opr_types, from.opr_types);
    add(into.dtypes, from.dtypes);
    add(into.elemwise_modes, from.elemwise_modes);
}

// The refusals of with_asserts that need no expected value, checked before anything is run.
void check_assertable(const ir::Graph& g) {
    std::set<std::string, std::less<>> input_names;
    for (const eval::GraphInput& in : eval::graph_inputs(g)) input_names.insert(in.name);
    std::set<uint32_t> seen;
    for (size_t i = 0; i < g.outputs.size(); ++i) {
        const ir::VarId v = g.outputs[i];
        const ir::StrId name = g.vars.name[v.value];
        if (!name.valid() || g.str(name).empty())
            throw OptionError(
                fmt::format("output {} has no name: its expected value is the input \"<name>:expect\", "
                            "so asserting needs named outputs (or no_assert)",
                            i));
        if (!seen.insert(v.value).second)
            throw OptionError(fmt::format("output '{}' is listed twice: its \"{}\" input would be made twice",
                                          g.str(name), expect_name(g.str(name))));
        if (input_names.contains(expect_name(g.str(name))))
            throw OptionError(fmt::format("output '{}': the model already has an input named '{}'",
                                          g.str(name), expect_name(g.str(name))));
        const ir::DType d = g.vars.dtype[v.value];
        if (!d.valid || !eval::is_float_dtype(d.type))
            throw OptionError(
                fmt::format("output '{}' is {}: AssertEqual's error divides with Elemwise TRUE_DIV, which "
                            "MegDNN defines for "
                            "float dtypes only, so MegEngine cannot assert it either; write the test cases "
                            "with no_assert",
                            g.str(name), d.valid ? ir::dtype_string(d) : std::string("of unknown dtype")));
    }
}

}  // namespace

ir::Graph with_asserts(const ir::Graph& g, std::span<const ir::Shape> expect_shapes, double maxerr,
                       bool verbose) {
    check_assertable(g);
    for (size_t i = 0; i < g.outputs.size(); ++i)
        if (i >= expect_shapes.size() || !expect_shapes[i].known())
            throw OptionError(
                fmt::format("output '{}' has no known shape", g.str(g.vars.name[g.outputs[i].value])));

    ir::Graph m = g;  // shares the tensor bytes
    std::vector<ir::VarId> outputs;
    const ir::OpTypeId h2d = ir::find_op("Host2DeviceCopy");
    for (size_t i = 0; i < g.outputs.size(); ++i) {
        const ir::VarId get = g.outputs[i];
        const std::string name(g.str(g.vars.name[get.value]));
        const ir::DType dtype = g.vars.dtype[get.value];

        // trace.dump: make_h2d(graph, "xpux", dtype, shape, "<name>:expect").
        ir::OpOptions named;
        named.name = expect_name(name);
        const ir::OprId in =
            ir::append_op(m, h2d, {}, ir::make_params(ir::op_def(h2d), {}, named.name), named);
        const ir::VarId expect = with_tensor(m, in, named.name, ir::TensorMethod::MetaInput, dtype,
                                             expect_shapes[i].dims(), kExpectCompNode, ir::BlobId());

        // AssertEqual::make(expect, get, param), utility.cpp.
        const ir::VarId diff = elemwise(m, "ABS", {elemwise(m, "SUB", {expect, get})});
        const ir::VarId smaller =
            elemwise(m, "MIN", {elemwise(m, "ABS", {expect}), elemwise(m, "ABS", {get})});
        const ir::VarId denom = elemwise(m, "MAX", {smaller, scalar(m, dtype, 1)});
        const ir::VarId ratio = elemwise(m, "TRUE_DIV", {diff, denom});
        const ir::VarId target[] = {ratio, scalar(m, ir::DType::of(ir::DTypeEnum::Int32), 1)};
        const ir::VarId err = m.output_var(append(m, "Reduce", target, {{"mode", "MAX"}}), 0);

        ir::OpOptions assert_options;
        assert_options.name = fmt::format("assert_eq({},{})", named.name, name);
        const ir::VarId checks[] = {expect, get, err};
        const ir::ParamArgs params = {{"maxerr", static_cast<float>(maxerr)},
                                      {"verbose", ir::ParamArg(verbose)}};
        outputs.push_back(m.output_var(append(m, "AssertEqual", checks, params, assert_options), 0));
    }
    m.outputs = std::move(outputs);
    // The added operators are MegEngine's own make; a refusal here is a bug of this file.
    ir::validate(m, ir::ValidateOptions{.unique_output_names = true});
    ir::apply_inferred(m, ir::infer_graph(m));
    m.inferred = true;
    return m;
}

Testcases make_testcases(const ir::Graph& g, const TestcaseOptions& o, const eval::EvalOptions& eval) {
    check_testcase_options(o);
    if (!o.no_assert) check_assertable(g);
    const std::vector<eval::GraphInput> inputs = eval::graph_inputs(g);
    const std::vector<std::string> specs = expand_input_data(o.input_data, o.data_dir);
    if (specs.empty()) throw OptionError("test cases: the input data lists no SPEC");
    const FeedOptions feed_options{.repeat = o.repeat, .seed = o.seed, .data_dir = o.data_dir};

    // Every case's inputs first: a bad SPEC is reported before anything is run.
    std::vector<eval::Feeds> feeds;
    for (size_t k = 0; k < specs.size(); ++k)
        feeds.push_back(make_case_feeds(inputs, parse_case_spec(specs[k]), k, feed_options));
    // Inputs a SPEC left out keep their default value, which the test case holds too.
    for (eval::Feeds& f : feeds)
        for (const eval::GraphInput& in : inputs)
            if (!f.contains(in.name)) {
                const ir::TensorId t(g.oprs.tensors[in.opr.value].begin);
                f.emplace(in.name,
                          eval::Tensor::copy_of(in.dtype, in.shape, g.blobs.bytes(g.tensors.blob[t.value])));
            }

    Testcases t;
    if (o.no_assert) {
        t.model = g;
    } else {
        std::vector<std::vector<eval::EvalOutput>> expected;
        for (const eval::Feeds& f : feeds) expected.push_back(eval::evaluate(g, f, eval));
        // trace.dump: the output's static shape, else the first test case's.
        std::vector<ir::Shape> shapes;
        for (size_t i = 0; i < g.outputs.size(); ++i) {
            const ir::Shape s = ir::Shape::of(g.var_shape(g.outputs[i]));
            shapes.push_back(s.known() ? s : expected[0][i].value.shape());
        }
        t.model = with_asserts(g, shapes, o.maxerr, !o.silent);
        for (size_t k = 0; k < feeds.size(); ++k)
            for (size_t i = 0; i < g.outputs.size(); ++i) {
                const eval::Tensor& value = expected[k][i].value;
                const std::string name = expect_name(g.str(g.vars.name[g.outputs[i].value]));
                if (!(value.shape() == shapes[i]))
                    throw OptionError(
                        fmt::format("test case {}: output '{}' is {} here and {} in test case 0: the "
                                    "expected value's input has one shape",
                                    k, name, ir::shape_string(value.shape()), ir::shape_string(shapes[i])));
                feeds[k].emplace(name, value);
            }
    }

    // load_and_run sorts the model's tensor_map names (std::string order, bytewise),
    // trace.dump sorts (name, dtype) pairs: the same order for distinct names.
    for (const eval::GraphInput& in : eval::graph_inputs(t.model)) t.names.push_back(in.name);
    std::ranges::sort(t.names);
    for (eval::Feeds& f : feeds) {
        std::vector<eval::Tensor> values;
        for (const std::string& name : t.names) values.push_back(f.at(name));
        t.values.push_back(std::move(values));
    }
    return t;
}

ir::Graph testcase_graph(const Testcases& t, size_t k) {
    ir::GraphBuilder b{std::string(kTestcaseCompNode)};
    for (size_t i = 0; i < t.names.size(); ++i) {
        const eval::Tensor& v = t.values[k][i];
        const std::vector<uint32_t> shape(v.shape().dims().begin(), v.shape().dims().end());
        b.output(
            b.param(t.names[i], v.dtype(), shape, std::vector<std::byte>(v.bytes().begin(), v.bytes().end())),
            t.names[i]);
    }
    return b.finish();
}

TestcaseDumped dump_with_testcases(const Testcases& t, const DumpOptions& options, ArtifactSink& into,
                                   Digest digest) {
    ConcatSink sink(into, digest == Digest::Compute);
    sink.write(formats::testcase_header(static_cast<uint32_t>(t.values.size())));

    TestcaseDumped out;
    out.input_names = t.names;
    DumpOptions model_options = options;
    model_options.testcases.reset();  // what this file adds around the model
    out.model = dump_graph(t.model, model_options, nullptr, &sink, Digest::Skip).result;
    out.strip_info = compute_strip_info(t.model);

    // G.dump_graph(output_mgbvars, strip_info_file=strip_info_file, append_json=True).
    DumpOptions case_options;
    case_options.mgb_version = options.mgb_version;
    case_options.strip_info_file = options.strip_info_file;
    case_options.append_json = options.strip_info_file.has_value();
    for (size_t k = 0; k < t.values.size(); ++k) {
        const ir::Graph c = testcase_graph(t, k);
        out.cases.push_back(dump_graph(c, case_options, nullptr, &sink, Digest::Skip).result);
        if (k == 0) merge(out.strip_info, compute_strip_info(c));
    }
    out.file_bytes = sink.total();
    out.model.xxh3_128 = sink.digest();
    return out;
}

TestcaseDumped write_testcase_file(const ir::Graph& g, const DumpOptions& options, ArtifactSink& into,
                                   const eval::EvalOptions& eval, Digest digest) {
    if (!options.testcases) throw OptionError("a test-case file needs test-case options (input_data)");
    check_options(options);
    return dump_with_testcases(make_testcases(g, *options.testcases, eval), options, into, digest);
}

std::span<std::byte> AppendSink::next(size_t n) {
    bytes.resize(at_ + n);
    return {bytes.data() + at_, n};
}

}  // namespace mgedump::engine::testcase
