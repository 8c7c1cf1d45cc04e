// One test (at least) per dump_graph option, each proving the option's effect on
// the bytes (read back by slot, spec §3.2/§3.3) or on the dump result.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/dump.h"
#include "formats/write_plan.h"
#include "ir/order.h"
#include "fb_peek.h"
#include "formats/op_ids.h"
#include "ir/builder.h"
#include "ir/error.h"

namespace mgedump {
namespace {

using engine::DumpFormat;
using engine::DumpOptions;
using ir::DType;
using ir::DTypeEnum;
using ir::VarId;
using namespace test;

const DType kF32 = DType::of(DTypeEnum::Float32);

ir::OpOptions opr(const char* name, int priority = 0) {
    ir::OpOptions o;
    o.name = name;
    o.priority = priority;
    return o;
}

std::vector<std::byte> floats(std::initializer_list<float> v) {
    std::vector<std::byte> b(v.size() * 4);
    std::memcpy(b.data(), std::data(v), b.size());
    return b;
}

// x ─┬─ MUL(w) ── RELU ── "out"
//    └─ EXP ───────────── "aux"
ir::Graph sample_graph() {
    ir::GraphBuilder b;
    VarId x = b.input("x", kF32, {1, 4});
    VarId w = b.param("w", kF32, {4}, floats({1, 2, 3, 4}));
    VarId m = b.op("Elemwise", {x, w}, {{"mode", "MUL"}}, opr("mul", 3));
    VarId r = b.op("Elemwise", {m}, {{"mode", "RELU"}}, opr("relu", 5));
    VarId e = b.op("Elemwise", {x}, {{"mode", "EXP"}}, opr("exp"));
    b.output(r, "out");
    b.output(e, "aux");
    return b.finish();
}

DumpOptions fbs() {
    DumpOptions o;
    o.dump_format = DumpFormat::FBS;
    return o;
}

engine::Dumped dump(const ir::Graph& g, const DumpOptions& o) { return engine::dump_graph(g, o); }

const Table* root_of(const std::vector<std::byte>& bytes, const DumpOptions& o) {
    return o.dump_format == DumpFormat::FBS ? v1_root(bytes) : v2_root(bytes);
}

// Dump order of sample_graph: x, w, mul, relu, exp.
enum { kX, kW, kMul, kRelu, kExp };

TEST(DumpOptions, KeepVarName0WritesNoNamesAndReportsUnnamedOutputs) {
    for (DumpOptions o : {fbs(), DumpOptions{}}) {
        o.keep_var_name = 0;
        auto d = dump(sample_graph(), o);
        auto bytes = d.bytes.to_bytes();
        const Table* root = root_of(bytes, o);
        if (o.dump_format == DumpFormat::FBS) {
            for (auto* op : *tables(root, v1::oprs)) EXPECT_FALSE(has(op, v1::output_name));
        } else {
            EXPECT_FALSE(has(root, v2::middle_tensors));
        }
        EXPECT_EQ(d.result.outputs, (std::vector<std::string>{"unnamed0", "unnamed1"}));
    }
}

TEST(DumpOptions, KeepVarName1NamesOnlyOperatorsProducingOutputsInV1) {
    auto d = dump(sample_graph(), fbs());
    auto bytes = d.bytes.to_bytes();
    auto* ops = tables(v1_root(bytes), v1::oprs);
    ASSERT_EQ(ops->size(), 5u);
    EXPECT_FALSE(has(ops->Get(kX), v1::output_name));
    EXPECT_FALSE(has(ops->Get(kMul), v1::output_name));
    auto* names = ops->Get(kRelu)->GetPointer<const Vec<flatbuffers::Offset<flatbuffers::String>>*>(slot(v1::output_name));
    ASSERT_NE(names, nullptr);
    EXPECT_EQ(names->Get(0)->str(), "out");
    EXPECT_EQ(d.result.outputs, (std::vector<std::string>{"out", "aux"}));
}

TEST(DumpOptions, KeepVarName2NamesEveryOperatorInV1) {
    DumpOptions o = fbs();
    o.keep_var_name = 2;
    auto bytes = dump(sample_graph(), o).bytes.to_bytes();
    for (auto* op : *tables(v1_root(bytes), v1::oprs)) EXPECT_TRUE(has(op, v1::output_name));
}

TEST(DumpOptions, KeepVarName1And2AreTheSameInFbsV2) {
    DumpOptions one, two;
    two.keep_var_name = 2;
    auto a = dump(sample_graph(), one).bytes.to_bytes();
    auto b = dump(sample_graph(), two).bytes.to_bytes();
    EXPECT_EQ(a, b);
    auto* middle = tables(v2_root(a), v2::middle_tensors);
    ASSERT_NE(middle, nullptr);
    ASSERT_EQ(middle->size(), 5u);
    EXPECT_EQ(str(middle->Get(0), 0), "x");
    EXPECT_EQ(str(middle->Get(3), 0), "out");
    EXPECT_EQ(str(middle->Get(4), 0), "aux");
}

TEST(DumpOptions, KeepOprNameWritesOperatorNames) {
    for (DumpOptions o : {fbs(), DumpOptions{}}) {
        int name_slot = o.dump_format == DumpFormat::FBS ? int(v1::name) : int(v2::name);
        int oprs_slot = o.dump_format == DumpFormat::FBS ? int(v1::oprs) : int(v2::oprs);
        auto without = dump(sample_graph(), o).bytes.to_bytes();
        EXPECT_FALSE(has(tables(root_of(without, o), oprs_slot)->Get(kMul), name_slot));
        o.keep_opr_name = true;
        auto with = dump(sample_graph(), o).bytes.to_bytes();
        EXPECT_EQ(str(tables(root_of(with, o), oprs_slot)->Get(kMul), name_slot), "mul");
    }
}

TEST(DumpOptions, KeepParamNameKeepsSharedTensorNamesAndReportsThem) {
    for (DumpOptions o : {fbs(), DumpOptions{}}) {
        bool v1 = o.dump_format == DumpFormat::FBS;
        auto tensor_of_w = [&](const std::vector<std::byte>& bytes) {
            auto* op = tables(root_of(bytes, o), v1 ? int(v1::oprs) : int(v2::oprs))->Get(kW);
            return tables(op, v1 ? int(v1::tensors) : int(v2::tensors))->Get(0);
        };
        auto d = dump(sample_graph(), o);
        EXPECT_EQ(str(tensor_of_w(d.bytes.to_bytes()), 0), "<absent>");
        EXPECT_TRUE(d.result.params.empty());
        o.keep_param_name = true;
        d = dump(sample_graph(), o);
        EXPECT_EQ(str(tensor_of_w(d.bytes.to_bytes()), 0), "w");
        EXPECT_EQ(d.result.params, std::vector<std::string>{"w"});
        // nr_shared_tensor counts VALUE_SHARED tensors either way.
        auto bytes = d.bytes.to_bytes();
        EXPECT_EQ(root_of(bytes, o)->GetField<uint32_t>(slot(v1 ? int(v1::nr_shared_tensor) : int(v2::nr_shared_tensor)), 0),
                  1u);
    }
}

TEST(DumpOptions, KeepOprPriorityWritesPriorities) {
    for (DumpOptions o : {fbs(), DumpOptions{}}) {
        bool v1 = o.dump_format == DumpFormat::FBS;
        int prio = v1 ? int(v1::priority) : int(v2::priority);
        int oprs = v1 ? int(v1::oprs) : int(v2::oprs);
        auto without = dump(sample_graph(), o).bytes.to_bytes();
        EXPECT_FALSE(has(tables(root_of(without, o), oprs)->Get(kRelu), prio));
        o.keep_opr_priority = true;
        auto with = dump(sample_graph(), o).bytes.to_bytes();
        EXPECT_EQ(tables(root_of(with, o), oprs)->Get(kRelu)->GetField<int32_t>(slot(prio), 0), 5);
        EXPECT_EQ(tables(root_of(with, o), oprs)->Get(kMul)->GetField<int32_t>(slot(prio), 0), 3);
    }
}

ir::Graph sqrt_graph() {
    ir::GraphBuilder b;
    VarId x = b.input("x", kF32, {4});
    b.output(b.op("Elemwise", {x}, {{"mode", "SQRT"}}), "y");
    return b.finish();
}

TEST(DumpOptions, NoChangeGraphKeepsOperatorsThatWouldBeRewritten) {
    for (DumpOptions o : {fbs(), DumpOptions{}}) {
        auto rewritten = dump(sqrt_graph(), o);
        o.no_change_graph = true;
        auto kept = dump(sqrt_graph(), o);
        EXPECT_EQ(kept.result.nr_opr, 2u);      // x, SQRT
        EXPECT_EQ(rewritten.result.nr_opr, 3u); // x, const 0.5, POW
        EXPECT_EQ(rewritten.result.outputs, std::vector<std::string>{"y"});
    }
}

TEST(DumpOptions, MetadataUsesEachFormatsSlots) {
    ir::Metadata m{.is_valid = true, .graph_modified = true, .user_info = std::string("ab\0c", 4),
                   .optimize_options = 64};
    DumpOptions o = fbs();
    o.metadata = m;
    auto b1 = dump(sample_graph(), o).bytes.to_bytes();
    const Table* meta1 = table(v1_root(b1), v1::metadata);
    EXPECT_EQ(meta1->GetField<uint8_t>(slot(v1::is_valid), 0), 1);
    EXPECT_EQ(meta1->GetField<uint8_t>(slot(v1::graph_modified), 0), 1);
    EXPECT_EQ(str(meta1, v1::user_info), std::string("ab\0c", 4));
    EXPECT_EQ(meta1->GetField<uint64_t>(slot(v1::optimize_options), 0), 64u);

    DumpOptions o2;
    o2.metadata = m;
    auto b2 = dump(sample_graph(), o2).bytes.to_bytes();
    const Table* meta2 = table(v2_root(b2), v2::metadata);
    EXPECT_EQ(str(meta2, v2::user_info), std::string("ab\0c", 4));
    EXPECT_EQ(meta2->GetField<uint64_t>(slot(v2::optimize_options), 0), 64u);
}

TEST(DumpOptions, DefaultMetadataIsPresentWithAnEmptyUserInfo) {
    auto b = dump(sample_graph(), fbs()).bytes.to_bytes();
    const Table* meta = table(v1_root(b), v1::metadata);
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(str(meta, v1::user_info), "");
    EXPECT_FALSE(has(meta, v1::is_valid));
}

ir::Graph conv_graph() {
    ir::GraphBuilder b;
    VarId x = b.input("x", kF32, {1, 1, 4, 4});
    VarId w = b.constant<float>({1, 1, 1, 1}, {2.0f});
    b.output(b.op("Convolution", {x, w}), "y");
    return b.finish();
}

TEST(DumpOptions, ModelVersionSelectsTheRegistryEntryInFbsV2) {
    DumpOptions o;
    auto v2bytes = dump(conv_graph(), o).bytes.to_bytes();
    auto* conv = tables(v2_root(v2bytes), v2::oprs)->Get(2);
    EXPECT_EQ(str(conv, v2::type), "Convolution");
    EXPECT_EQ(conv->GetField<uint32_t>(slot(v2::opr_version), 0), 2u);
    EXPECT_EQ(conv->GetField<uint64_t>(slot(v2::type_id), 0), 13553933750987029374ULL);  // spec §4.3
    EXPECT_EQ(v2_root(v2bytes)->GetField<uint32_t>(slot(v2::model_version), 0), 2u);

    // A convolution in model_version 1 is a file MegEngine cannot load back
    // (GraphLoaderOSSV2 get_next_param: one param per operator in version 1).
    o.model_version = 1;
    try {
        dump(conv_graph(), o);
        ADD_FAILURE() << "a Convolution in FBS_V2 model_version 1 was dumped";
    } catch (const OptionError& e) {
        EXPECT_NE(std::string(e.what()).find("read_param(index)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("model_version 2"), std::string::npos) << e.what();
    }
    // Softmax has both registrations (spec §4.3): version 2 by default, version 1 in model_version 1.
    ir::GraphBuilder b;
    b.output(b.op("Softmax", {b.input("x", ir::DType::of(ir::DTypeEnum::Float32), {2, 3})}, {{"axis", 1}}), "y");
    ir::Graph g = b.finish();
    for (uint32_t version : {2u, 1u}) {
        o.model_version = version;
        auto bytes = dump(g, o).bytes.to_bytes();
        auto* softmax = tables(v2_root(bytes), v2::oprs)->Get(1);
        EXPECT_EQ(str(softmax, v2::type), "Softmax");
        EXPECT_EQ(softmax->GetField<uint32_t>(slot(v2::opr_version), 0), version);
        EXPECT_EQ(v2_root(bytes)->GetField<uint32_t>(slot(v2::model_version), 0), version);
    }
}

TEST(DumpOptions, DumpFormatChoosesTheFileLayout) {
    auto v2bytes = dump(sample_graph(), DumpOptions{}).bytes.to_bytes();
    EXPECT_EQ(std::memcmp(v2bytes.data() + 8, "mgv2", 4), 0);
    auto v1bytes = dump(sample_graph(), fbs()).bytes.to_bytes();
    EXPECT_EQ(std::memcmp(v1bytes.data(), "MGBC", 4), 0);
}

TEST(DumpOptions, Compat814WritesMGBSHeaderAndUnversionedIds) {
    DumpOptions o = fbs();
    o.compat_older_version = " 8.14 ";  // MegEngine strips whitespace
    auto d = dump(conv_graph(), o);
    auto bytes = d.bytes.to_bytes();
    EXPECT_EQ(std::memcmp(bytes.data(), "MGBS", 4), 0);
    uint64_t offset_to_fbs;
    std::memcpy(&offset_to_fbs, bytes.data() + 8, 8);  // 16-byte header: magic, 4 zero bytes, offset
    EXPECT_EQ(offset_to_fbs, 4u);                      // the one float of the filter
    auto* ops = tables(v1_root(bytes), v1::oprs);
    EXPECT_EQ(ops->Get(0)->GetField<uint64_t>(slot(v1::type_id), 0), 11501548436123901713ULL);  // U(H2D), §4.3
    EXPECT_EQ(ops->Get(2)->GetField<uint64_t>(slot(v1::type_id), 0), 1005859804226725325ULL);   // U(Convolution)
    EXPECT_EQ(d.result.tot_bytes, bytes.size());
}

TEST(DumpOptions, CheckNonFiniteInFbsIsRefusedButTheWriterKeepsMegEnginesEncoding) {
    ir::GraphBuilder b;
    VarId x = b.input("x", kF32, {4});
    ir::OpOptions two_outputs;
    two_outputs.outputs = 2;
    ir::OprId cnf = b.add_op(ir::find_op("CheckNonFinite"), std::vector<VarId>{x},
                             ir::make_params(ir::op_def(ir::find_op("CheckNonFinite")), {}, "cnf"), two_outputs);
    b.output(b.graph().output_var(cnf, 1), "flag");
    ir::Graph g = b.finish();
    // MegEngine's FBS loader numbers every loaded output and reads past the one
    // name the file has (serializer_oss.cpp:820): no FBS file with it is written.
    DumpOptions o = fbs();
    for (bool compat : {false, true}) {
        if (compat) o.compat_older_version = "8.14";
        try {
            dump(g, o);
            ADD_FAILURE() << "CheckNonFinite was dumped as FBS";
        } catch (const OptionError& e) {
            EXPECT_NE(std::string(e.what()).find("CheckNonFinite"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("FBS_V2"), std::string::npos) << e.what();
        }
    }
    // The v1 writer itself still encodes it as MegEngine's dumper does (spec
    // §9.3): an Empty param for 8.14, the CheckNonFinite table otherwise.
    auto written_param_type = [&](bool compat_8_14) {
        formats::WritePlan plan{.graph = g};
        plan.order = ir::dump_order(g);
        plan.numbering = ir::number_vars(g, plan.order);
        plan.compat_8_14 = compat_8_14;
        formats::WriteStats stats;
        auto bytes = formats::write_fbs_v1(plan, stats).to_bytes();
        return tables(v1_root(bytes), v1::oprs)->Get(1)->GetField<uint8_t>(slot(v1::param_type), 0);
    };
    EXPECT_EQ(written_param_type(true), 1);    // Empty
    EXPECT_EQ(written_param_type(false), 84);  // CheckNonFinite
}

TEST(DumpOptions, ImpossibleCompatCombinationsAreRejectedWithTheReason) {
    auto reason = [](DumpOptions o) -> std::string {
        try {
            engine::dump_graph(sample_graph(), o);
        } catch (const OptionError& e) {
            return e.what();
        }
        return "(accepted)";
    };
    DumpOptions v2_814;
    v2_814.compat_older_version = "8.14";
    EXPECT_NE(reason(v2_814).find("FBS"), std::string::npos);
    DumpOptions nochange = fbs();
    nochange.compat_older_version = "8.14";
    nochange.no_change_graph = true;
    EXPECT_NE(reason(nochange).find("no_change_graph"), std::string::npos);
    DumpOptions other = fbs();
    other.compat_older_version = "8.15";
    EXPECT_NE(reason(other).find("8.15"), std::string::npos);
    DumpOptions bad_level;
    bad_level.keep_var_name = 3;
    EXPECT_NE(reason(bad_level).find("keep_var_name"), std::string::npos);
    DumpOptions bad_version;
    bad_version.model_version = 3;
    EXPECT_NE(reason(bad_version).find("model_version"), std::string::npos);
}

TEST(DumpOptions, MgbVersionIs101304UnlessSet) {
    auto b = dump(sample_graph(), fbs()).bytes.to_bytes();
    EXPECT_EQ(v1_root(b)->GetField<uint32_t>(slot(v1::mgb_version), 0), 101304u);
    DumpOptions o;
    o.mgb_version = 1099900;
    auto b2 = dump(sample_graph(), o).bytes.to_bytes();
    EXPECT_EQ(v2_root(b2)->GetField<uint32_t>(slot(v2::mge_version), 0), 1099900u);
}

TEST(DumpResult, ReportsCountsSizesSortedInputsAndDigest) {
    ir::GraphBuilder b;
    VarId z = b.input("zeta", kF32, {2});
    VarId a = b.input("alpha", kF32, {2});
    b.output(b.op("Elemwise", {z, a}, {{"mode", "ADD"}}), "s");
    ir::Graph g = b.finish();
    auto d = dump(g, fbs());
    EXPECT_EQ(d.result.inputs, (std::vector<std::string>{"alpha", "zeta"}));
    EXPECT_EQ(d.result.nr_opr, 3u);
    EXPECT_EQ(d.result.tot_bytes, d.bytes.to_bytes().size());
    EXPECT_EQ(d.result.tensor_value_bytes, 0u);
    EXPECT_NE(d.result.content_hash, 0u);
    EXPECT_EQ(d.result.xxh3_128.size(), 32u);
    auto again = dump(g, fbs());
    EXPECT_EQ(again.result.xxh3_128, d.result.xxh3_128);
    EXPECT_EQ(dump(g, DumpOptions{}).result.content_hash, 0u);  // FBS_V2 computes none
}

TEST(DumpOutputs, DictFormRenamesVarsInTheGivenOrder) {
    ir::Graph g = sample_graph();
    VarId relu = g.outputs[0], exp = g.outputs[1];
    auto d = engine::dump_graph(g, {{"second", exp}, {"first", relu}}, DumpOptions{});
    EXPECT_EQ(d.result.outputs, (std::vector<std::string>{"second", "first"}));
}

TEST(DumpOutputs, DictFormRejectsTwoNamesForOneVar) {
    ir::Graph g = sample_graph();
    VarId relu = g.outputs[0];
    EXPECT_THROW(engine::dump_graph(g, {{"a", relu}, {"b", relu}}, DumpOptions{}), GraphError);
}

TEST(DumpOutputs, DuplicateOutputNamesAreAnErrorOnlyWhenNamesAreKept) {
    ir::Graph g = sample_graph();
    g.vars.name[g.outputs[1].value] = g.vars.name[g.outputs[0].value];
    EXPECT_THROW(dump(g, DumpOptions{}), GraphError);
    DumpOptions o;
    o.keep_var_name = 0;
    EXPECT_NO_THROW(dump(g, o));
}

TEST(DumpWarnings, NonFiniteFloat32ValuesAreReportedButStillDumped) {
    ir::GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId c = b.constant<float>({2}, {1.0f, std::numeric_limits<float>::infinity()});
    b.output(b.op("Elemwise", {x, c}, {{"mode", "ADD"}}), "y");
    auto d = dump(b.finish(), DumpOptions{});
    ASSERT_EQ(d.result.warnings.size(), 1u);
    EXPECT_NE(d.result.warnings[0].find("non-finite"), std::string::npos);
}

}  // namespace
}  // namespace mgedump
