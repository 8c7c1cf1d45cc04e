// The shortcuts inference takes for speed (ir/infer/context.*, rules_elemwise.cpp,
// values.cpp):
// each must give what the general path gives. The general paths are the ones the
// rule tests check against MegEngine's source; here they are the reference.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/infer/context.h"
#include "ir/infer/elemwise_util.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"
#include "ir/validate.h"
#include "tests/infer/infer_test_util.h"
#include "tests/infer/raw_op.h"

namespace mgedump::test {
namespace {

// Every pair of shapes of up to 3 dims drawn from {0, 1, 2, 3}: the Elemwise
// rule's two-input broadcast must agree with elemwise_shape of the pair, output
// shape or refusal alike.
TEST(InferFastPaths, TwoInputBroadcastAgreesWithTheGeneralWalk) {
    std::vector<std::vector<uint32_t>> shapes;
    for (uint32_t ndim = 1; ndim <= 3; ++ndim) {
        std::vector<uint32_t> s(ndim, 0);
        for (;;) {
            shapes.push_back(s);
            size_t i = 0;
            while (i < ndim && ++s[i] == 4) s[i++] = 0;
            if (i == ndim) break;
        }
    }
    size_t compared = 0, refused = 0;
    for (const auto& a : shapes)
        for (const auto& c : shapes) {
            const ir::Shape sa = ir::Shape::of(a), sc = ir::Shape::of(c);
            const std::vector<ir::Shape> pair{sa, sc};
            const std::optional<ir::Shape> expected = ir::elemwise::elemwise_shape(std::span<const ir::Shape>(pair));
            GraphBuilder b;
            const VarId x = b.input("x", F32, a), z = b.input("z", F32, c);
            if (!expected) {
                expect_refused([&] { b.op("Elemwise", {x, z}, {{"mode", "ADD"}}); }, "do not broadcast");
                ++refused;
                continue;
            }
            const VarId y = b.op("Elemwise", {x, z}, {{"mode", "ADD"}});
            ASSERT_EQ(shape_of(b, y), std::vector<uint32_t>(expected->dims().begin(), expected->dims().end()))
                << ir::shape_string(sa) << " + " << ir::shape_string(sc);
            ++compared;
        }
    // 84 shapes: both outcomes occur many times.
    EXPECT_GT(compared, 1000u);
    EXPECT_GT(refused, 1000u);
}

// Most Elemwise operators take a common case (one dtype, known shapes, no value
// to compute) before the general rule. Whatever the general rule refuses or
// computes must still reach it: each case below is decided by one of its
// checks, and the facts are MegEngine's (basic_arith.cpp, elemwise/opr_impl.cpp).
TEST(InferFastPaths, TheCommonElemwiseCaseLeavesRefusalsAndValuesToTheRule) {
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 3}), row = b.input("row", F32, {3});
    const VarId xi = b.input("xi", I32, {2, 3}), flag = b.input("flag", BOOL, {2, 3});
    const VarId q = b.input("q", qs8(0.5f), {2, 3});

