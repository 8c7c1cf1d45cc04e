// Loop and Scan, unrolled at import. Expected values follow from ONNX's definitions
// of the operators (Loop: the body runs while i < M and cond, its carried values
// feeding the next run, its scan outputs stacked on a new axis 0; Scan: the body runs
// once per slice of the scan inputs, in the given direction) and the body's own
// operators. ONNX's test_scan_sum and test_scan9_sum run in tests/eval/onnx_testdata_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

void typed(onnx::ValueInfoProto* v, const std::string& name, int32_t type, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* body_node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> in,
                           std::vector<std::string> out) {
    auto* n = g.add_node();
    n->set_op_type(op);
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
    return n;
}

void set_body(onnx::NodeProto& n, onnx::GraphProto g) {
    auto* a = n.add_attribute();
    a->set_name("body");
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = std::move(g);
}

// A Scan body over rows of two floats: the state plus the row is the next state
// (s_out) and the scan output (p).
onnx::GraphProto running_sum_body() {
    onnx::GraphProto g;
    g.set_name("body");
    typed(g.add_input(), "s_in", OnnxType::FLOAT, {2});
    typed(g.add_input(), "row", OnnxType::FLOAT, {2});
    body_node(g, "Add", {"s_in", "row"}, {"s_out"});
    body_node(g, "Identity", {"s_out"}, {"p"});
    typed(g.add_output(), "s_out", OnnxType::FLOAT, {2});
    typed(g.add_output(), "p", OnnxType::FLOAT, {2});
    return g;
}

// Loop body: acc_out = acc_in + x · (i + 1) (i as FLOAT), scan out = acc_out,
// cond_out = i < `last` (or cond_in when last < 0).
onnx::GraphProto accumulating_body(int64_t last) {
    onnx::GraphProto g;
    g.set_name("body");
    typed(g.add_input(), "i", OnnxType::INT64, {});
    typed(g.add_input(), "cond_in", OnnxType::BOOL, {});
    typed(g.add_input(), "acc_in", OnnxType::FLOAT, {2});
    auto* one = g.add_initializer();
    one->set_name("one");
    one->set_data_type(OnnxType::INT64);
    const int64_t v1 = 1;
    one->set_raw_data(std::string(reinterpret_cast<const char*>(&v1), 8));
    body_node(g, "Add", {"i", "one"}, {"i1"});
    auto* cast = body_node(g, "Cast", {"i1"}, {"f"});
    set_attr(*cast, "to", int64_t{OnnxType::FLOAT});
    body_node(g, "Mul", {"x", "f"}, {"xf"});
    body_node(g, "Add", {"acc_in", "xf"}, {"acc_out"});
    body_node(g, "Identity", {"acc_out"}, {"scan"});
    if (last < 0) {
        body_node(g, "Identity", {"cond_in"}, {"cond_out"});
    } else {
        auto* lim = g.add_initializer();
        lim->set_name("last");
        lim->set_data_type(OnnxType::INT64);
        lim->set_raw_data(std::string(reinterpret_cast<const char*>(&last), 8));
        body_node(g, "Less", {"i", "last"}, {"cond_out"});
    }
    typed(g.add_output(), "cond_out", OnnxType::BOOL, {});
    typed(g.add_output(), "acc_out", OnnxType::FLOAT, {2});
    typed(g.add_output(), "scan", OnnxType::FLOAT, {2});
    return g;
}

OnnxModel loop_model(int64_t trips, int64_t last, bool runtime_trips = false) {
    OnnxModel m(13);
    m.input("x", {2}).input("acc", {2}).output("final").output("all");
    if (runtime_trips)
        m.input("M", {}, OnnxType::INT64);
    else
        m.initializer_i64("M", {}, {trips});
    auto& n = m.node("Loop", {"M", "", "acc"}, {"final", "all"}, "loop");
    set_body(n, accumulating_body(last));
    return m;
}

// acc + x·1, + x·2, + x·3 with x = (1, 10), acc = (0, 0): (1, 10), (3, 30), (6, 60).
TEST(OnnxLoop, AConstantTripCountIsUnrolled) {
    ir::Graph g = loop_model(3, -1).import();
    const auto out = evaluate(g, {{"x", {1, 10}}, {"acc", {0, 0}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{6, 60}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{1, 10, 3, 30, 6, 60}));
    EXPECT_EQ(out.at(1).value.shape(), ir::Shape::of({3, 2}));
    // Written and read back, it computes the same (the first run's x · 1 is the
    // Elemwise MegEngine's make drops, so the file has one fewer).
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        const auto back = evaluate(dumped_and_loaded(g, format).graph, {{"x", {1, 10}}, {"acc", {0, 0}}});
        EXPECT_EQ(engine::eval::to_doubles(back.at(1).value), (D{1, 10, 3, 30, 6, 60}));
    }
}

