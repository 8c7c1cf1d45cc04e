// Operators MegEngine's make functions fold away are lowered before writing: the
// loader rebuilds each operator with make and asserts it got the recorded type
// back (serializer_oss_v2.cpp:765-773), so a written Concat of one input, or an
// x * 1, would be unloadable. Each test dumps a graph and reads the file back to
// see which operator types were written.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/dump.h"
#include "formats/model_reader.h"
#include "ir/builder.h"
#include "tests/model_test_util.h"

namespace mgedump::test {
namespace {

using ir::DType;
using ir::DTypeEnum;
using ir::GraphBuilder;

const DType kF32 = DType::of(DTypeEnum::Float32);

std::vector<std::string> written_types(const ir::Graph& g, engine::DumpOptions options = {}) {
    auto bytes = owned_bytes(engine::dump_graph(g, options).bytes.to_bytes());
    formats::LoadedModel m = load_bytes(bytes);
    std::vector<std::string> types;
    for (ir::OpTypeId t : m.graph.oprs.type) types.emplace_back(ir::op_def(t).name);
    return types;
}

ir::VarId pooled(GraphBuilder& b) {
    ir::VarId x = b.input("x", kF32, {1, 2, 4, 4});
    return b.op("Pooling", {x}, {{"window_h", 2}, {"window_w", 2}, {"stride_h", 2}, {"stride_w", 2}});
}

using Types = std::vector<std::string>;

// tensor_manip.cpp:1265-1266, Concat::make: "if (inp.size() == 1) return inp[0]"
// (the densenet121 case: torch.cat([x], 1)).
TEST(MakeFolds, AConcatOfOneInputIsItsInputInBothFormatsWithTheOutputsName) {
    GraphBuilder b;
    ir::VarId p = pooled(b);
    b.output(b.op("Concat", {p}, {{"axis", 1}}), "out");
    ir::Graph g = b.finish();
    EXPECT_EQ(written_types(g), (Types{"Host2DeviceCopy", "Pooling"}));
    engine::DumpOptions fbs;
    fbs.dump_format = engine::DumpFormat::FBS;
    EXPECT_EQ(written_types(g, fbs), (Types{"Host2DeviceCopy", "Pooling"}));
    engine::DumpOptions unchanged;
    unchanged.no_change_graph = true;  // make folds whatever the options
    EXPECT_EQ(written_types(g, unchanged), (Types{"Host2DeviceCopy", "Pooling"}));
    EXPECT_EQ(engine::dump_graph(g, {}).result.outputs, std::vector<std::string>{"out"});
}

// check_is_shape_of's static half (tensor_manip.cpp:34): a constant target equal to
// the input's shape folds only when MegEngine's static inference knows that shape
// as a constant (CONST): downstream of a Reshape to a constant, not a graph input's
// (Host2DeviceCopy's shape is set at run time). Seen in a real MegEngine: ONNX's
// expanded LayerNormalization and SoftmaxCrossEntropyLoss models failed to load with
// "got_type= expected_type=" until this fold.
TEST(MakeFolds, AReshapeToAConstantEqualToAStaticallyKnownShapeIsTheInput) {
    GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {2, 6});
    ir::VarId flat = b.op("Reshape", {x, b.constant<int32_t>({2}, {3, 4})});  // shape [3,4], CONST
    ir::VarId again = b.op("Reshape", {flat, b.constant<int32_t>({2}, {3, 4})});
    b.output(b.op("Elemwise", {again}, {{"mode", "RELU"}}), "out");
    EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "ImmutableTensor", "Reshape", "Elemwise"}));
}

// The target may be computed from constants (an ONNX export's shape arithmetic):
// its value is static too, and MegEngine compares it the same way.
TEST(MakeFolds, AReshapeToAComputedConstantEqualToAStaticallyKnownShapeIsTheInput) {
    for (int32_t rows : {3, 4}) {
        GraphBuilder b;
        ir::VarId x = b.input("x", kF32, {2, 6});
        ir::VarId flat = b.op("Reshape", {x, b.constant<int32_t>({2}, {3, 4})});
        // [rows, 12 / rows], as ADD([rows - 1, 12 / rows - 1], [1])
        ir::VarId target = b.op(
            "Elemwise", {b.constant<int32_t>({2}, {rows - 1, 12 / rows - 1}), b.constant<int32_t>({1}, {1})},
            {{"mode", "ADD"}});
        ir::VarId again = b.op("Reshape", {flat, target});
        b.output(b.op("Elemwise", {again}, {{"mode", "RELU"}}), "out");
        const Types written = written_types(b.finish());
        if (rows == 3)
            EXPECT_EQ(written, (Types{"Host2DeviceCopy", "ImmutableTensor", "Reshape", "Elemwise"}));
        else  // [4,3] is another shape: both Reshapes stay
            EXPECT_EQ(std::count(written.begin(), written.end(), "Reshape"), 2) << ::testing::PrintToString(written);
    }
}