    // Taken by the common case: one input, equal shapes, a broadcast.
    EXPECT_EQ(shape_of(b, b.op("Elemwise", {x}, {{"mode", "RELU"}})), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(shape_of(b, b.op("Elemwise", {x, x}, {{"mode", "MUL"}})), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(shape_of(b, b.op("Elemwise", {row, x}, {{"mode", "ADD"}})), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {flag, flag}, {{"mode", "AND"}})), BOOL);
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {xi}, {{"mode", "ABS"}})), I32);

    // A MarkNoBroadcastElemwise input of the output's shape is fine; broadcast, refused.
    const VarId marked_row = b.op("MarkNoBroadcastElemwise", {row});
    const VarId marked_x = b.op("MarkNoBroadcastElemwise", {x});
    EXPECT_EQ(shape_of(b, b.op("Elemwise", {marked_x, row}, {{"mode", "ADD"}})), (std::vector<uint32_t>{2, 3}));
    expect_refused([&] { b.op("Elemwise", {x, marked_row}, {{"mode", "ADD"}}); },
                   "comes from MarkNoBroadcastElemwise");

    // The refusals: arity, the modes only ElemwiseMultiType runs, dtype
    // categories, mixed dtypes, quantized modes, shapes that do not broadcast
    // (raw_op: without the dtype promotion the builder applies as MegEngine's
    // make does).
    expect_refused([&] { raw_op(b, "Elemwise", {x, x, x}, {{"mode", "ADD"}}); }, "takes 2 inputs, has 3");
    expect_refused([&] { raw_op(b, "Elemwise", {x}, {{"mode", "ADD"}}); }, "takes 2 inputs, has 1");
    expect_refused([&] { raw_op(b, "Elemwise", {x, x}, {{"mode", "NEQ"}}); }, "use ElemwiseMultiType");
    expect_refused([&] { raw_op(b, "Elemwise", {xi}, {{"mode", "SQRT"}}); }, "does not take int inputs");
    expect_refused([&] { raw_op(b, "Elemwise", {flag}, {{"mode", "RELU"}}); }, "does not take bool inputs (Bool)");
    expect_refused([&] { raw_op(b, "Elemwise", {x, xi}, {{"mode", "ADD"}}); }, "must share one dtype");
    expect_refused([&] { raw_op(b, "Elemwise", {q, q}, {{"mode", "MUL"}}); }, "does not take quantized inputs");
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {q, q}, {{"mode", "ADD"}})), qs8(0.5f));
    const VarId col = b.input("col", F32, {2});
    expect_refused([&] { raw_op(b, "Elemwise", {x, col}, {{"mode", "ADD"}}); }, "do not broadcast");

    // Values: two constants give the sum; a constant and an input give none.
    const VarId two = b.constant<int32_t>({2}, {1, 2}), ten = b.constant<int32_t>({2}, {10, 20});
    const VarId sum = b.op("Elemwise", {two, ten}, {{"mode", "ADD"}});
    EXPECT_EQ(value_of(b, sum), (std::vector<double>{11, 22}));
    const VarId pair = b.input("pair", I32, {2});
    const VarId unknown = b.op("Elemwise", {two, pair}, {{"mode", "ADD"}});
    EXPECT_FALSE(has_value(b, unknown));
    EXPECT_EQ(shape_of(b, unknown), (std::vector<uint32_t>{2}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {b.op("Elemwise", {two}, {{"mode", "NEGATE"}})}, {{"mode", "ABS"}})),
              (std::vector<double>{1, 2}));
}

// Field lookups are cached by (param table, name literal): the same literal read
// from operators of different param tables gives each its own field.
TEST(InferFastPaths, OneFieldNameReadFromTwoParamTables) {
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 3, 4});
    for (int round = 0; round < 3; ++round) {
        // Elemwise.mode and Reduce.mode are both "mode", in different tables.
        const VarId r = b.op("Elemwise", {x}, {{"mode", "RELU"}});
        EXPECT_EQ(shape_of(b, r), (std::vector<uint32_t>{2, 3, 4}));
        const VarId m = b.op("Reduce", {r}, {{"mode", "MAX"}, {"axis", 2}});
        EXPECT_EQ(shape_of(b, m), (std::vector<uint32_t>{2, 3, 1}));
        const VarId s = b.op("Reduce", {r}, {{"mode", "SUM"}, {"axis", 0}});
        EXPECT_EQ(shape_of(b, s), (std::vector<uint32_t>{1, 3, 4}));
    }
}

// The first 64 outputs are tracked in a bit mask, the rest in the state's
// scratch: a Split into 70 parts sets, and checks, all of them.
TEST(InferFastPaths, AnOperatorWithMoreThan64Outputs) {
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 70});
    std::vector<VarId> inputs{x};
    for (int k = 0; k < 70; ++k) inputs.push_back(scalar(b, 1));
    const VarId first = b.op("Split", inputs, {{"axis", 1}}, ir::OpOptions{.outputs = 70});
    for (uint32_t k = 0; k < 70; ++k) {
        EXPECT_EQ(shape_of(b, nth(first, k)), (std::vector<uint32_t>{2, 1})) << "output " << k;
        EXPECT_EQ(dtype_of(b, nth(first, k)), F32);
    }
}