// cond_out = i < 1: runs 0 and 1 happen, then the loop stops before M.
TEST(OnnxLoop, AConditionOutKnownAtImportStopsTheUnrolling) {
    const auto out = evaluate(loop_model(5, 1).import(), {{"x", {1, 10}}, {"acc", {0, 0}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{3, 30}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{1, 10, 3, 30}));
}

TEST(OnnxLoop, ATripCountKnownOnlyAtRunTimeIsRefused) {
    EXPECT_EQ(import_error(loop_model(0, -1, true)),
              "test.onnx: node 'loop' (Loop): M (the trip count) (input #0) must be a constant known at "
              "import time");
}

TEST(OnnxLoop, AnUnrolledGraphIsBounded) {
    EXPECT_EQ(
        import_error(loop_model(30000, -1)),
        "test.onnx: node 'loop' (Loop): unrolling 30000 runs of a 6-node body would write more than 100000 "
        "operators");
    // The bound is checked without multiplying, so the largest trip count does not wrap.
    EXPECT_EQ(
        import_error(loop_model(std::numeric_limits<int64_t>::max(), -1)),
        "test.onnx: node 'loop' (Loop): unrolling 9223372036854775807 runs of a 6-node body would write more "
        "than 100000 operators");
}

// Scan-9: running sum of the rows of x, the scan input read backwards and the scan
// output stacked along axis 1.
TEST(OnnxScan, ReverseDirectionAndAnotherOutputAxis) {
    OnnxModel m(11);
    m.input("init", {2}).input("x", {3, 2}).output("sum").output("partial");
    auto& n = m.node("Scan", {"init", "x"}, {"sum", "partial"}, "scan");
    set_attr(n, "num_scan_inputs", int64_t{1});
    set_attr(n, "scan_input_directions", std::vector<int64_t>{1});
    set_attr(n, "scan_output_axes", std::vector<int64_t>{1});
    set_body(n, running_sum_body());
    const auto out = evaluate(m.import(), {{"init", {0, 100}}, {"x", {1, 2, 3, 4, 5, 6}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{9, 112}));
    // Rows 5,6 then 3,4 then 1,2: partial sums (5, 106), (8, 110), (9, 112), stacked on axis 1.
    EXPECT_EQ(out.at(1).value.shape(), ir::Shape::of({2, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{5, 8, 9, 106, 110, 112}));
}

// Scan axes count from the end when negative (x [3, 2]: input axis -2 is axis 0;
// the stacked [2] rows give a [2, 3] output, whose axis -1 is axis 1), so this is
// the test above with the axes spelled from the end. An axis outside [-rank, rank)
// is refused with the value written in the model.
OnnxModel scan9_with_axes(int64_t input_axis, int64_t output_axis) {
    OnnxModel m(11);
    m.input("init", {2}).input("x", {3, 2}).output("sum").output("partial");
    auto& n = m.node("Scan", {"init", "x"}, {"sum", "partial"}, "scan");
    set_attr(n, "num_scan_inputs", int64_t{1});
    set_attr(n, "scan_input_directions", std::vector<int64_t>{1});
    set_attr(n, "scan_input_axes", std::vector<int64_t>{input_axis});
    set_attr(n, "scan_output_axes", std::vector<int64_t>{output_axis});
    set_body(n, running_sum_body());
    return m;
}

TEST(OnnxScan, NegativeAxesCountFromTheEnd) {
    const auto out = evaluate(scan9_with_axes(-2, -1).import(), {{"init", {0, 100}}, {"x", {1, 2, 3, 4, 5, 6}}});
    EXPECT_EQ(out.at(1).value.shape(), ir::Shape::of({2, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{5, 8, 9, 106, 110, 112}));
}

TEST(OnnxScan, AnAxisOutsideTheRankIsRefusedAsWritten) {
    EXPECT_EQ(import_error(scan9_with_axes(-3, 0)),
              "test.onnx: node 'scan' (Scan): scan input #0: axis -3 is outside its rank 2");
    EXPECT_EQ(import_error(scan9_with_axes(0, 2)),
              "test.onnx: node 'scan' (Scan): scan output #0: axis 2 is outside its rank 2");
}

// Scan-8 (the batch axis first, ONNX's test_scan_sum): the state of one batch
// element is its row of each state. A state without that axis, or with another
// batch size, is refused by name (a rank-0 state once reached a slice of an empty
// shape: the fuzzer's tests/fuzz/regressions/fuzz_onnx/scan8-state-of-rank-0).
static OnnxModel scan8_model(std::vector<int64_t> state_dims) {
    OnnxModel m(8);
    m.input("init", state_dims).input("x", {2, 3, 2}).output("sum").output("partial");
    auto& n = m.node("Scan", {"", "init", "x"}, {"sum", "partial"}, "scan");
    set_attr(n, "num_scan_inputs", int64_t{1});
    set_body(n, running_sum_body());
    return m;
}

TEST(OnnxScan, Scan8SumsEachBatchElementApart) {
    const auto out = evaluate(scan8_model({2, 2}).import(),
                              {{"init", {0, 0, 100, 100}}, {"x", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{9, 12, 127, 130}));
}

// The positional inputs before the carried values (size_t counts that would wrap).
TEST(OnnxLoop, TooFewPositionalInputsAreRefused) {
    OnnxModel loop(11);
    loop.input("m", {}).output("y");
    set_body(loop.node("Loop", {"m"}, {"y"}, "loop"), onnx::GraphProto());
    EXPECT_EQ(import_error(loop), "test.onnx: node 'loop' (Loop): has 1 inputs; Loop takes M and cond first (either may be \"\")");
    OnnxModel scan(8);
    scan.output("y");
    set_body(scan.node("Scan", {}, {"y"}, "scan"), onnx::GraphProto());
    EXPECT_EQ(import_error(scan),
              "test.onnx: node 'scan' (Scan): has 0 inputs; Scan-8 takes sequence_lens first (\"\" when omitted), "
              "then the states and scan inputs");
}

TEST(OnnxScan, Scan8StatesWithoutTheBatchAxisAreRefused) {
    EXPECT_EQ(import_error(scan8_model({})),
              "test.onnx: node 'scan' (Scan): state #0 has shape []: Scan-8's states take the batch axis first, "
              "of size 2");
    EXPECT_EQ(import_error(scan8_model({3, 2})),
              "test.onnx: node 'scan' (Scan): state #0 has shape [3,2]: Scan-8's states take the batch axis "
              "first, of size 2");
}

}  // namespace
}  // namespace mgedump::test
