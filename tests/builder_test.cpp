#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/error.h"
#include "ir/validate.h"

namespace mgedump::ir {
namespace {

const DType kF32 = DType::of(DTypeEnum::Float32);

OpOptions named(const char* n) {
    OpOptions o;
    o.name = n;
    return o;
}

template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const GraphError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Builder, BuildsAGraphInAFewLines) {
    GraphBuilder b;
    VarId x = b.input("data", kF32, {1, 3});
    VarId c = b.constant<float>({3}, {1, 2, 3});
    VarId y = b.op("Elemwise", {x, c}, {{"mode", "ADD"}}, named("add"));
    b.output(y, "out");
    Graph g = b.finish();
    ASSERT_EQ(g.oprs.size(), 3u);
    EXPECT_EQ(op_def(g.oprs.type[2]).name, "Elemwise");
    EXPECT_EQ(g.str(g.oprs.name[2]), "add");
    EXPECT_EQ(g.str(g.vars.name[y.value]), "out");
    ASSERT_EQ(g.params_of(OprId(2)).size(), 1u);
    const ParamValue& p = g.params_of(OprId(2))[0];
    EXPECT_EQ(param_table(p.table).name, "Elemwise");
    EXPECT_EQ(std::get<int64_t>(p.fields[0]), 16);  // ADD
    EXPECT_EQ(g.tensors.method[0], TensorMethod::MetaInput);
    EXPECT_EQ(g.blobs.bytes(g.tensors.blob[1]).size(), 12u);
}

TEST(Builder, ParamsAreFilledByFieldNameWithDefaultsForTheRest) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {1, 1, 8, 8});
    VarId w = b.constant<float>({1, 1, 1, 1}, {1.0f});
    VarId y = b.op("Convolution", {x, w}, {{"stride_h", 2}, {"ExecutionPolicy.strategy", "PROFILE"}});
    b.output(y, "y");
    Graph g = b.finish();
    auto params = g.params_of(g.vars.owner[y.value]);
    ASSERT_EQ(params.size(), 2u);
    const ParamTableDesc& conv = param_table(params[0].table);
    EXPECT_EQ(std::get<int64_t>(params[0].fields[find_field(conv, "stride_h")]), 2);
    EXPECT_EQ(std::get<int64_t>(params[0].fields[find_field(conv, "stride_w")]), 1);
    const ParamTableDesc& policy = param_table(params[1].table);
    EXPECT_EQ(std::get<int64_t>(params[1].fields[find_field(policy, "strategy")]), 2);
}

TEST(Builder, DimshuffleNdimIsTheInputRankAsMegEngineStoresIt) {
    // Found by decoding our output with MegEngine's schema: MegEngine writes the
    // input's rank; leaving 0 makes its loader infer max(pattern)+1, which is wrong
    // when the pattern drops a (size-1) axis.
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 3, 1});
    VarId y = b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{1, 0}}});
    VarId z = b.op("Dimshuffle", {y}, {{"pattern", std::vector<int32_t>{1, 0}}});  // input rank unknown
    VarId w = b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{0, 1}}, {"ndim", 3}});
    b.output(z, "z");
    b.output(w, "w");
    Graph g = b.finish();
    auto ndim_of = [&](VarId v) {
        const ParamValue& p = g.params_of(g.vars.owner[v.value])[0];
        return std::get<int64_t>(p.fields[find_field(param_table(p.table), "ndim")]);
    };
    EXPECT_EQ(ndim_of(y), 3);
    EXPECT_EQ(ndim_of(z), 2);  // max(pattern) + 1
    EXPECT_EQ(ndim_of(w), 3);  // an explicit value is kept
}

TEST(Builder, EveryOperatorGetsANameAndItsOutputsAreNamedAfterIt) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId y = b.op("Elemwise", {x}, {{"mode", "RELU"}});
    b.output(y, "y");
    Graph g = b.finish();
    EXPECT_EQ(g.str(g.oprs.name[1]), "Elemwise1");
    EXPECT_EQ(g.str(g.oprs.name[0]), "x");
}

