// load(dump(g)) == g: generated graphs × both formats (and their variants) × the
// naming, priority and metadata options, compared by meaning as the options kept it.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "engine/dump.h"
#include "ir/order.h"
#include "engine/passes/compat_rewrite.h"
#include "formats/write_plan.h"
#include "engine/model_compare.h"
#include "formats/model_reader.h"
#include "ir/op_registry.h"
#include "model_test_util.h"

namespace mgedump {
namespace {

using ir::DType;
using ir::DTypeEnum;

std::vector<std::byte> floats(size_t n, float start) {
    std::vector<std::byte> b(n * 4);
    for (size_t i = 0; i < n; ++i) {
        float v = start + 0.5f * static_cast<float>(i);
        std::memcpy(b.data() + 4 * i, &v, 4);
    }
    return b;
}

ir::Graph appendix_c() {
    ir::GraphBuilder b;
    ir::VarId data = b.input("data", DType::of(DTypeEnum::Float32), {1, 3});
    ir::VarId c = b.constant<float>({3}, {1.0f, 2.0f, 3.0f}, "const");
    b.output(b.op("Elemwise", {data, c}, {{"mode", "ADD"}}), "out");
    return b.finish();
}

// Convolutions with ExecutionPolicy, names, priorities, explicit comp nodes, an
// output dtype, quantized and half tensors, two outputs (one requested twice).
ir::Graph conv_net() {
    ir::GraphBuilder b("cpu0:0");
    ir::VarId x = b.input("image", DType::of(DTypeEnum::Float32), {1, 2, 4, 4});
    ir::VarId w = b.constant(DType::of(DTypeEnum::Float32), {3, 2, 3, 3}, floats(54, -1.0f), "w");
    ir::OpOptions conv_opts;
    conv_opts.name = "conv1";
    conv_opts.priority = 5;
    conv_opts.comp_nodes = {"cpu0:0"};
    ir::VarId y = b.op("Convolution", {x, w}, {{"pad_h", 1}, {"pad_w", 1}, {"strategy", 2}}, conv_opts);
    ir::VarId bias = b.param("bias", DType::of(DTypeEnum::Float32), {1, 3, 1, 1}, floats(3, 0.25f));
    ir::OpOptions add_opts;
    add_opts.name = "add_bias";
    add_opts.priority = -3;
    ir::VarId z = b.op("Elemwise", {y, bias}, {{"mode", "FUSE_ADD_RELU"}}, add_opts);
    ir::VarId p = b.op("Pooling", {z}, {{"mode", "AVERAGE"}, {"window_h", 2}, {"window_w", 2}});
    ir::VarId q = b.constant(DType::quantized(DTypeEnum::QuantizedS8, 0.125f), {4}, {std::byte{1}, std::byte{2}, std::byte{0xfe}, std::byte{4}});
    // Four halves (1, 2, 3, 4), so the MUL below has operands of one shape.
    ir::VarId h = b.constant(DType::of(DTypeEnum::Float16), {4},
                             {std::byte{0}, std::byte{0x3c}, std::byte{0}, std::byte{0x40}, std::byte{0}, std::byte{0x42},
                              std::byte{0}, std::byte{0x44}});
    ir::VarId qf = b.op("TypeCvt", {q}, {{"dtype", DType::of(DTypeEnum::Float32)}});
    ir::OpOptions cvt;
    cvt.output_dtype = DType::of(DTypeEnum::Float32);
    ir::VarId hf = b.op("TypeCvt", {h}, {{"dtype", DType::of(DTypeEnum::Float32)}}, cvt);
    ir::VarId r = b.op("Reduce", {p}, {{"mode", "SUM"}, {"axis", 1}});
    b.output(r, "reduced");
    b.output(b.op("Elemwise", {qf, hf}, {{"mode", "MUL"}}), "mixed");
    b.output(r, "reduced");
    return b.finish();
}

// Variable-output operators: a param holder, Split, TopK with indices, Argsort.
ir::Graph multi_output() {
    ir::GraphBuilder b;
    ir::Graph& g = b.graph();
    ir::OpOptions holder;
    holder.outputs = 2;
    holder.name = "params";
    ir::OprId hold = b.add_op(ir::find_op("MultipleDeviceTensorHolder"), {}, {}, holder);
    // TopK takes a 2-D input: p0 is [1,4], its top 2 are [1,2].
    const uint32_t s1[] = {1, 4}, s2[] = {2, 2};
    b.add_tensor(hold, "p0", ir::TensorMethod::ValueShared, DType::of(DTypeEnum::Float32), s1, "xpux:0",
                 g.blobs.add_owned(floats(4, 1.0f)));
    b.add_tensor(hold, "p1", ir::TensorMethod::ValueShared, DType::of(DTypeEnum::Float32), s2, "xpux:0",
                 g.blobs.add_owned(floats(4, 9.0f)));
    ir::VarId p0 = g.output_var(hold, 0), p1 = g.output_var(hold, 1);
    ir::VarId x = b.input("x", DType::of(DTypeEnum::Float32), {8});
    // Split [8] into [2] and [6]: the first part broadcasts against TopK's [1,2].
    ir::VarId sizes_a = b.constant<int32_t>({1}, {2});
    ir::VarId sizes_b = b.constant<int32_t>({1}, {6});
    ir::OpOptions split;
    split.outputs = 2;
    ir::VarId s = b.op("Split", {x, sizes_a, sizes_b}, {{"axis", 0}}, split);
    ir::VarId k = b.constant<int32_t>({1}, {2});
    ir::OpOptions topk;
    topk.outputs = 2;
    ir::VarId t = b.op("TopK", {p0, k}, {{"mode", "VALUE_IDX_SORTED"}}, topk);
    ir::VarId a = b.op("Argsort", {p1}, {{"order", "DESCENDING"}}, ir::OpOptions{.outputs = 2});
    b.output(ir::VarId(s.value + 1), "second_part");
    b.output(ir::VarId(t.value + 1), "topk_indices");
    b.output(ir::VarId(a.value + 1), "argsort_indices");
    b.output(b.op("Elemwise", {s, t}, {{"mode", "ADD"}}), "sum");
    return b.finish();
}

struct Variant {
    const char* name;
    engine::DumpFormat format;
    bool compat_8_14;
    uint32_t model_version;
};
const Variant kVariants[] = {
    {"FBS", engine::DumpFormat::FBS, false, 2},
    {"FBS_814", engine::DumpFormat::FBS, true, 2},
    {"FBS_V2_mv1", engine::DumpFormat::FBS_V2, false, 1},
    {"FBS_V2_mv2", engine::DumpFormat::FBS_V2, false, 2},
};

using ir::Graph;
struct GraphCase {
    const char* name;
    Graph (*make)();
};
const GraphCase kGraphs[] = {{"appendix_c", appendix_c}, {"conv_net", conv_net}, {"multi_output", multi_output}};

// graph, variant, keep_var_name, keep_opr_name, keep_param_name, keep_opr_priority, metadata
using Param = std::tuple<int, int, int, bool, bool, bool, bool>;

class RoundTrip : public ::testing::TestWithParam<Param> {};

TEST_P(RoundTrip, LoadOfDumpEqualsTheGraphAsTheOptionsKeptIt) {
    const auto [graph_index, variant_index, keep_var_name, keep_opr_name, keep_param_name, keep_priority, metadata] =
        GetParam();
    const Variant& v = kVariants[variant_index];
    const Graph g = kGraphs[graph_index].make();
    engine::DumpOptions o;
    o.dump_format = v.format;
    o.model_version = v.model_version;
    if (v.compat_8_14) o.compat_older_version = "8.14";
    o.no_change_graph = !v.compat_8_14;
    o.keep_var_name = keep_var_name;
    o.keep_opr_name = keep_opr_name;
    o.keep_param_name = keep_param_name;
    o.keep_opr_priority = keep_priority;
    if (metadata) o.metadata = ir::Metadata{true, true, std::string("user \0 info", 11), 0x1234};
    // A convolution in FBS_V2 model_version 1 is a file MegEngine cannot load
    // (engine/loader_limits.h): refused, nothing to round-trip.
    if (v.format == engine::DumpFormat::FBS_V2 && v.model_version == 1 &&
        std::string_view(kGraphs[graph_index].name) == "conv_net") {
        EXPECT_THROW(engine::dump_graph(g, o), OptionError);
        return;
    }
    auto bytes = test::owned_bytes(engine::dump_graph(g, o).bytes.to_bytes());
    formats::LoadedModel m = test::load_bytes(bytes);

    EXPECT_EQ(m.format, v.format == engine::DumpFormat::FBS_V2 ? formats::ModelFormat::FbsV2
                        : v.compat_8_14                        ? formats::ModelFormat::FbsMGBS
                                                               : formats::ModelFormat::FbsMGBC);
    EXPECT_EQ(m.metadata.value_or(ir::Metadata{}), o.metadata.value_or(ir::Metadata{}));
    EXPECT_EQ(m.bytes_consumed, bytes->size());
    if (v.format == engine::DumpFormat::FBS_V2) {
        EXPECT_EQ(m.model_version, v.model_version);
    }
    engine::CompareOptions c;
    c.var_names = keep_var_name == 0 ? 0 : v.format == engine::DumpFormat::FBS_V2 ? 2 : keep_var_name;
    c.opr_names = keep_opr_name;
    c.param_names = keep_param_name;
    c.priorities = keep_priority;
    EXPECT_EQ(engine::compare_graphs(g, m.graph, c), std::vector<std::string>{});
    EXPECT_EQ(m.settings.keep_opr_name, keep_opr_name);
    // Priorities of 0 are never written, so a file only reveals nonzero ones.
    const bool any_priority =
        std::any_of(g.oprs.priority.begin(), g.oprs.priority.end(), [](int32_t p) { return p != 0; });
    EXPECT_EQ(m.settings.keep_opr_priority, keep_priority && any_priority);
    // The loaded graph dumps again to the very same bytes.
    EXPECT_EQ(engine::dump_graph(m.graph, o).bytes.to_bytes(), *bytes);
}

std::string case_name(const ::testing::TestParamInfo<Param>& info) {
    const auto& [gi, vi, kv, kon, kpn, kp, md] = info.param;
    return std::string(kGraphs[gi].name) + "_" + kVariants[vi].name + "_var" + std::to_string(kv) +
           (kon ? "_oprname" : "") + (kpn ? "_paramname" : "") + (kp ? "_priority" : "") + (md ? "_metadata" : "");
}

INSTANTIATE_TEST_SUITE_P(Options, RoundTrip,
                         ::testing::Combine(::testing::Range(0, 3), ::testing::Range(0, 4), ::testing::Range(0, 3),
                                            ::testing::Bool(), ::testing::Bool(), ::testing::Bool(),
                                            ::testing::Bool()),
                         case_name);

TEST(RoundTripComparison, NoticesAChangedParam) {
    // The comparison itself must be able to fail.
    Graph g = appendix_c();
    Graph h = appendix_c();
    h.params.back().fields[0] = int64_t{17};
    EXPECT_FALSE(engine::compare_graphs(g, h, {}).empty());
}

}  // namespace
}  // namespace mgedump