TEST(MakeFolds, AReshapeOfAGraphInputToItsOwnShapeIsKept) {
    GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {3, 4});
    b.output(b.op("Reshape", {x, b.constant<int32_t>({2}, {3, 4})}), "out");
    EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "ImmutableTensor", "Reshape"}));
}

// basic_arith.cpp:753 TypeCvt::make: "if (input.dtype() == dest_type) return input"
// (ONNX's ReverseSequence mapping converted INT32 sequence lengths to Int32).
TEST(MakeFolds, ATypeCvtToTheInputsOwnDtypeIsTheInput) {
    GraphBuilder b;
    ir::VarId x = b.input("x", DType::of(DTypeEnum::Int32), {4});
    ir::VarId same = b.op("TypeCvt", {x}, {{"dtype", ir::ParamArg(DType::of(DTypeEnum::Int32))}});
    b.output(b.op("TypeCvt", {same}, {{"dtype", ir::ParamArg(kF32)}}), "out");
    EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "TypeCvt"}));
}

// graph_opt.cpp:118 GraphOptimizer::swap_typecvt_and_bcast, which the graph runs on
// every operator it inserts: a TypeCvt of a Broadcast whose value is CONST is
// inserted as Broadcast(TypeCvt(x)), so the loader gets a Broadcast back. Seen in a
// real MegEngine: ONNX's tf_crop_and_resize (a Where on a broadcast constant Bool
// mask, which the FBS rewrites turn into a TypeCvt of it) failed to load with
// "got_type=Broadcast expected_type=TypeCvt" until this fold. The same chain on a
// graph input's value (not CONST) is written as it is.
TEST(MakeFolds, ATypeCvtOfABroadcastConstantIsWrittenAsABroadcastOfATypeCvt) {
    GraphBuilder b;
    const std::vector<std::byte> bools{std::byte{1}, std::byte{0}, std::byte{1}};
    ir::VarId mask = b.constant(DType::of(DTypeEnum::Bool), {1, 3}, bools);
    ir::VarId wide = b.op("Broadcast", {mask, b.constant<int32_t>({2}, {2, 3})});
    ir::VarId x = b.input("x", kF32, {2, 3});
    b.output(b.op("Elemwise", {b.op("TypeCvt", {wide}, {{"dtype", ir::ParamArg(kF32)}}), x}, {{"mode", "MUL"}}),
             "out");
    const ir::Graph g = b.finish();
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        engine::DumpOptions options;
        options.dump_format = format;
        EXPECT_EQ(written_types(g, options), (Types{"ImmutableTensor", "TypeCvt", "ImmutableTensor", "Broadcast",
                                                    "Host2DeviceCopy", "Elemwise"}));
    }
    GraphBuilder runtime;
    ir::VarId flag = runtime.input("flag", DType::of(DTypeEnum::Bool), {1, 3});
    ir::VarId spread = runtime.op("Broadcast", {flag, runtime.constant<int32_t>({2}, {2, 3})});
    runtime.output(runtime.op("TypeCvt", {spread}, {{"dtype", ir::ParamArg(kF32)}}), "out");
    EXPECT_EQ(written_types(runtime.finish()), (Types{"Host2DeviceCopy", "ImmutableTensor", "Broadcast", "TypeCvt"}));
}

TEST(MakeFolds, AConcatOfTwoInputsIsKept) {
    GraphBuilder b;
    ir::VarId p = pooled(b);
    b.output(b.op("Concat", {p, p}, {{"axis", 1}}), "out");
    EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "Pooling", "Concat"}));
}

// tensor_manip.cpp:22 check_is_shape_of + :346 Reshape::make / :412 Broadcast::make.
TEST(MakeFolds, AReshapeOrBroadcastToTheInputsOwnShapeIsTheInput) {
    for (const char* op : {"Reshape", "Broadcast"}) {
        GraphBuilder b;
        ir::VarId p = pooled(b);
        ir::VarId shape = b.op("GetVarShape", {p});
        b.output(b.op(op, {p, shape}), "out");
        EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "Pooling"})) << op;
    }
    // The shape of another var (same value, but not GetVarShape of the input) is kept.
    GraphBuilder b;
    ir::VarId p = pooled(b);
    ir::VarId q = b.op("Pooling", {p}, {{"window_h", 1}, {"window_w", 1}, {"stride_h", 1}, {"stride_w", 1}, {"pad_h", 0}, {"pad_w", 0}});
    b.output(b.op("Reshape", {p, b.op("GetVarShape", {q})}), "out");
    EXPECT_EQ(written_types(b.finish()),
              (Types{"Host2DeviceCopy", "Pooling", "Pooling", "GetVarShape", "Reshape"}));
}

