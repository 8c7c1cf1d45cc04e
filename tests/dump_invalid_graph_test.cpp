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

std::string dump_error(const ir::Graph& g, bool no_change_graph, DumpFormat format = DumpFormat::FBS_V2) {
    DumpOptions options;
    options.no_change_graph = no_change_graph;
    options.dump_format = format;
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

TEST(DumpInvalidGraph, FbsSoftmaxOverAnEmptyAxisIsRefusedForItsRewritesMax) {
    // FBS writes Softmax as EXP(x - MAX(x)) / SUM(...): over an empty axis with
    // rows left, that MAX throws when MegEngine runs the graph (basic_arith.cpp,
    // Reduce::KernScheduler::execute), where FBS_V2's own Softmax gives [2,0].
    auto softmax_of = [](std::vector<uint32_t> shape) {
        ir::GraphBuilder b;
        b.output(b.op("Softmax", {b.input("x", kF32, std::move(shape))}, {{"axis", 1}}, named("sm")), "p");
        return b.graph();
    };
    const ir::Graph empty_axis = softmax_of({2, 0});
    const std::string e = dump_error(empty_axis, false, DumpFormat::FBS);
    EXPECT_NE(e.find("'sm' (Softmax)"), std::string::npos) << e;
    EXPECT_NE(e.find("MAX of an empty input [2,0]"), std::string::npos) << e;
    EXPECT_NE(e.find("no_change_graph"), std::string::npos) << e;
    EXPECT_EQ(dump_error(empty_axis, false, DumpFormat::FBS_V2), "");
    // No rows: the MAX's output is empty too, and MegEngine returns before it.
    EXPECT_EQ(dump_error(softmax_of({0, 5}), false, DumpFormat::FBS), "");
}

}  // namespace
}  // namespace mgedump::engine