// Shape tensors and indices are decoded straight from a constant's bytes
// (decode_small_constant), not through a StaticValue: for every tracked dtype the
// elements must be the numbers written, Bool as 0/1, and the same as the
// general decode's (constant_value).
TEST(InferFastPaths, SmallConstantsDecodeToTheValuesWritten) {
    GraphBuilder b;
    struct Case {
        DType dtype;
        std::vector<std::byte> bytes;
        std::vector<double> expected;
    };
    auto make = [](DType dtype, const auto& values, std::vector<double> expected) {
        std::vector<std::byte> bytes(sizeof(values[0]) * values.size());
        std::memcpy(bytes.data(), values.data(), bytes.size());
        return Case{dtype, std::move(bytes), std::move(expected)};
    };
    const std::vector<Case> cases{
        make(I32, std::vector<int32_t>{7, -3, 0, 2147483647}, {7, -3, 0, 2147483647}),
        make(DType::of(DTypeEnum::Int16), std::vector<int16_t>{-32768, 5, 1, -1}, {-32768, 5, 1, -1}),
        make(DType::of(DTypeEnum::Uint16), std::vector<uint16_t>{65535, 0, 9, 1}, {65535, 0, 9, 1}),
        make(DType::of(DTypeEnum::Int8), std::vector<int8_t>{-128, 127, 0, -1}, {-128, 127, 0, -1}),
        make(DType::of(DTypeEnum::Uint8), std::vector<uint8_t>{255, 0, 1, 128}, {255, 0, 1, 128}),
        make(BOOL, std::vector<uint8_t>{0, 2, 1, 255}, {0, 1, 1, 1}),  // nonzero storage is true
        make(F32, std::vector<float>{0.5f, -1.25f, 1024.0f, -0.0f}, {0.5, -1.25, 1024, 0}),
        make(qs8(0.5f), std::vector<int8_t>{-128, 127, 0, -1}, {-128, 127, 0, -1}),  // storage integers
    };
    std::vector<VarId> vars;
    for (const Case& c : cases) vars.push_back(b.constant(c.dtype, {4}, c.bytes));
    const VarId input = b.input("x", I32, {4});
    const ir::Graph& g = b.graph();
    for (size_t c = 0; c < cases.size(); ++c) {
        const std::string name = ir::dtype_string(cases[c].dtype);
        std::array<double, 8> out{};
        ASSERT_EQ(ir::decode_small_constant(g, vars[c], out), 4) << name;
        EXPECT_EQ(std::vector<double>(out.begin(), out.begin() + 4), cases[c].expected) << name;
        const auto general = ir::constant_value(g, vars[c]);
        ASSERT_NE(general, nullptr) << name;
        EXPECT_EQ(general->elems, cases[c].expected) << name;
        // Too small a buffer is "not read", never a partial value.
        std::array<double, 3> small{};
        EXPECT_EQ(ir::decode_small_constant(g, vars[c], small), -1) << name;
        // The Int32 reader (a Reshape's constant target) reads Int32 alone.
        std::array<int32_t, 8> ints{};
        if (cases[c].dtype == I32) {
            ASSERT_EQ(ir::small_int32_constant(g, vars[c], ints), 4);
            EXPECT_EQ(std::vector<double>(ints.begin(), ints.begin() + 4), cases[c].expected);
            std::array<int32_t, 3> few{};
            EXPECT_EQ(ir::small_int32_constant(g, vars[c], few), -1);
        } else {
            EXPECT_EQ(ir::small_int32_constant(g, vars[c], ints), -1) << name;
        }
    }
    // Only an ImmutableTensor's value is decoded: an input has none.
    std::array<double, 8> out{};
    EXPECT_EQ(ir::decode_small_constant(g, input, out), -1);
    std::array<int32_t, 8> ints{};
    EXPECT_EQ(ir::small_int32_constant(g, input, ints), -1);
}

// Reshape reads its target that way (Subtensor its indices: the indexing tests
// give them as constants): a constant target and a computed one (GetVarShape,
// a StaticValue) give the shapes the rule states, and the refusals keep theirs.
TEST(InferFastPaths, ShapeTensorsAndIndicesFromConstantsAndValues) {
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 3, 4});
    const VarId to_const = b.op("Reshape", {x, b.constant<int32_t>({3}, {4, 3, 2})}, {});
    EXPECT_EQ(shape_of(b, to_const), (std::vector<uint32_t>{4, 3, 2}));
    const VarId to_shape_of = b.op("Reshape", {to_const, b.op("GetVarShape", {x}, {})}, {});
    EXPECT_EQ(shape_of(b, to_shape_of), (std::vector<uint32_t>{2, 3, 4}));
    expect_refused([&] { b.op("Reshape", {x, b.constant<int32_t>({2}, {5, 5})}, {}); }, "can not reshape");
    expect_refused([&] { b.op("Reshape", {x, b.constant<int32_t>({8}, {1, 1, 1, 1, 1, 2, 3, 4})}, {}); },
                   "at most 7");
}