TEST(Builder, UnknownOperatorIsRejectedByName) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {1});
    EXPECT_NE(error_of([&] { b.op("Frobnicate", {x}); }).find("unknown operator 'Frobnicate'"), std::string::npos);
}

TEST(Builder, UnknownParamFieldNamesOperatorAndField) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {1});
    std::string e = error_of([&] { b.op("Elemwise", {x}, {{"mood", "RELU"}}, named("act")); });
    EXPECT_NE(e.find("'act'"), std::string::npos) << e;
    EXPECT_NE(e.find("mood"), std::string::npos) << e;
}

TEST(Builder, BadEnumMemberIsRejected) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {1});
    std::string e = error_of([&] { b.op("Elemwise", {x}, {{"mode", "EXPLODE"}}); });
    EXPECT_NE(e.find("EXPLODE"), std::string::npos) << e;
}

TEST(Validate, WrongInputCountNamesTheOperator) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 2});
    // The builder validates each operator as it is added, so op() already throws.
    std::string e = error_of([&] { b.op("MatrixMul", {x}, {}, named("mm")); });
    EXPECT_NE(e.find("'mm' (MatrixMul)"), std::string::npos) << e;
    EXPECT_NE(e.find("has 1 inputs, expected 2"), std::string::npos) << e;
}

TEST(Validate, DanglingInputIdIsRejected) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId y = b.op("Elemwise", {x}, {{"mode", "RELU"}}, named("relu"));
    b.output(y, "y");
    b.graph().opr_inputs[0] = VarId(999);
    std::string e = error_of([&] { b.finish(); });
    EXPECT_NE(e.find("'relu'"), std::string::npos) << e;
    EXPECT_NE(e.find("var 999"), std::string::npos) << e;
}

TEST(Validate, CycleIsRejected) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId a = b.op("Elemwise", {x, x}, {{"mode", "ADD"}}, named("a"));
    VarId c = b.op("Elemwise", {a, x}, {{"mode", "MUL"}}, named("c"));
    b.output(c, "out");
    OprId a_op = b.graph().vars.owner[a.value];
    b.graph().opr_inputs[b.graph().oprs.inputs[a_op.value].begin] = c;  // a now reads c
    std::string e = error_of([&] { b.finish(); });
    EXPECT_NE(e.find("cycle"), std::string::npos) << e;
}

TEST(Validate, DuplicateOutputNamesAreRejectedOnlyWhenNamesAreKept) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId p = b.op("Elemwise", {x}, {{"mode", "RELU"}});
    VarId q = b.op("Elemwise", {x}, {{"mode", "EXP"}});
    b.output(p, "same");
    b.output(q, "same");
    Graph& g = b.graph();
    std::string e = error_of([&] { validate(g, ValidateOptions{.unique_output_names = true}); });
    EXPECT_NE(e.find("duplicated output var name 'same'"), std::string::npos) << e;
    EXPECT_NO_THROW(validate(g, ValidateOptions{.unique_output_names = false}));
}

TEST(Validate, TheSameVarMayBeRequestedTwice) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId p = b.op("Elemwise", {x}, {{"mode", "RELU"}});
    b.output(p, "p");
    b.output(p, "p");
    EXPECT_NO_THROW(b.finish());
}

TEST(Validate, EmptyOutputListIsRejected) {
    GraphBuilder b;
    b.input("x", kF32, {2});
    EXPECT_NE(error_of([&] { b.finish(); }).find("no outputs"), std::string::npos);
}

TEST(Validate, TensorBytesMustMatchDtypeAndShape) {
    GraphBuilder b;
    // The builder validates the constant's operator as it is added.
    std::string e = error_of([&] { b.constant(kF32, {4}, std::vector<std::byte>(12)); });
    EXPECT_NE(e.find("holds 12 bytes"), std::string::npos) << e;
    EXPECT_NE(e.find("needs 16"), std::string::npos) << e;
}

TEST(Validate, InputNamesMustBeUnique) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId y = b.input("x", kF32, {2});
    b.output(b.op("Elemwise", {x, y}, {{"mode", "ADD"}}), "s");
    EXPECT_NE(error_of([&] { b.finish(); }).find("input name 'x' is already used"), std::string::npos);
}

}  // namespace
}  // namespace mgedump::ir