ir::VarId elemwise(GraphBuilder& b, const char* mode, std::vector<ir::VarId> in) {
    return b.op("Elemwise", std::move(in), {{"mode", mode}});
}

// inplace.cpp make_optimizer_registry: ADD identical_op<0>, MUL identical_op<1>,
// POW with exponent 1 → the other operand (broadcast_tshp to its own shape).
TEST(MakeFolds, IdentityArithmeticWithAScalarConstantIsTheOtherOperand) {
    struct Case {
        const char* mode;
        float k;
        bool const_first;
    };
    for (Case c : {Case{"ADD", 0.f, false}, Case{"ADD", 0.f, true}, Case{"MUL", 1.f, false},
                   Case{"MUL", 1.f, true}, Case{"POW", 1.f, false}}) {
        GraphBuilder b;
        ir::VarId p = pooled(b);
        ir::VarId k = b.constant<float>({1}, {c.k});
        b.output(c.const_first ? elemwise(b, c.mode, {k, p}) : elemwise(b, c.mode, {p, k}), "out");
        EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "Pooling"})) << c.mode;
    }
}

TEST(MakeFolds, ArithmeticThatMakeKeepsIsWritten) {
    // x * 2, x * [1,1] (not a scalar: as_immutable_scalar needs one element), x + 1.
    for (auto [mode, values] : {std::pair{"MUL", std::vector<float>{2.f}}, std::pair{"MUL", std::vector<float>{1.f, 1.f}},
                                std::pair{"ADD", std::vector<float>{1.f}}}) {
        GraphBuilder b;
        ir::VarId x = b.input("x", kF32, {2, 2});
        std::vector<std::byte> bytes(values.size() * 4);
        std::memcpy(bytes.data(), values.data(), bytes.size());
        ir::VarId k = b.constant(kF32, {static_cast<uint32_t>(values.size())}, bytes);
        b.output(elemwise(b, mode, {x, k}), "out");
        EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "ImmutableTensor", "Elemwise"})) << mode;
    }
}

// absorbing_element<0> and POW by 0: broadcast_tshp(make_scalar_dt(v), inp) is
// Broadcast(ImmutableTensor v, GetVarShape(x)).
TEST(MakeFolds, MultiplyingByZeroOrRaisingToZeroIsAFilledBroadcast) {
    for (auto [mode, k, fill] : {std::tuple{"MUL", 0.f, 0.f}, std::tuple{"POW", 0.f, 1.f}}) {
        GraphBuilder b;
        ir::VarId p = pooled(b);
        b.output(elemwise(b, mode, {p, b.constant<float>({1}, {k})}), "out");
        ir::Graph g = b.finish();
        auto bytes = owned_bytes(engine::dump_graph(g, {}).bytes.to_bytes());
        formats::LoadedModel m = load_bytes(bytes);
        std::vector<std::string> types;
        for (ir::OpTypeId t : m.graph.oprs.type) types.emplace_back(ir::op_def(t).name);
        EXPECT_EQ(types, (Types{"ImmutableTensor", "Host2DeviceCopy", "Pooling", "GetVarShape", "Broadcast"})) << mode;
        // The constant holds the fill value, and the output has the operand's shape.
        const ir::Graph& lg = m.graph;
        const ir::TensorId t(lg.oprs.tensors[0].begin);
        float value;
        std::memcpy(&value, lg.blobs.bytes(lg.tensors.blob[t.value]).data(), 4);
        EXPECT_EQ(value, fill) << mode;
        auto shape = lg.var_shape(lg.outputs[0]);
        EXPECT_EQ(std::vector<uint32_t>(shape.begin(), shape.end()), (std::vector<uint32_t>{1, 2, 2, 2})) << mode;
    }
}