namespace mgedump {
namespace {

TEST(RoundTripFidelity, KeepsParamsExactlyAsTheFileHasThem) {
    // The builder fills Dimshuffle.ndim = 0 from the input rank; a loader must not.
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", ir::DType::of(ir::DTypeEnum::Float32), {2, 3});
    b.output(b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{1, 0}}}), "t");
    ir::Graph g = b.finish();
    ir::ParamValue& p = g.params.back();
    const int ndim = ir::find_field(ir::param_table(p.table), "ndim");
    ASSERT_GE(ndim, 0);
    p.fields[ndim] = int64_t{0};
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        engine::DumpOptions o;
        o.dump_format = format;
        formats::LoadedModel m = test::load_bytes(test::owned_bytes(engine::dump_graph(g, o).bytes.to_bytes()));
        EXPECT_EQ(m.graph.params.back(), p);
    }
}

}  // namespace
}  // namespace mgedump

namespace mgedump {
namespace {

TEST(RoundTripFidelity, CheckNonFiniteIn814FilesReadsBackWithVolatileValuesAndADefaultParam) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", ir::DType::of(ir::DTypeEnum::Float32), {4});
    ir::VarId y = b.input("y", ir::DType::of(ir::DTypeEnum::Float32), {4});
    ir::OpOptions o3;
    o3.outputs = 3;
    ir::VarId first = b.op("CheckNonFinite", {x, y}, {{"scale", 2.0f}}, o3);
    b.output(ir::VarId(first.value + 2), "flag");
    ir::Graph g = b.finish();
    // dump_graph refuses CheckNonFinite in FBS (MegEngine cannot load it back), but
    // MegEngine's dumper writes such files: written here as it does, with the §9.1
    // rewrite (first N outputs volatile) and the 8.14 header and param.
    ir::Graph rewritten = g;
    engine::apply_compat_rewrites(rewritten, engine::DumpFormat::FBS);
    formats::WritePlan plan{.graph = rewritten};
    plan.order = ir::dump_order(rewritten);
    plan.numbering = ir::number_vars(rewritten, plan.order);
    plan.compat_8_14 = true;
    formats::WriteStats stats;
    formats::LoadedModel m = test::load_bytes(test::owned_bytes(formats::write_fbs_v1(plan, stats).to_bytes()));
    ASSERT_EQ(m.format, formats::ModelFormat::FbsMGBS);
    const ir::Graph& h = m.graph;
    const ir::OprId op(2);
    ASSERT_EQ(ir::op_def(h.oprs.type[op.value]).name, "CheckNonFinite");
    const ir::Range outs = h.oprs.outputs[op.value];
    ASSERT_EQ(outs.count, 3u);
    EXPECT_TRUE(h.vars.flags[outs.begin] & ir::kVarVolatile);
    EXPECT_TRUE(h.vars.flags[outs.begin + 1] & ir::kVarVolatile);
    EXPECT_FALSE(h.vars.flags[outs.begin + 2] & ir::kVarVolatile);
    ASSERT_EQ(h.params_of(op).size(), 1u);
    EXPECT_EQ(h.params_of(op)[0], ir::default_param(ir::find_param_table("CheckNonFinite")));
    EXPECT_EQ(h.outputs, std::vector<ir::VarId>{ir::VarId(outs.begin + 2)});
}

}  // namespace
}  // namespace mgedump
