// dump_graph walks the graph once up front (engine/dump.cpp) and shares that walk
// with the checks: a graph it cannot walk is still refused with the operator
// named, with or without the compatibility rewrites, and nothing is written.
#include <gtest/gtest.h>

#include "engine/dump.h"
#include "ir/builder.h"
#include "ir/error.h"

namespace mgedump::engine {
namespace {

const ir::DType kF32 = ir::DType::of(ir::DTypeEnum::Float32);

ir::OpOptions named(const char* n) {
    ir::OpOptions o;
    o.name = n;
    return o;
}

// x -> a = x + x -> c = a * x -> out; `break_it` then spoils the graph.
template <class Break>
ir::Graph spoiled(Break&& break_it) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {2});
    ir::VarId a = b.op("Elemwise", {x, x}, {{"mode", "ADD"}}, named("a"));
    ir::VarId c = b.op("Elemwise", {a, x}, {{"mode", "MUL"}}, named("c"));
    b.output(c, "out");
    ir::Graph g = b.graph();
    break_it(g, a, c);
    return g;
}

std::string dump_error(const ir::Graph& g, bool no_change_graph) {
    DumpOptions options;
    options.no_change_graph = no_change_graph;
    std::vector<std::byte> out;
    try {
        dump_graph(g, options, nullptr, [&](uint64_t n) {
            out.resize(n);
            return std::span<std::byte>(out);
        });
    } catch (const GraphError& e) {
        EXPECT_TRUE(out.empty()) << "bytes were produced for a refused graph";
        return e.what();
    }
    return "";
}

TEST(DumpInvalidGraph, ACycleIsRefusedNamingTheOperator) {
    const ir::Graph g = spoiled([](ir::Graph& g, ir::VarId a, ir::VarId c) {
        g.opr_inputs[g.oprs.inputs[g.vars.owner[a.value].value].begin] = c;  // a now reads c
    });
    for (bool no_change : {false, true}) {
        const std::string e = dump_error(g, no_change);
        EXPECT_NE(e.find("cycle"), std::string::npos) << e;
        EXPECT_NE(e.find("'a'"), std::string::npos) << e;
    }
}

TEST(DumpInvalidGraph, ADanglingInputIsRefusedNamingTheOperatorAndVar) {
    const ir::Graph g = spoiled([](ir::Graph& g, ir::VarId, ir::VarId c) {
        g.opr_inputs[g.oprs.inputs[g.vars.owner[c.value].value].begin] = ir::VarId(999);
    });
    for (bool no_change : {false, true}) {
        const std::string e = dump_error(g, no_change);
        EXPECT_NE(e.find("'c'"), std::string::npos) << e;
        EXPECT_NE(e.find("var 999"), std::string::npos) << e;
    }
}

TEST(DumpInvalidGraph, AVolatileOutputIsRefused) {
    const ir::Graph g = spoiled([](ir::Graph& g, ir::VarId, ir::VarId c) { g.vars.flags[c.value] |= ir::kVarVolatile; });
    for (bool no_change : {false, true}) {
        const std::string e = dump_error(g, no_change);
        EXPECT_NE(e.find("volatile"), std::string::npos) << e;
    }
}

}  // namespace
}  // namespace mgedump::engine