// PowC::make (basic_arith.cpp:1796-1803): exponent 1 returns x, exponent 0
// make_scalar_dt(1).broadcast(x.symshape()); others make a PowC. (A real
// MegEngine refused a PowC of exponent 0 or 1 written as one: "got_type=
// expected_type=".)
TEST(MakeFolds, APowCOfExponentOneIsItsInputAndOfExponentZeroAFilledBroadcast) {
    for (float exp : {1.f, 0.f, 2.f, 0.5f}) {
        GraphBuilder b;
        b.output(b.op("PowC", {pooled(b)}, {{"exp", exp}}), "out");
        const ir::Graph g = b.finish();
        for (engine::DumpFormat f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
            engine::DumpOptions o;
            o.dump_format = f;
            const Types want = exp == 1.f   ? Types{"Host2DeviceCopy", "Pooling"}
                               : exp == 0.f ? Types{"ImmutableTensor", "Host2DeviceCopy", "Pooling",
                                                    "GetVarShape", "Broadcast"}
                                            : Types{"Host2DeviceCopy", "Pooling", "PowC"};
            EXPECT_EQ(written_types(g, o), want) << exp;
        }
        if (exp != 0.f) continue;
        auto bytes = owned_bytes(engine::dump_graph(g, {}).bytes.to_bytes());
        const formats::LoadedModel m = load_bytes(bytes);
        const ir::Graph& lg = m.graph;
        float value;
        std::memcpy(&value, lg.blobs.bytes(lg.tensors.blob[lg.oprs.tensors[0].begin]).data(), 4);
        EXPECT_EQ(value, 1.f);
        EXPECT_EQ(lg.vars.dtype[lg.outputs[0].value], kF32);
    }
}

// The LOG optimizer "if (mode == Mode::EXP) return opr->input(0)"; FLOOR_DIV by 1
// on integers returns the input (on floats it becomes FLOOR, an Elemwise).
TEST(MakeFolds, LogOfExpAndIntegerFloorDivisionByOneAreTheInput) {
    {
        GraphBuilder b;
        ir::VarId p = pooled(b);
        b.output(elemwise(b, "LOG", {elemwise(b, "EXP", {p})}), "out");
        EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "Pooling"}));
    }
    {
        GraphBuilder b;
        ir::VarId x = b.input("x", DType::of(DTypeEnum::Int32), {3});
        ir::VarId y = elemwise(b, "NEGATE", {x});
        b.output(elemwise(b, "FLOOR_DIV", {y, b.constant<int32_t>({1}, {1})}), "out");
        EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "Elemwise"}));
    }
    {
        GraphBuilder b;
        ir::VarId x = b.input("x", kF32, {3});
        b.output(elemwise(b, "FLOOR_DIV", {x, b.constant<float>({1}, {1.f})}), "out");
        EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "ImmutableTensor", "Elemwise"}));
    }
}

// What the FBS compatibility rewrites build is rebuilt with make by the loader too.
// The LayerNorm rewrite reshapes the normalised values back to the input's shape
// (GetVarShape of the input); when that shape is CONST (here: after a Reshape to a
// constant, as in swin_v2_t's post-norms), Reshape::make returns the values, an
// Elemwise, and a real MegEngine refused the FBS file with "got_type=
// expected_type=". The check is the loader's (serializer_oss.cpp:812): every
// shape below `flat` is CONST, so a written Reshape or Broadcast that keeps its
// input's shape is folded by make, and must then have been fed by an operator of
// its own type.
TEST(MakeFolds, WhatTheCompatibilityRewritesBuildIsFoldedAsMakeWouldFoldIt) {
    GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {2, 12});
    ir::VarId flat = b.op("Reshape", {x, b.constant<int32_t>({3}, {2, 3, 4})});  // shape CONST
    ir::VarId w = b.constant<float>({4}, {1.f, 2.f, 3.f, 4.f});
    ir::VarId bias = b.constant<float>({4}, {0.5f, 0.f, 0.f, 0.f});
    b.output(b.op("LayerNorm", {flat, w, bias}, {{"normalized_dim", 1}, {"normalized_size", 4}, {"eps", 1e-5f}}),
             "y");
    const ir::Graph g = b.finish();
    engine::DumpOptions fbs;
    fbs.dump_format = engine::DumpFormat::FBS;
    formats::LoadedModel m = load_bytes(owned_bytes(engine::dump_graph(g, fbs).bytes.to_bytes()));
    const ir::Graph& written = m.graph;
    size_t reshapes = 0;
    for (uint32_t o = 0; o < written.oprs.size(); ++o) {
        const std::string_view type = ir::op_def(written.oprs.type[o]).name;
        if (type != "Reshape" && type != "Broadcast") continue;
        ++reshapes;
        const auto in = written.inputs_of(ir::OprId(o));
        const ir::VarId out(written.oprs.outputs[o].begin);
        const auto in_shape = written.var_shape(in[0]), out_shape = written.var_shape(out);
        if (!std::equal(in_shape.begin(), in_shape.end(), out_shape.begin(), out_shape.end())) continue;
        EXPECT_EQ(ir::op_def(written.oprs.type[written.vars.owner[in[0].value].value]).name, type)
            << "operator #" << o << " (" << type << ") keeps its input's CONST shape, so make returns the input";
    }
    // The rewrite ran (its flattening Reshapes are there): this is not LayerNorm written as is.
    EXPECT_GT(reshapes, 1u);
    EXPECT_EQ(std::count_if(written.oprs.type.begin(), written.oprs.type.end(),
                            [](ir::OpTypeId t) { return ir::op_def(t).name == "LayerNorm"; }),
              0);
}

