// The evaluator's bounds on hostile models (engine/eval/work_budget.h): the work
// estimate of the operators whose outputs each take a dot product or a window,
// worked out by hand from their shapes, and the refusals past max_work and
// max_value_bytes, which come before the operator runs (a graph that would take
// hours or terabytes is refused at once).
#include <gtest/gtest.h>

#include "ir/infer.h"
#include "ir/order.h"
#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

// The work estimate of the graph's last operator, whose inputs `b` built.
uint64_t work_of_last_operator(GraphBuilder& b, VarId y) {
    b.output(y, "y");
    const ir::Graph g = b.finish();
    ir::InferState state;
    state.resize(g.vars.size());
    const std::vector<ir::OprId> order = ir::dump_order(g);
    for (ir::OprId o : order) ir::infer_operator(g, o, state);
    return engine::eval::estimate_work(ir::InferContext(g, order.back(), state), state);
}

template <class F>
std::string limit_error_of(F&& f) {
    try {
        f();
    } catch (const LimitError& e) {
        return e.what();
    }
    return "(no LimitError)";
}

TEST(WorkBudget, AMatrixProductCountsEachOutputTimesTheSharedDimension) {
    // [2,3]·[3,4]: 6 + 12 elements read, 8 written, 8·3 multiply-adds.
    GraphBuilder b;
    VarId y = b.op("MatrixMul", {b.input("a", F32, {2, 3}), b.input("b", F32, {3, 4})});
    EXPECT_EQ(work_of_last_operator(b, y), 6u + 12 + 8 + 8 * 3);
}

TEST(WorkBudget, ATransposedMatrixProductTakesTheSharedDimensionFromTheOtherAxis) {
    // Aᵀ with A [5,2]: the product is [2,4], shared dimension 5.
    GraphBuilder b;
    VarId y = b.op("MatrixMul", {b.input("a", F32, {5, 2}), b.input("b", F32, {5, 4})},
                   {{"transposeA", ir::ParamArg(true)}});
    EXPECT_EQ(work_of_last_operator(b, y), 10u + 20 + 8 + 8 * 5);
}

TEST(WorkBudget, AConvolutionCountsItsFilterPerOutputChannelForEachOutputElement) {
    // Input [1,3,8,8] (192), filter [4,3,3,3] (108), output [1,4,6,6] (144): each of
    // the 144 output elements is a dot product of 3·3·3 = 27.
    GraphBuilder b;
    VarId y = b.op("Convolution", {b.input("x", F32, {1, 3, 8, 8}), b.input("w", F32, {4, 3, 3, 3})});
    EXPECT_EQ(work_of_last_operator(b, y), 192u + 108 + 144 + 144 * 27);
}

TEST(WorkBudget, ALargeFilterOverASmallOutputIsNotCountedTwice) {
    // regnet's late stages: filter [512,512,3,3] (2,359,296) over a [1,512,3,3]
    // input padded to a [1,512,3,3] output (4,608): 4,608 dot products of
    // 512·3·3 = 4,608, not the filter's elements times that.
    GraphBuilder b;
    VarId y = b.op("Convolution", {b.input("x", F32, {1, 512, 3, 3}), b.input("w", F32, {512, 512, 3, 3})},
                   {{"pad_h", ir::ParamArg(1)}, {"pad_w", ir::ParamArg(1)}});
    EXPECT_EQ(work_of_last_operator(b, y), 4608u + 2359296 + 4608 + 4608 * 4608);
}

TEST(WorkBudget, AGroupConvolutionCountsOneGroupsInputChannelsPerOutputElement) {
    // 4 groups of 2 → 3 channels: filter [4,3,2,3,3] (216), input [1,8,5,5] (200),
    // output [1,12,3,3] (108), each output element a dot product of 2·3·3 = 18.
    GraphBuilder b;
    VarId y = b.op("Convolution", {b.input("x", F32, {1, 8, 5, 5}), b.input("w", F32, {4, 3, 2, 3, 3})},
                   {{"sparse", ir::ParamArg("GROUP")}});
    EXPECT_EQ(work_of_last_operator(b, y), 200u + 216 + 108 + 108 * 18);
}

TEST(WorkBudget, ABackwardDataConvolutionCountsTheForwardProducts) {
    // The gradient [1,4,6,6] (144) through filter [4,3,3,3] (108) to [1,3,8,8] (192):
    // the forward convolution's 144·27 multiply-adds.
    GraphBuilder b;
    VarId y = b.op("ConvolutionBackwardData",
                   {b.input("w", F32, {4, 3, 3, 3}), b.input("dy", F32, {1, 4, 6, 6})});
    EXPECT_EQ(work_of_last_operator(b, y), 108u + 144 + 192 + 144 * 27);
}