// infer_graph checks every operator's inputs in one pass and then skips the
// per-input checks. Both walks (the graph's order and a given one) must agree
// with inferring as the builder did, and a graph that fails the pass (an input
// naming a var that does not exist) must still be refused naming the operator.
TEST(InferFastPaths, WholeGraphWalksCheckInputsOnce) {
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 3});
    const VarId w = float_param(b, "w", {3});
    const VarId y = b.op("Elemwise", {x, w}, {{"mode", "ADD"}}, OpOptions{.name = "add"});
    const VarId z = b.op("Elemwise", {y}, {{"mode", "RELU"}}, OpOptions{.name = "relu"});
    b.output(z, "z");
    ir::Graph g = b.finish();
    std::vector<ir::OprId> order;
    for (uint32_t o = 0; o < g.oprs.size(); ++o) order.push_back(ir::OprId(o));
    for (const ir::InferState& state : {ir::infer_graph(g), ir::infer_graph(g, order)}) {
        ASSERT_EQ(state.shapes.size(), g.vars.size());
        EXPECT_EQ(state.shapes[z.value], ir::Shape::of(std::vector<uint32_t>{2, 3}));
        EXPECT_EQ(state.dtypes[z.value], F32);
    }

    ir::Graph bad = g;
    const ir::OprId relu = bad.vars.owner[z.value];
    const uint32_t missing = static_cast<uint32_t>(bad.vars.size()) + 5;
    bad.opr_inputs[bad.oprs.inputs[relu.value].begin] = VarId(missing);
    const std::string says = fmt::format("input 0 refers to var {}, which does not exist", missing);
    expect_refused([&] { (void)ir::infer_graph(bad); }, says);
    expect_refused([&] { (void)ir::infer_graph(bad, order); }, says);
    expect_refused([&] { (void)ir::infer_graph(bad); }, "'relu'");

    // Outputs past the var table (a hand-edited file) are refused too, before a
    // byte of the state is written past its end; so is a range whose end wraps
    // around 32 bits.
    for (const uint32_t begin : {static_cast<uint32_t>(g.vars.size()) - 1, ~uint32_t{0}}) {
        ir::Graph outside = g;
        outside.oprs.outputs[relu.value] = ir::Range{begin, 2};
        const std::string refusal = fmt::format("outputs are vars {}..{}, but the graph has {} vars", begin,
                                                uint64_t{begin} + 1, g.vars.size());
        expect_refused([&] { (void)ir::infer_graph(outside); }, refusal);
        expect_refused([&] { (void)ir::infer_graph(outside, order); }, refusal);
    }
}

// A whole-graph walk writes a tensor-holding operator's one output itself
// (infer.cpp write_tensor_output): every var must come out as the rules give it
// one operator at a time, for each kind of holder (an input, a param, a
// constant, a holder of two tensors, which takes the rule), and a holder whose
// tensors do not match its outputs must still be refused by the rule.
TEST(InferFastPaths, TensorHoldersWrittenByTheWalkMatchTheirRule) {
    GraphBuilder b;
    ir::Graph& g = b.graph();
    const VarId x = b.input("x", F32, {2, 3});
    const VarId w = float_param(b, "w", {1, 3});
    const VarId c = b.constant<int32_t>({4}, {2, 3, 1, 1});
    ir::OpOptions two{.name = "pair"};
    two.outputs = 2;
    const ir::OprId pair = b.add_op(ir::find_op("MultipleDeviceTensorHolder"), {}, {}, two);
    const uint32_t s0[] = {3}, s1[] = {5, 1, 2};
    b.add_tensor(pair, "p0", ir::TensorMethod::ValueShared, F32, s0, "xpux:0", g.blobs.add_owned(std::vector<std::byte>(12)));
    b.add_tensor(pair, "p1", ir::TensorMethod::ValueShared, I32, s1, "xpux:0",
                 g.blobs.add_owned(std::vector<std::byte>(40)));
    const VarId p0 = g.output_var(pair, 0), p1 = g.output_var(pair, 1);
    const VarId y = b.op("Elemwise", {b.op("Elemwise", {x, w}, {{"mode", "MUL"}}), p0}, {{"mode", "ADD"}});
    b.output(b.op("Reshape", {y, c}, {}), "out");
    b.output(p1, "second");
    const ir::Graph graph = b.finish();

    ir::InferState by_rule;
    for (uint32_t o = 0; o < graph.oprs.size(); ++o) ir::infer_operator(graph, ir::OprId(o), by_rule);
    std::vector<ir::OprId> order;
    for (uint32_t o = 0; o < graph.oprs.size(); ++o) order.push_back(ir::OprId(o));
    for (const ir::InferState& walked : {ir::infer_graph(graph), ir::infer_graph(graph, order)}) {
        ASSERT_EQ(walked.shapes.size(), graph.vars.size());
        for (uint32_t v = 0; v < graph.vars.size(); ++v) {
            EXPECT_EQ(walked.dtypes[v], by_rule.dtypes[v]) << "var " << v;
            EXPECT_EQ(walked.shapes[v], by_rule.shapes[v]) << "var " << v;
        }
    }
    // The facts themselves, from the tensors the test wrote.
    const ir::InferState walked = ir::infer_graph(graph);
    EXPECT_EQ(walked.shapes[w.value], ir::Shape::of({1, 3}));
    EXPECT_EQ(walked.dtypes[c.value], I32);
    EXPECT_EQ(walked.shapes[c.value], ir::Shape::of({4}));
    EXPECT_EQ(walked.shapes[p1.value], ir::Shape::of({5, 1, 2}));
    EXPECT_EQ(walked.dtypes[p1.value], I32);
    EXPECT_EQ(walked.shapes[graph.outputs.front().value], ir::Shape::of({2, 3, 1, 1}));

    // A constant that lost its tensor (a hand-edited file): the rule's refusal.
    ir::Graph bad = graph;
    bad.oprs.tensors[bad.vars.owner[c.value].value].count = 0;
    expect_refused([&] { (void)ir::infer_graph(bad); }, "has 0 tensors for 1 outputs");
    expect_refused([&] { (void)ir::infer_graph(bad, order); }, "has 0 tensors for 1 outputs");
}

