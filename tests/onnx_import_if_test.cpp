// If: a condition known at import time converts the branch it takes (the other
// is never read); one known only at run time converts both and selects each
// output with Where. Expected values follow from ONNX's definition of If and the
// branches' own operators (Relu, Neg).
#include <gtest/gtest.h>

#include <algorithm>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

// A branch graph: `op`(x) → `out`.
onnx::GraphProto unary_branch(const std::string& name, const std::string& op, const std::string& x,
                              const std::string& out, std::vector<int64_t> dims) {
    onnx::GraphProto g;
    g.set_name(name);
    auto* n = g.add_node();
    n->set_op_type(op);
    n->set_name(name + "_" + op);
    n->add_input(x);
    n->add_output(out);
    auto* o = g.add_output();
    o->set_name(out);
    auto* t = o->mutable_type()->mutable_tensor_type();
    t->set_elem_type(OnnxType::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
    return g;
}

void set_branch(onnx::NodeProto& n, const std::string& attr, onnx::GraphProto g) {
    auto* a = n.add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = std::move(g);
}

// then: Relu(x), else: Neg(x); the condition is `cond`.
onnx::NodeProto& add_if(OnnxModel& m, const std::string& cond, const std::string& then_op = "Relu",
                        const std::string& else_op = "Neg") {
    auto& n = m.node("If", {cond}, {"y"}, "if");
    set_branch(n, "then_branch", unary_branch("then", then_op, "x", "t", {3}));
    set_branch(n, "else_branch", unary_branch("else", else_op, "x", "e", {3}));
    return n;
}

const D kX{-1, 0, 2};

TEST(OnnxIf, AConstantConditionConvertsTheBranchItTakes) {
    for (bool taken : {true, false}) {
        OnnxModel m(13);
        m.input("x", {3}).output("y");
        m.initializer_bytes("cond", {}, OnnxType::BOOL, &taken, 1);
        add_if(m, "cond");
        ir::Graph g = m.import();
        EXPECT_EQ(compute_ops(g), std::vector<std::string>{"Elemwise"});  // RELU or NEGATE, not both
        EXPECT_EQ(evaluate_values(g, {{"x", kX}}), taken ? (D{0, 0, 2}) : (D{1, 0, -2}));
        expect_round_trip(g);
    }
}

// A scripted export's `if x.dim() == 1`: the condition is computed from the static
// shape, so it is known at import time.
TEST(OnnxIf, AConditionComputedFromStaticShapesIsKnownAtImport) {
    OnnxModel m(13);
    m.input("x", {3}).output("y");
    m.initializer_i64("one", {}, {1});
    m.node("Shape", {"x"}, {"shape"});
    m.node("Size", {"shape"}, {"rank"});
    m.node("Equal", {"rank", "one"}, {"cond"});
    add_if(m, "cond");
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"Elemwise"});
    EXPECT_EQ(evaluate_values(g, {{"x", kX}}), (D{0, 0, 2}));
}

TEST(OnnxIf, AConditionKnownOnlyAtRunTimeSelectsBetweenBothBranches) {
    OnnxModel m(13);
    m.input("x", {3}).input("cond", {}, OnnxType::BOOL).output("y");
    add_if(m, "cond");
    ir::Graph g = m.import();
    const auto ops = compute_ops(g);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Where"), 1) << ::testing::PrintToString(ops);
    EXPECT_EQ(evaluate_values(g, {{"x", kX}, {"cond", {1}}}), (D{0, 0, 2}));
    EXPECT_EQ(evaluate_values(g, {{"x", kX}, {"cond", {0}}}), (D{1, 0, -2}));
    // The dump writes the condition's Broadcast before the branches.
    expect_same_ops_after_round_trip(g);
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2})
        EXPECT_EQ(evaluate_values(dumped_and_loaded(g, format).graph, {{"x", kX}, {"cond", {0}}}),
                  (D{1, 0, -2}));
}

