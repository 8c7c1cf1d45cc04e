// The test-case file's layout, checked against what MegEngine writes and reads
// (spec §11.4; imperative/python/megengine/jit/tracing.py `_make_feed` and `dump`;
// lite/load_and_run/src/models/model_mdl.cpp and options/strategy_options.cpp):
// "mgbtest0", a little-endian uint32 count, the model, then one graph per test
// case whose outputs are SharedDeviceTensors on cpux, one per model input in
// sorted name order; the asserted model as AssertEqual::make builds it.
#include "formats/testcase_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "engine/dump.h"
#include "engine/eval/evaluator.h"
#include "engine/testcase/testcase_check.h"
#include "engine/testcase/testcase_dump.h"
#include "ir/error.h"
#include "ir/op_registry.h"
#include "ir/xxh3_dispatch.h"
#include "testcase_test_util.h"

namespace mgedump {
namespace {

using engine::testcase::make_testcases;
using engine::testcase::TestcaseOptions;
using test::dump_testcases;
using test::two_output_model;

TestcaseOptions two_random_cases() {
    TestcaseOptions o;
    o.input_data = {"#rand(0,1)", "zeta:#rand(-1,1);alpha:#rand(2,3)"};
    return o;
}

std::string op_name(const ir::Graph& g, ir::VarId v) {
    return std::string(ir::op_def(g.oprs.type[g.vars.owner[v.value].value]).name);
}
ir::VarId input_of(const ir::Graph& g, ir::VarId v, size_t i) {
    return g.inputs_of(g.vars.owner[v.value])[i];
}
std::string mode_of(const ir::Graph& g, ir::VarId v) {
    const ir::ParamValue& p = g.params_of(g.vars.owner[v.value])[0];
    const ir::ParamTableDesc& t = ir::param_table(p.table);
    const auto value = std::get<int64_t>(p.fields[ir::find_field(t, "mode")]);
    return std::string(
        ir::find_enum_member(*t.fields[ir::find_field(t, "mode")].enum_type, static_cast<uint32_t>(value))
            ->name);
}
double float_param(const ir::Graph& g, ir::VarId v, std::string_view field) {
    const ir::ParamValue& p = g.params_of(g.vars.owner[v.value])[0];
    const auto& f = p.fields[ir::find_field(ir::param_table(p.table), field)];
    if (const auto* d = std::get_if<double>(&f)) return *d;
    return static_cast<double>(std::get<int64_t>(f));
}
std::string var_name(const ir::Graph& g, ir::VarId v) { return std::string(g.str(g.vars.name[v.value])); }

TEST(TestcaseFile, StartsWithTheMagicAndALittleEndianCountThenTheModel) {
    const auto t = make_testcases(two_output_model(), two_random_cases());
    const auto file = dump_testcases(t);
    const std::vector<std::byte>& b = *file.bytes;
    ASSERT_GT(b.size(), 12u);
    // tracing.py: file.write(b"mgbtest0"); file.write(struct.pack("I", len(testcases))).
    EXPECT_EQ(std::memcmp(b.data(), "mgbtest0", 8), 0);
    EXPECT_EQ(std::to_integer<int>(b[8]), 2);
    EXPECT_EQ(std::to_integer<int>(b[9]) | std::to_integer<int>(b[10]) | std::to_integer<int>(b[11]), 0);
    // model_mdl.cpp reads the count, then identify_graph_dump_format on what follows.
    EXPECT_EQ(formats::detect_format(ir::Bytes(b).subspan(12)), formats::ModelFormat::FbsV2);
    EXPECT_EQ(formats::testcase_count(b), 2u);
    EXPECT_EQ(file.dumped.file_bytes, b.size());
}

TEST(TestcaseFile, HeaderBytesAreTheMagicAndTheCount) {
    const auto h = formats::testcase_header(0x01020304);
    const unsigned char expected[12] = {'m', 'g', 'b', 't', 'e', 's', 't', '0', 4, 3, 2, 1};
    EXPECT_EQ(std::memcmp(h.data(), expected, 12), 0);
    EXPECT_EQ(formats::testcase_count(h), 0x01020304u);
}

TEST(TestcaseFile, ReadsBackAsTheModelAndOneGraphPerTestCase) {
    const auto t = make_testcases(two_output_model(), two_random_cases());
    const auto file = dump_testcases(t);
    const formats::TestcaseFile f = file.read();
    ASSERT_EQ(f.cases.size(), 2u);
    EXPECT_EQ(f.model.bytes_consumed, 12 + file.dumped.model.tot_bytes);
    // read_model gives the model, read_models the model and every test case.
    EXPECT_EQ(formats::read_model(*file.bytes, file.bytes).graph.oprs.size(), f.model.graph.oprs.size());
    EXPECT_EQ(formats::read_models(*file.bytes, file.bytes).size(), 3u);
    EXPECT_EQ(f.model.graph.outputs.size(), 2u);
}

TEST(TestcaseFile, EachTestCaseHoldsOneSharedDeviceTensorOnCpuxPerSortedModelInput) {
    const auto t = make_testcases(two_output_model(), two_random_cases());
    const formats::TestcaseFile f = dump_testcases(t).read();
    // tracing.py: inputs = sorted((i.name, i.dtype) for i in get_dep_vars(dest_vars, "Host2DeviceCopy")).
    const std::vector<std::string> sorted = {"act:expect", "alpha", "out:expect", "zeta"};
    EXPECT_EQ(t.names, sorted);
    std::map<std::string, std::pair<ir::DType, ir::Shape>> model_inputs;
    for (const auto& in : engine::eval::graph_inputs(f.model.graph))
        model_inputs[in.name] = {in.dtype, in.shape};
    ASSERT_EQ(model_inputs.size(), 4u);
    for (size_t k = 0; k < f.cases.size(); ++k) {
        const ir::Graph& c = f.cases[k].graph;
        ASSERT_EQ(c.outputs.size(), sorted.size());
        for (size_t i = 0; i < sorted.size(); ++i) {
            const ir::VarId v = c.outputs[i];
            const ir::OprId o = c.vars.owner[v.value];
            // strategy_options.cpp casts each output's operator to SharedDeviceTensor
            // (make_const of a DeviceTensorND is make_shared).
            EXPECT_EQ(op_name(c, v), "SharedDeviceTensor");
            const ir::TensorId tensor(c.oprs.tensors[o.value].begin);
            EXPECT_EQ(c.str(c.tensors.comp_node[tensor.value]), "cpux:0");
            EXPECT_EQ(c.tensors.method[tensor.value], ir::TensorMethod::ValueShared);
            // In the input's dtype and shape.
            EXPECT_EQ(c.tensors.dtype[tensor.value], model_inputs[sorted[i]].first) << sorted[i];
            EXPECT_EQ(ir::Shape::of(c.tensor_shape(tensor)), model_inputs[sorted[i]].second) << sorted[i];
            EXPECT_EQ(var_name(c, v), sorted[i]);
        }
    }
}

TEST(TestcaseFile, ModelGetsAnExpectInputAndAnAssertEqualPerOutput) {
    const auto t = make_testcases(two_output_model(), two_random_cases());
    const ir::Graph& m = dump_testcases(t).read().model.graph;
    ASSERT_EQ(m.outputs.size(), 2u);
    const char* names[] = {"out", "act"};
    for (size_t i = 0; i < 2; ++i) {
        const ir::VarId a = m.outputs[i];
        ASSERT_EQ(op_name(m, a), "AssertEqual");
        ASSERT_EQ(m.inputs_of(m.vars.owner[a.value]).size(), 3u);
        // AssertEqual(expect, real): expect is make_h2d(graph, "xpux", v.dtype, v.shape, "<v>:expect").
        const ir::VarId expect = input_of(m, a, 0), get = input_of(m, a, 1);
        EXPECT_EQ(op_name(m, expect), "Host2DeviceCopy");
        const ir::TensorId et(m.oprs.tensors[m.vars.owner[expect.value].value].begin);
        EXPECT_EQ(m.str(m.tensors.name[et.value]), std::string(names[i]) + ":expect");
        EXPECT_EQ(m.tensors.method[et.value], ir::TensorMethod::MetaInput);
        EXPECT_EQ(m.str(m.tensors.comp_node[et.value]), "xpux:0");
        EXPECT_EQ(m.tensors.dtype[et.value], m.vars.dtype[get.value]);
        EXPECT_EQ(ir::Shape::of(m.tensor_shape(et)), ir::Shape::of(m.var_shape(get)));
        EXPECT_EQ(var_name(m, get), names[i]);
        // verbose = not silent (silent defaults to False); maxerr defaults to 1e-4.
        EXPECT_EQ(float_param(m, a, "verbose"), 1.0);
        EXPECT_FLOAT_EQ(static_cast<float>(float_param(m, a, "maxerr")), 1e-4f);
        EXPECT_EQ(var_name(m, a), fmt::format("assert_eq({}:expect,{})", names[i], names[i]));
    }
}

TEST(TestcaseFile, ErrInputIsWhatAssertEqualMakeBuildsFromTwoInputs) {
    // utility.cpp: reduce_max(abs(expect - get) / max(min(abs(expect), abs(get)), 1), make_scalar(1)).
    const auto t = make_testcases(two_output_model(), two_random_cases());
    const ir::Graph& m = dump_testcases(t).read().model.graph;
    const ir::VarId a = m.outputs[0];
    const ir::VarId expect = input_of(m, a, 0), get = input_of(m, a, 1), err = input_of(m, a, 2);
    ASSERT_EQ(op_name(m, err), "Reduce");
    EXPECT_EQ(mode_of(m, err), "MAX_");  // the schema's spelling of Reduce's MAX
    const ir::VarId target = input_of(m, err, 1);
    EXPECT_EQ(op_name(m, target), "ImmutableTensor");
    EXPECT_EQ(m.vars.dtype[target.value].type, ir::DTypeEnum::Int32);
    const ir::VarId ratio = input_of(m, err, 0);
    EXPECT_EQ(mode_of(m, ratio), "TRUE_DIV");
    const ir::VarId diff = input_of(m, ratio, 0), denom = input_of(m, ratio, 1);
    EXPECT_EQ(mode_of(m, diff), "ABS");
    const ir::VarId sub = input_of(m, diff, 0);
    EXPECT_EQ(mode_of(m, sub), "SUB");
    EXPECT_EQ(input_of(m, sub, 0), expect);
    EXPECT_EQ(input_of(m, sub, 1), get);
    EXPECT_EQ(mode_of(m, denom), "MAX_");
    const ir::VarId smaller = input_of(m, denom, 0), one = input_of(m, denom, 1);
    EXPECT_EQ(mode_of(m, smaller), "MIN_");
    EXPECT_EQ(input_of(m, input_of(m, smaller, 0), 0), expect);
    EXPECT_EQ(input_of(m, input_of(m, smaller, 1), 0), get);
    EXPECT_EQ(op_name(m, one), "ImmutableTensor");
    EXPECT_EQ(m.vars.dtype[one.value], m.vars.dtype[expect.value]);  // make_scalar_dt(1): expect's dtype
    EXPECT_EQ(ir::Shape::of(m.var_shape(err)), ir::Shape::of({1}));
}

TEST(TestcaseFile, SilentAndMaxerrReachTheAssertEqualParams) {
    TestcaseOptions o = two_random_cases();
    o.silent = true;
    o.maxerr = 0.25;
    const ir::Graph& m = dump_testcases(make_testcases(two_output_model(), o)).read().model.graph;
    EXPECT_EQ(float_param(m, m.outputs[1], "verbose"), 0.0);
    EXPECT_FLOAT_EQ(static_cast<float>(float_param(m, m.outputs[1], "maxerr")), 0.25f);
}

TEST(TestcaseFile, NoAssertKeepsTheModelAndHoldsOnlyItsInputs) {
    TestcaseOptions o = two_random_cases();
    o.no_assert = true;
    const auto t = make_testcases(two_output_model(), o);
    EXPECT_EQ(t.names, (std::vector<std::string>{"alpha", "zeta"}));
    const formats::TestcaseFile f = dump_testcases(t).read();
    EXPECT_EQ(f.model.graph.oprs.size(), two_output_model().oprs.size());
    EXPECT_EQ(var_name(f.model.graph, f.model.graph.outputs[0]), "out");
    EXPECT_EQ(f.cases[0].graph.outputs.size(), 2u);
}

TEST(TestcaseFile, DumpOptionsApplyToTheModelAndTestCasesStayFbsV2) {
    engine::DumpOptions options;
    options.dump_format = engine::DumpFormat::FBS;
    const auto file = dump_testcases(make_testcases(two_output_model(), two_random_cases()), options);
    const formats::TestcaseFile f = file.read();
    EXPECT_EQ(f.model.format, formats::ModelFormat::FbsMGBC);
    // tracing.py dumps the test cases with G.dump_graph's defaults.
    EXPECT_EQ(f.cases[0].format, formats::ModelFormat::FbsV2);
    EXPECT_EQ(f.cases[1].format, formats::ModelFormat::FbsV2);
    // FBS keeps only the outputs' var names; the check names outputs after their expect inputs.
    const engine::testcase::TestcaseReport r = engine::testcase::check_testcases(f);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.cases[0].outputs[0].name, "out");
    EXPECT_EQ(r.cases[0].outputs[1].name, "act");
}

TEST(TestcaseFile, DigestIsOfTheWholeFile) {
    const auto file = dump_testcases(make_testcases(two_output_model(), two_random_cases()));
    ir::Xxh3State h;
    h.update(file.bytes->data(), file.bytes->size());
    EXPECT_EQ(file.dumped.model.xxh3_128, ir::xxh3_128_hex(h.digest()));
}

TEST(TestcaseFile, ACountThatDisagreesWithTheGraphsIsAFormatError) {
    const auto file = dump_testcases(make_testcases(two_output_model(), two_random_cases()));
    for (uint8_t count : {1, 3}) {
        auto patched = std::make_shared<std::vector<std::byte>>(*file.bytes);
        (*patched)[8] = std::byte{count};
        try {
            formats::read_testcase_file(*patched, patched);
            ADD_FAILURE() << "count " << int(count) << " read";
        } catch (const FormatError& e) {
            EXPECT_NE(
                std::string(e.what()).find(fmt::format("header counts {} test case(s), 2 graph(s)", count)),
                std::string::npos)
                << e.what();
        }
    }
}

TEST(TestcaseFile, ATruncatedHeaderIsAFormatErrorNamingTheWrapper) {
    auto bytes = std::make_shared<std::vector<std::byte>>(10);
    std::memcpy(bytes->data(), "mgbtest0\x01\x00", 10);
    try {
        formats::read_model(*bytes, bytes);
        ADD_FAILURE() << "read";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("test-case file"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(formats::testcase_count(*bytes));
}

TEST(TestcaseFile, APlainModelIsNotATestCaseFile) {
    engine::Dumped d = engine::dump_graph(two_output_model(), {});
    const auto bytes = std::make_shared<std::vector<std::byte>>(d.bytes.to_bytes());
    EXPECT_FALSE(formats::testcase_count(*bytes));
    EXPECT_THROW(formats::read_testcase_file(*bytes, bytes), FormatError);
}

TEST(TestcaseFile, DumpGraphRefusesOptionsWithTestCases) {
    EXPECT_THROW(engine::dump_graph(two_output_model(), test::with_testcases({"#rand(0,1)"})), OptionError);
}

// A graph whose output is Int32: its err would need TRUE_DIV of integers.
ir::Graph int_output_model() {
    ir::GraphBuilder b;
    const ir::VarId x = b.input("x", ir::DType::of(ir::DTypeEnum::Int32), {2});
    b.output(b.op("Elemwise", {x, x}, {{"mode", "ADD"}}), "y");
    return b.finish();
}

TEST(TestcaseFile, NonFloatOutputsAreRefusedUnlessNoAssert) {
    TestcaseOptions o;
    o.input_data = {"#rand(0,10)"};
    try {
        make_testcases(int_output_model(), o);
        ADD_FAILURE() << "asserted an Int32 output";
    } catch (const OptionError& e) {
        EXPECT_NE(std::string(e.what()).find("output 'y' is Int32"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("no_assert"), std::string::npos) << e.what();
    }
    o.no_assert = true;
    EXPECT_EQ(make_testcases(int_output_model(), o).values.size(), 1u);
}

TEST(TestcaseFile, AnOutputListedTwiceIsRefused) {
    ir::Graph g = two_output_model();
    g.outputs.push_back(g.outputs[0]);
    TestcaseOptions o;
    o.input_data = {"#rand(0,1)"};
    EXPECT_THROW(make_testcases(g, o), OptionError);
}

}  // namespace
}  // namespace mgedump