// An enum field is read inline when its members are numbered in order (every
// enum a rule reads): the member must be the one the value names, and a value no
// member has must still be refused by the general lookup.
TEST(InferFastPaths, AnEnumReadNamesItsMemberAndRefusesAValueNoMemberHas) {
    GraphBuilder b;
    const VarId c = b.constant<int32_t>({3}, {1, 5, 3});
    auto reduce = [&](const char* mode) { return b.op("Reduce", {c}, {{"mode", mode}, {"axis", 0}}); };
    // Reduce's value inference (reduce_helper.h): the mode picks the operation.
    EXPECT_EQ(value_of(b, reduce("SUM")), (std::vector<double>{9}));
    EXPECT_EQ(value_of(b, reduce("PRODUCT")), (std::vector<double>{15}));
    EXPECT_EQ(value_of(b, reduce("MIN")), (std::vector<double>{1}));
    EXPECT_EQ(value_of(b, reduce("MAX")), (std::vector<double>{5}));

    // A loaded file can hold any number in the field.
    ir::Graph& g = b.graph();
    const ir::OpTypeId type = ir::find_op("Reduce");
    const std::vector<VarId> inputs = {c};
    const ir::OprId o = ir::append_op(
        g, type, inputs, ir::make_params(ir::op_def(type), {{"mode", "SUM"}, {"axis", 0}}, "Reduce"), {});
    ir::ParamValue& p = g.params[g.oprs.params[o.value].begin];
    p.fields[ir::find_field(ir::param_table(p.table), "mode")] = int64_t{99};
    ir::InferState state = b.inferred();
    expect_refused([&] { ir::infer_operator(g, o, state); }, "mode = 99 is not a");
}