TEST(OnnxIf, RunTimeSelectionNeedsOneShapeInBothBranches) {
    OnnxModel m(13);
    m.input("x", {3}).input("cond", {}, OnnxType::BOOL).output("y");
    auto& n = m.node("If", {"cond"}, {"y"}, "if");
    set_branch(n, "then_branch", unary_branch("then", "Relu", "x", "t", {3}));
    onnx::GraphProto other = unary_branch("else", "ReduceSum", "x", "e", {1});
    set_branch(n, "else_branch", std::move(other));
    EXPECT_EQ(
        import_error(m),
        "test.onnx: node 'if' (If): the condition is known only at run time, and output #0 is FLOAT [3] in "
        "then_branch but FLOAT [1] in else_branch: both branches are computed and each output selected, "
        "which "
        "needs one static shape and type");
}

// A branch whose output is the positions NonZero finds where x > 0, as a [k]
// vector (rank 1) or as [k, 2] rows of a matrix x (rank 2): a length known only
// at run time.
onnx::GraphProto positions_branch(const std::string& name, bool rows) {
    onnx::GraphProto g;
    g.set_name(name);
    auto add = [&](const std::string& op, std::vector<std::string> in, const std::string& out) {
        auto* n = g.add_node();
        n->set_op_type(op);
        n->set_name(name + "_" + out);
        for (auto& i : in) n->add_input(i);
        n->add_output(out);
    };
    add("Greater", {"x", "zero"}, name + "_mask");
    add("NonZero", {name + "_mask"}, name + "_nz");
    if (rows)
        add("Transpose", {name + "_nz"}, name + "_out");
    else
        add("Reshape", {name + "_nz", "flat"}, name + "_out");
    auto* o = g.add_output();
    o->set_name(name + "_out");
    o->mutable_type()->mutable_tensor_type()->set_elem_type(OnnxType::INT64);
    return g;
}

// A branch whose output is an empty INT64 constant of `dims` (torchvision's
// batched_nms with no boxes).
onnx::GraphProto empty_branch(const std::string& name, std::vector<int64_t> dims) {
    onnx::GraphProto g;
    g.set_name(name);
    auto* n = g.add_node();
    n->set_op_type("Constant");
    n->set_name(name + "_empty");
    n->add_output(name + "_out");
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(OnnxType::INT64);
    for (int64_t d : dims) a->mutable_t()->add_dims(d);
    auto* o = g.add_output();
    o->set_name(name + "_out");
    o->mutable_type()->mutable_tensor_type()->set_elem_type(OnnxType::INT64);
    return g;
}

OnnxModel empty_or_positions(bool empty_then, std::vector<int64_t> x_dims) {
    OnnxModel m(13);
    const bool rows = x_dims.size() == 2;
    m.input("x", x_dims).input("cond", {}, OnnxType::BOOL).output("y", OnnxType::INT64);
    m.initializer("zero", {}, {0.0f});
    m.initializer_i64("flat", {1}, {-1});
    auto& n = m.node("If", {"cond"}, {"y"}, "if");
    set_branch(n, "then_branch",
               empty_then ? empty_branch("then", rows ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{0})
                          : positions_branch("then", rows));
    set_branch(n, "else_branch",
               empty_then
                   ? positions_branch("else", rows)
                   : empty_branch("else", rows ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{0}));
    return m;
}

// ONNX's If gives the branch the condition picks: the empty constant when it
// picks that one, else the positions. MegEngine holds no empty constant; the
// output is a CondTake of the positions by the condition, which takes all or none.
TEST(OnnxIf, AnEmptyBranchAgainstARunTimeLengthTakesAllOrNoneOfTheOther) {
    for (bool empty_then : {true, false}) {
        SCOPED_TRACE(empty_then ? "empty then_branch" : "empty else_branch");
        ir::Graph vector = empty_or_positions(empty_then, {5}).import();
        const D x{1, -1, 2, 0, 3};
        const double picks_positions = empty_then ? 0 : 1;
        EXPECT_EQ(evaluate_values(vector, {{"x", x}, {"cond", {picks_positions}}}), (D{0, 2, 4}));
        EXPECT_EQ(evaluate_values(vector, {{"x", x}, {"cond", {1 - picks_positions}}}), D{});
        expect_same_ops_after_round_trip(vector);

        // Rows of a matrix: (row, column) of each positive element, reshaped back to [k, 2].
        ir::Graph matrix = empty_or_positions(empty_then, {2, 2}).import();
        const auto out = evaluate(matrix, {{"x", {1, -1, 0, 2}}, {"cond", {picks_positions}}});
        EXPECT_EQ(dims_of(out.at(0)), (std::vector<uint32_t>{2, 2}));
        EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 0, 1, 1}));
        EXPECT_EQ(evaluate_values(matrix, {{"x", {1, -1, 0, 2}}, {"cond", {1 - picks_positions}}}), D{});
    }
}