TEST(WorkBudget, PoolingCountsItsWindowPerOutputElement) {
    // [1,1,4,4] max-pooled 2×2 with stride 2: 16 read, 4 written, 4·4 compared.
    GraphBuilder b;
    VarId y = b.op("Pooling", {b.input("x", F32, {1, 1, 4, 4})},
                   {{"window_h", ir::ParamArg(2)}, {"window_w", ir::ParamArg(2)},
                    {"stride_h", ir::ParamArg(2)}, {"stride_w", ir::ParamArg(2)},
                    {"pad_h", ir::ParamArg(0)}, {"pad_w", ir::ParamArg(0)}});
    EXPECT_EQ(work_of_last_operator(b, y), 16u + 4 + 4 * 4);
}

TEST(WorkBudget, NMSKeepCountsEachBoxAgainstTheBoxesItMayKeep) {
    // Boxes [2,50,4] (400), kept indices [2,10] and counts [2] (22): each of the
    // 100 boxes is checked against at most max_output = 10 kept before it.
    GraphBuilder b;
    VarId y =
        b.op("NMSKeep", {b.input("boxes", F32, {2, 50, 4})}, {{"iou_thresh", 0.5f}, {"max_output", 10}});
    EXPECT_EQ(work_of_last_operator(b, y), 400u + 22 + 100 * 10);
    // max_output past the box count: at most the 50 boxes before it.
    GraphBuilder c;
    VarId z =
        c.op("NMSKeep", {c.input("boxes", F32, {2, 50, 4})}, {{"iou_thresh", 0.5f}, {"max_output", 80}});
    EXPECT_EQ(work_of_last_operator(c, z), 400u + 160 + 2 + 100 * 50);
}

TEST(WorkBudget, AnElementwiseOperatorCountsWhatItReadsAndWrites) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 5});
    VarId y = b.op("Elemwise", {x, x}, {{"mode", ir::ParamArg("ADD")}});
    EXPECT_EQ(work_of_last_operator(b, y), 10u + 10 + 10);
}

TEST(WorkBudget, AModelPastTheWorkLimitIsRefusedBeforeTheOperatorThatCrossesIt) {
    // A [64,64] product of broadcast ones: the two constants write 1 + 2 elements,
    // the Broadcast reads them and writes 4096; the product reads 2·4096, writes
    // 4096 and takes 4096·64 multiply-adds (274,432 in all for it).
    auto model = [] {
        GraphBuilder b;
        VarId one = b.constant<float>({1}, {1.0f});
        VarId a = b.op("Broadcast", {one, b.constant<int32_t>({2}, {64, 64})});
        b.output(b.op("MatrixMul", {a, a}, {}, {.name = "product"}), "y");
        return b.finish();
    };
    const ir::Graph g = model();
    const uint64_t needed = 3 + (3 + 4096) + (3 * 4096 + 4096 * 64);
    const std::string what = limit_error_of([&] { (void)evaluate(g, {}, {.max_work = needed - 1}); });
    EXPECT_NE(what.find("'product' (MatrixMul): evaluating it would pass the evaluator's work limit (" +
                        std::to_string(needed) + " estimated multiply-adds so far with its 274432, the limit is " +
                        std::to_string(needed - 1) + ")"),
              std::string::npos)
        << what;
    // With exactly enough it runs: 64 ones summed.
    const std::vector<engine::eval::EvalOutput> out = evaluate(g, {}, {.max_work = needed});
    EXPECT_EQ(values(out.at(0).value).at(0), 64.0);
}

TEST(WorkBudget, AValuePastTheByteLimitIsRefusedBeforeItIsAllocated) {
    // 2^40 Float32 elements (4 TiB) from a one-element constant.
    GraphBuilder b;
    VarId one = b.constant<float>({1}, {1.0f});
    VarId y = b.op("Broadcast", {one, b.constant<int32_t>({2}, {1 << 20, 1 << 20})}, {}, {.name = "wide"});
    b.output(y, "y");
    const ir::Graph g = b.finish();
    const std::string what = limit_error_of([&] { (void)evaluate(g, {}); });
    EXPECT_NE(what.find("'wide' (Broadcast): output"), std::string::npos) << what;
    EXPECT_NE(what.find("[1048576,1048576] is 4398046511104 bytes, more than the evaluator's limit of 17179869184"),
              std::string::npos)
        << what;
}

TEST(WorkBudget, TheDefaultLimitsLetAnOrdinaryModelRun) {
    GraphBuilder b;
    VarId y = b.op("MatrixMul", {floats(b, {1, 2}, {1, 2}), floats(b, {2, 1}, {3, 4})});
    expect_values(run1(b, y), {1, 1}, {11});
}

}  // namespace
}  // namespace mgedump::test