// The operator table keeps field 0 of param 0 (OprTable::first_field), which
// the Elemwise rule reads as its mode: it must be what the param holds, a
// change to the param must be refused by validation until refreshed, and the
// refreshed mode is the one inference applies.
TEST(InferFastPaths, TheOperatorTableKeepsTheFirstFieldOfTheFirstParam) {
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 3});
    const VarId sum = b.op("Elemwise", {x, x}, {{"mode", "ADD"}});
    const VarId t = b.op("Dimshuffle", {sum}, {{"pattern", std::vector<int32_t>{1, 0}}});
    ir::Graph& g = b.graph();
    const ir::OprId add = g.vars.owner[sum.value], shuffle = g.vars.owner[t.value], input = g.vars.owner[x.value];
    ASSERT_EQ(g.oprs.first_field.size(), g.oprs.size());
    // param::Elemwise::Mode ADD is 16 (the spec's worked example writes it).
    EXPECT_EQ(g.oprs.first_field[add.value], 16);
    // Dimshuffle's field 0 is its pattern, a vector; an input's param has no int field 0.
    EXPECT_EQ(g.oprs.first_field[shuffle.value], ir::kNoFirstField);
    EXPECT_EQ(g.oprs.first_field[input.value], g.first_field_of(input));

    ir::ParamValue& p = g.params[g.oprs.params[add.value].begin];
    const ir::EnumDesc& modes = *ir::param_table(p.table).fields[0].enum_type;
    p.fields[0] = int64_t{ir::find_enum_member(modes, "NEGATE")->value};
    expect_refused([&] { ir::validate_operator(g, add); }, "refresh_first_field");
    g.refresh_first_field(add);
    ir::validate_operator(g, add);
    // NEGATE takes one input; the operator has two.
    ir::InferState state = b.inferred();
    expect_refused([&] { ir::infer_operator(g, add, state); }, "takes 1 input, has 2");

    // Undoing an operator takes its entry out too.
    g.remove_newest_operator();
    EXPECT_EQ(g.oprs.first_field.size(), g.oprs.size());
}

// A FieldRef constant is resolved by a dynamic initializer; read before it ran
// (inference from another file's static initializer) it is all zeros, and the
// read says so instead of refusing a field with an empty name.
TEST(InferFastPaths, AFieldConstantReadBeforeItsInitializerSaysSo) {
    const auto unresolved = std::bit_cast<ir::FieldRef>(std::array<std::byte, sizeof(ir::FieldRef)>{});
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 3});
    b.op("Reduce", {x}, {{"mode", "SUM"}, {"axis", 1}});
    ir::Graph& g = b.graph();
    const ir::OprId reduce(static_cast<uint32_t>(g.oprs.size() - 1));
    ir::InferState state = b.inferred();
    const ir::InferContext ctx(g, reduce, state);
    for (auto read : {std::function<void()>([&] { (void)ctx.int_field(unresolved); }),
                      std::function<void()>([&] { (void)ctx.enum_field(unresolved); })}) {
        try {
            read();
            ADD_FAILURE() << "an unresolved field constant was read";
        } catch (const std::logic_error& e) {
            EXPECT_NE(std::string_view(e.what()).find("not initialized yet"), std::string_view::npos)
                << e.what();
        }
    }
}

// Hot fields are resolved once by table and name (FieldRef): the position must
// be the table's own, a name the table lacks resolves to a by-name read, and a
// param of another table than the one resolved is read by name, which refuses
// a field that table does not have.
TEST(InferFastPaths, AResolvedFieldIsTheTablesAndFallsBackToItsName) {
    const ir::FieldRef ta = ir::resolve_field("MatrixMul", "transposeA");
    const ir::ParamTableId matmul = ir::find_param_table("MatrixMul");
    EXPECT_EQ(ta.table, matmul.value);
    EXPECT_EQ(ta.index, ir::find_field(ir::param_table(matmul), "transposeA"));
    EXPECT_EQ(ta.enum_type, nullptr);
    EXPECT_NE(ir::resolve_field("Reduce", "mode").enum_type, nullptr);
    EXPECT_EQ(ir::resolve_field("MatrixMul", "no_such_field").index, -1);
    EXPECT_EQ(ir::resolve_field("NoSuchTable", "axis").index, -1);

    // A Reduce whose param is a Softmax (a hand-made graph): "axis" is found by
    // name in the Softmax table, "mode" is not there and is refused by name.
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 3});
    ir::Graph& g = b.graph();
    const std::vector<VarId> inputs{x};
    std::vector<ir::ParamValue> softmax{ir::default_param(ir::find_param_table("Softmax"))};
    // Softmax's field 0 (axis) at 1: read by Reduce's position of "mode" without
    // the table check, it would pass for a mode (member 1) and not be refused.
    ASSERT_EQ(ir::find_field(ir::param_table(softmax[0].table), "axis"), 0);
    softmax[0].fields[0] = int64_t{1};
    const ir::OprId o = ir::append_op(g, ir::find_op("Reduce"), inputs, std::move(softmax), {});
    ir::InferState state = b.inferred();
    try {
        ir::infer_operator(g, o, state);
        ADD_FAILURE() << "a Reduce with a Softmax param was not refused";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string_view(e.what()).find("param Softmax has no enum field 'mode'"), std::string_view::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace mgedump::test