TEST(OnnxIf, AnEmptyBranchNeedsTheOthersTypeAndRank) {
    OnnxModel m(13);
    m.input("x", {5}).input("cond", {}, OnnxType::BOOL).output("y", OnnxType::INT64);
    m.initializer("zero", {}, {0.0f});
    m.initializer_i64("flat", {1}, {-1});
    auto& n = m.node("If", {"cond"}, {"y"}, "if");
    set_branch(n, "then_branch", empty_branch("then", {0, 2}));
    set_branch(n, "else_branch", positions_branch("else", false));
    EXPECT_EQ(
        import_error(m),
        "test.onnx: node 'if' (If): the condition is known only at run time, and output #0 is the empty "
        "INT64 "
        "[0,2] in one branch but INT64 [-1] in the other: an empty branch is supported against one of its "
        "type and rank whose dims past the first are known and its own");
    // Of the same rank but another trailing dim: ONNX's empty result would be [0,3], the positions' [0,2].
    OnnxModel wider(13);
    wider.input("x", {2, 2}).input("cond", {}, OnnxType::BOOL).output("y", OnnxType::INT64);
    wider.initializer("zero", {}, {0.0f});
    wider.initializer_i64("flat", {1}, {-1});
    auto& w = wider.node("If", {"cond"}, {"y"}, "if");
    set_branch(w, "then_branch", empty_branch("then", {0, 3}));
    set_branch(w, "else_branch", positions_branch("else", true));
    const std::string e = import_error(wider);
    EXPECT_NE(e.find("output #0 is the empty INT64 [0,3] in one branch but INT64 [-1,2] in the other"),
              std::string::npos)
        << e;
}

// The one error that lists unsupported operators looks inside the branches too.
TEST(OnnxIf, AnUnsupportedOperatorInABranchIsListed) {
    OnnxModel m(13);
    m.input("x", {3}).input("cond", {}, OnnxType::BOOL).output("y");
    add_if(m, "cond", "Relu", "StringNormalizer");
    EXPECT_EQ(import_error(m),
              "test.onnx: 1 operator type cannot be converted (formats/onnx/ONNX_IMPORT.md lists the "
              "supported ones): "
              "StringNormalizer (1 node, first 'else_StringNormalizer')");
}

// A value a branch reads is read by the If: a Conv output that a branch also reads
// has two readers, so the BatchNormalization after it is not folded into the Conv
// (which would give the branch the normalized values).
TEST(OnnxIf, AValueReadInABranchCountsAsRead) {
    OnnxModel m(13);
    m.input("x", {1, 1, 1, 3}).input("cond", {}, OnnxType::BOOL).output("y").output("z");
    m.initializer("w", {1, 1, 1, 1}, {2.0f});
    for (const char* p : {"gamma", "beta", "mean", "var"})
        m.initializer(p, {1}, {std::string(p) == "gamma" ? 3.0f : std::string(p) == "var" ? 1.0f : 0.0f});
    m.node("Conv", {"x", "w"}, {"c"});
    set_attr(m.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"y"}), "epsilon", 0.0f);
    auto& n = m.node("If", {"cond"}, {"z"}, "if");
    set_branch(n, "then_branch", unary_branch("then", "Relu", "c", "t", {1, 1, 1, 3}));
    set_branch(n, "else_branch", unary_branch("else", "Neg", "c", "e", {1, 1, 1, 3}));
    const auto out = evaluate(m.import(), {{"x", kX}, {"cond", {1}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{-6, 0, 12}));  // 3 · (2x)
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{0, 0, 4}));   // Relu(2x)
}

TEST(OnnxIf, ABranchMayNotRedefineANameOfTheModel) {
    OnnxModel m(13);
    m.input("x", {3}).input("cond", {}, OnnxType::BOOL).output("y");
    m.node("Neg", {"x"}, {"t"});
    add_if(m, "cond");  // then_branch defines "t" again
    EXPECT_EQ(
        import_error(m),
        "test.onnx: node 'if' (If): subgraph 'then' defines 't', a name the enclosing graph already has");
}

}  // namespace
}  // namespace mgedump::test
