#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/order.h"

namespace mgedump::ir {
namespace {

const DType kF32 = DType::of(DTypeEnum::Float32);

std::vector<std::string> names_in_order(const Graph& g) {
    std::vector<std::string> out;
    for (OprId o : dump_order(g)) out.emplace_back(g.str(g.oprs.name[o.value]));
    return out;
}

OpOptions named(const char* n) {
    OpOptions o;
    o.name = n;
    return o;
}

TEST(DumpOrder, IsPostOrderFromOutputsInInputIndexOrder) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId y = b.input("y", kF32, {2});
    // Created in the "wrong" order on purpose: dump order follows the outputs, not creation.
    VarId r = b.op("Elemwise", {y}, {{"mode", "RELU"}}, named("r"));
    VarId e = b.op("Elemwise", {x}, {{"mode", "EXP"}}, named("e"));
    VarId s = b.op("Elemwise", {e, r}, {{"mode", "ADD"}}, named("s"));
    b.output(s, "s");
    Graph g = b.finish();
    EXPECT_EQ(names_in_order(g), (std::vector<std::string>{"x", "e", "y", "r", "s"}));
}

TEST(DumpOrder, SharedSubExpressionIsEmittedOnce) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId shared = b.op("Elemwise", {x}, {{"mode", "EXP"}}, named("shared"));
    VarId a = b.op("Elemwise", {shared, x}, {{"mode", "ADD"}}, named("a"));
    VarId m = b.op("Elemwise", {shared, a}, {{"mode", "MUL"}}, named("m"));
    b.output(m, "m");
    Graph g = b.finish();
    EXPECT_EQ(names_in_order(g), (std::vector<std::string>{"x", "shared", "a", "m"}));
}

TEST(DumpOrder, SeveralOutputsAreWalkedInTheOrderGiven) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId p = b.op("Elemwise", {x}, {{"mode", "RELU"}}, named("p"));
    VarId q = b.op("Elemwise", {x}, {{"mode", "EXP"}}, named("q"));
    VarId unused = b.op("Elemwise", {x}, {{"mode", "LOG"}}, named("unused"));
    (void)unused;
    b.output(q, "q");
    b.output(p, "p");
    Graph g = b.finish();
    // Unreachable operators are not dumped.
    EXPECT_EQ(names_in_order(g), (std::vector<std::string>{"x", "q", "p"}));
}

TEST(VarNumbering, IsDenseInDumpOrderAndSkipsVolatileVars) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2});
    VarId p = b.op("Elemwise", {x}, {{"mode", "RELU"}}, named("p"));
    VarId q = b.op("Elemwise", {x, p}, {{"mode", "ADD"}}, named("q"));
    b.output(q, "q");
    Graph g = b.finish();
    g.vars.flags[p.value] |= kVarVolatile;  // as a rewrite may mark them
    auto order = dump_order(g);
    VarNumbering n = number_vars(g, order);
    EXPECT_EQ(n.count, 2u);
    EXPECT_EQ(n.compact_id[x.value], 0u);
    EXPECT_EQ(n.compact_id[p.value], VarNumbering::kNone);
    EXPECT_EQ(n.compact_id[q.value], 1u);
}

TEST(DumpOrder, DeepChainsDoNotOverflowTheStack) {
    GraphBuilder b;
    VarId v = b.input("x", kF32, {1});
    for (int i = 0; i < 200000; ++i) v = b.op("Elemwise", {v}, {{"mode", "RELU"}});
    b.output(v, "out");
    Graph g = b.finish();
    EXPECT_EQ(dump_order(g).size(), 200001u);
}

}  // namespace
}  // namespace mgedump::ir