// A graph nobody inferred records no dtype or shape for the vars operators
// compute; the dump infers it, and its fold check must read that, or each fold
// below that needs an inferred dtype or shape goes unseen and the file holds an
// operator MegEngine's loader refuses (it rebuilds it with make and gets its
// input back). Each graph is written as the same graph built is.
TEST(MakeFolds, AGraphNobodyInferredIsFoldedAsTheSameGraphBuilt) {
    struct Case {
        std::string what;
        ir::Graph graph;
        Types written;  // as the tests above find for each fold
    };
    std::vector<Case> cases;
    const Types reshaped_once{"Host2DeviceCopy", "ImmutableTensor", "Reshape", "Elemwise"};
    const Types pooled_only{"Host2DeviceCopy", "Pooling"};
    {  // Reshape to the CONST shape its input already has (tensor_manip.cpp:346)
        GraphBuilder b;
        ir::VarId flat = b.op("Reshape", {b.input("x", kF32, {2, 6}), b.constant<int32_t>({2}, {3, 4})});
        ir::VarId again = b.op("Reshape", {flat, b.constant<int32_t>({2}, {3, 4})});
        b.output(b.op("Elemwise", {again}, {{"mode", "RELU"}}), "out");
        cases.push_back({"reshape to a constant", b.finish(), reshaped_once});
    }
    {  // the same with a computed target, [2,3] + [1] (its value is CONST too)
        GraphBuilder b;
        ir::VarId flat = b.op("Reshape", {b.input("x", kF32, {2, 6}), b.constant<int32_t>({2}, {3, 4})});
        ir::VarId target = elemwise(b, "ADD", {b.constant<int32_t>({2}, {2, 3}), b.constant<int32_t>({1}, {1})});
        b.output(b.op("Elemwise", {b.op("Reshape", {flat, target})}, {{"mode", "RELU"}}), "out");
        cases.push_back({"reshape to a computed constant", b.finish(), reshaped_once});
    }
    {  // Reshape to GetVarShape of its input, which is computed
        GraphBuilder b;
        ir::VarId p = pooled(b);
        b.output(b.op("Reshape", {p, b.op("GetVarShape", {p})}), "out");
        cases.push_back({"reshape to its own GetVarShape", b.finish(), pooled_only});
    }
    {  // TypeCvt of a computed var to its own dtype (basic_arith.cpp:753)
        GraphBuilder b;
        b.output(b.op("TypeCvt", {pooled(b)}, {{"dtype", ir::ParamArg(kF32)}}), "out");
        cases.push_back({"type conversion to its own dtype", b.finish(), pooled_only});
    }
    {  // ADD of 0 to a computed var: identical_op compares both operands' dtypes
        GraphBuilder b;
        b.output(elemwise(b, "ADD", {pooled(b), b.constant<float>({1}, {0.f})}), "out");
        cases.push_back({"adding zero", b.finish(), pooled_only});
    }
    for (const Case& c : cases)
        for (engine::DumpFormat format : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
            engine::DumpOptions options;
            options.dump_format = format;
            EXPECT_EQ(written_types(c.graph, options), c.written) << c.what;
            EXPECT_EQ(written_types(as_never_inferred(c.graph), options), c.written) << c.what << ", never inferred";
        }
}

// A fold can expose another: log(exp(x * 1)) is x.
TEST(MakeFolds, FoldsThatExposeFoldsAreAllMade) {
    GraphBuilder b;
    ir::VarId p = pooled(b);
    ir::VarId m = elemwise(b, "MUL", {p, b.constant<float>({1}, {1.f})});
    ir::VarId c = b.op("Concat", {m}, {{"axis", 0}});
    b.output(elemwise(b, "LOG", {elemwise(b, "EXP", {c})}), "out");
    EXPECT_EQ(written_types(b.finish()), (Types{"Host2DeviceCopy", "Pooling"}));
}

}  // namespace
}  // namespace mgedump::test
