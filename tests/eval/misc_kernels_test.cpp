// The misc family's kernels (engine/eval/kernels_misc.cpp, misc_random.cpp,
// misc_attention.cpp, misc_nms.cpp) on small graphs.
//
// The random-number expectations come from an independent Python transcription
// of MegDNN's definitions (dnn/src/naive/rng/opr_impl.cpp: splitmix64 seeding,
// xoroshiro128+, uniform_int2float, Box-Muller in float32 with numpy's float32
// log/sqrt/cos/sin; dnn/src/naive/dropout: keep where draw >= p, scale 1/(1-p)).
// The same transcription reproduces MegEngine's own outputs in
// megengine-dumps/opmatrix.{UniformRNG,GaussianRNG,Dropout}. MultiHeadAttn's
// expectations are a float64 numpy implementation of proxy_forward_base.cpp
// (projections, heads split by reshape/transpose or repeated, softmax(scale·
// q·kᵀ + mask)·v, heads merged, output projection).
#include <gtest/gtest.h>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

VarId shape_const(GraphBuilder& b, std::initializer_list<int32_t> dims) {
    return b.constant<int32_t>({static_cast<uint32_t>(dims.size())}, dims);
}

TEST(MiscKernels, UniformRNGDrawsMegDNNsSequenceFromTheSeed) {
    GraphBuilder b;
    VarId a = b.op("UniformRNG", {shape_const(b, {5})}, {{"seed", ParamArg{uint64_t{0}}}});
    // A seed above 2^63 (UInt64 param) is used as is.
    VarId c = b.op("UniformRNG", {shape_const(b, {3})}, {{"seed", ParamArg{(uint64_t{1} << 63) + 5}}});
    // Float16: 10 mantissa bits per draw, so multiples of 2^-10 in (0, 1].
    VarId h =
        b.op("UniformRNG", {shape_const(b, {2, 2})}, {{"seed", ParamArg{uint64_t{9}}}, {"dtype", "Float16"}});
    const auto out = run(b, {a, c, h});
    EXPECT_EQ(values(out[0]), (std::vector<double>{0.6851612329483032, 0.9979196786880493, 0.9360051155090332,
                                                   0.7517716884613037, 0.6216673851013184}));
    EXPECT_EQ(values(out[1]),
              (std::vector<double>{0.5982999801635742, 0.5452289581298828, 0.712637186050415}));
    EXPECT_EQ(out[2].dtype().type, DTypeEnum::Float16);
    EXPECT_EQ(values(out[2]), (std::vector<double>{0.5673828125, 0.4658203125, 0.09765625, 0.41796875}));
}

TEST(MiscKernels, GaussianRNGOddLengthKeepsTheCosineOfTheLastPair) {
    GraphBuilder b;
    VarId g = b.op("GaussianRNG", {shape_const(b, {5})},
                   {{"seed", ParamArg{uint64_t{11}}}, {"mean", -1.0f}, {"std", 2.0f}});
    const auto out = run(b, {g});
    // Within one float32 ulp: numpy's float32 log/cos/sin may differ from libm's by one.
    expect_near(values(out[0]),
                {-0.11770278215408325, -3.4769160747528076, 0.2942415475845337, 0.3507988452911377,
                 3.4223923683166504},
                1e-6);
}

TEST(MiscKernels, DropoutKeepsWhereTheDrawIsAtLeastTheProbability) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {8});
    VarId d = b.op("Dropout", {x}, {{"drop_prob", 0.5f}, {"seed", ParamArg{uint64_t{3}}}});
    const auto out = run(b, {d, VarId(d.value + 1)}, {{"x", tensor(F32, {8}, {1, 2, 3, 4, 5, 6, 7, 8})}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 4, 0, 8, 0, 12, 0, 0}));
    EXPECT_EQ(out[1].dtype().type, DTypeEnum::Byte);
    EXPECT_EQ(values(out[1]), (std::vector<double>{0, 1, 0, 1, 0, 1, 0, 0}));
}

TEST(MiscKernels, DropoutWithProbabilityZeroIsTheIdentity) {
    GraphBuilder b;
    VarId x = b.input("x", F16, {4});
    VarId d = b.op("Dropout", {x}, {{"seed", ParamArg{uint64_t{77}}}});
    const auto out =
        run(b, {d, VarId(d.value + 1)}, {{"x", tensor(F16, {4}, {-1.5, 0, 65504, 0.0009765625})}});
    EXPECT_EQ(out[0].dtype().type, DTypeEnum::Float16);
    EXPECT_EQ(values(out[0]), (std::vector<double>{-1.5, 0, 65504, 0.0009765625}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{1, 1, 1, 1}));
}

TEST(MiscKernels, CondTakeOnFloatsComparesWithinEpsAndNaNIsNeverEqual) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3});
    VarId eq = b.op("CondTake", {x, x}, {{"mode", "EQ"}, {"val", 0.5f}, {"eps", 0.02f}});
    VarId ne = b.op("CondTake", {x, x}, {{"mode", "NEQ"}, {"val", 0.5f}, {"eps", 0.02f}});
    VarId none = b.op("CondTake", {x, x}, {{"mode", "GT"}, {"val", 100.0f}});
    const double nan = std::nan("");
    const auto out = run(b, {eq, VarId(eq.value + 1), ne, VarId(ne.value + 1), none},
                         {{"x", tensor(F32, {2, 3}, {1.0, 0.5, 0.51, 2, nan, 0.495})}});
    // |0.5 - x| < 0.02; NEQ is its negation, so it takes NaN
    EXPECT_EQ(values(out[0]),
              (std::vector<double>{0.5, static_cast<float>(0.51), static_cast<float>(0.495)}));
    EXPECT_EQ(out[1].dtype().type, DTypeEnum::Int32);
    EXPECT_EQ(values(out[1]), (std::vector<double>{1, 2, 5}));
    const std::vector<double> ne_values = values(out[2]);
    ASSERT_EQ(ne_values.size(), 3u);
    EXPECT_EQ(ne_values[0], 1);
    EXPECT_EQ(ne_values[1], 2);
    EXPECT_TRUE(std::isnan(ne_values[2]));
    EXPECT_EQ(values(out[3]), (std::vector<double>{0, 3, 4}));
    EXPECT_EQ(dims(out[4]), (std::vector<uint32_t>{0}));
}

TEST(MiscKernels, CondTakeOnIntegerAndBoolMasksConvertsValToTheMaskType) {
    GraphBuilder b;
    VarId d = b.input("d", I8, {4}), m = b.input("m", I32, {4});
    // val 1.5 is 1 as an Int32: LT takes x < 1; -0.5 is 0: GEQ takes x >= 0.
    VarId lt = b.op("CondTake", {d, m}, {{"mode", "LT"}, {"val", 1.5f}});
    VarId ge = b.op("CondTake", {d, m}, {{"mode", "GEQ"}, {"val", -0.5f}});
    VarId bm = b.input("bm", BOOL, {4});
    VarId bt = b.op("CondTake", {d, bm}, {{"mode", "EQ"}, {"val", 3.0f}});
    const auto out = run(b, {VarId(lt.value + 1), VarId(ge.value + 1), bt},
                         {{"d", tensor(I8, {4}, {10, 20, 30, 40})},
                          {"m", tensor(I32, {4}, {0, 1, 2, -1})},
                          {"bm", tensor(BOOL, {4}, {1, 0, 0, 1})}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 3}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{0, 1, 2}));
    EXPECT_EQ(values(out[2]), (std::vector<double>{10, 40}));
}

// NMSKeep as standalone/nms_cpu.cpp computes it, worked by hand: boxes in the
// order given; box i is kept unless intersection > (area_i + area_j −
// intersection) · iou_thresh for a kept j before it; the row ends with the last
// kept index repeated.
TEST(MiscKernels, NMSKeepKeepsGreedilyInTheGivenOrderAndRepeatsTheLastKept) {
    GraphBuilder b;
    VarId boxes = b.input("boxes", F32, {2, 4, 4});
    VarId kept = b.op("NMSKeep", {boxes}, {{"iou_thresh", 0.5f}, {"max_output", 3}});
    VarId one = b.op("NMSKeep", {boxes}, {{"iou_thresh", 0.5f}, {"max_output", 1}});
    // Batch 0: box 1 is box 0 moved by 0.5 (intersection 1.5·2 = 3, union 5,
    // 3 > 2.5: suppressed); box 2 lies apart; box 3 touches box 2 only along an
    // edge (intersection 0: kept). Batch 1: box 1 overlaps box 0 by 1·2 = 2 of a
    // union 6 (2 > 3 fails: kept), box 2 is box 0 again (suppressed), box 3 is box 1
    // again (suppressed): two kept, the third column repeats the last, 1.
    const std::vector<double> b0{0, 0, 2, 2, 0.5, 0, 2.5, 2, 10, 10, 12, 12, 12, 10, 14, 12};
    const std::vector<double> b1{0, 0, 2, 2, 1, 0, 3, 2, 0, 0, 2, 2, 1, 0, 3, 2};
    std::vector<double> all = b0;
    all.insert(all.end(), b1.begin(), b1.end());
    const auto out = run(b, {kept, VarId(kept.value + 1), one, VarId(one.value + 1)},
                         {{"boxes", tensor(F32, {2, 4, 4}, all)}});
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(out[0].dtype().type, DTypeEnum::Int32);
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 2, 3, 0, 1, 1}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{3, 2}));
    // max_output 1: the first box of each batch, and a count of 1.
    EXPECT_EQ(values(out[2]), (std::vector<double>{0, 0}));
    EXPECT_EQ(values(out[3]), (std::vector<double>{1, 1}));
}

TEST(MiscKernels, LinspaceWithAndWithoutTheEndpoint) {
    GraphBuilder b;
    VarId start = b.constant<float>({1}, {1.0f}), stop = b.constant<float>({1}, {2.0f});
    VarId with = b.op("Linspace", {start, stop, b.constant<int32_t>({1}, {5})});
    VarId without =
        b.op("Linspace", {start, stop, b.constant<int32_t>({1}, {5})}, {{"endpoint", ParamArg{false}}});
    VarId one = b.op("Linspace", {start, stop, b.constant<int32_t>({1}, {1})});
    const auto out = run(b, {with, without, one});
    EXPECT_EQ(values(out[0]), (std::vector<double>{1, 1.25, 1.5, 1.75, 2}));
    // start + i·(stop − start)/5 in double, stored as float
    std::vector<double> want;
    for (int i = 0; i < 5; ++i) want.push_back(static_cast<float>(1.0 + i * 0.2));
    EXPECT_EQ(values(out[1]), want);
    EXPECT_EQ(values(out[2]), (std::vector<double>{1}));
}

TEST(MiscKernels, EyeOffDiagonalsAndDtypes) {
    GraphBuilder b;
    VarId below = b.op("Eye", {shape_const(b, {3, 4})}, {{"k", -1}});
    VarId far = b.op("Eye", {shape_const(b, {2, 3})}, {{"k", 5}});
    VarId sq = b.op("Eye", {shape_const(b, {2})}, {{"dtype", "Bool"}});
    VarId half = b.op("Eye", {shape_const(b, {2, 3})}, {{"k", 1}, {"dtype", "Float16"}});
    const auto out = run(b, {below, far, sq, half});
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}));
    EXPECT_EQ(values(out[1]), (std::vector<double>(6, 0)));
    EXPECT_EQ(out[2].dtype().type, DTypeEnum::Bool);
    EXPECT_EQ(values(out[2]), (std::vector<double>{1, 0, 0, 1}));
    EXPECT_EQ(values(out[3]), (std::vector<double>{0, 1, 0, 0, 0, 1}));
}

TEST(MiscKernels, AllocGivesZerosOfItsDtypeAndShape) {
    GraphBuilder b;
    VarId a = b.op("Alloc", {shape_const(b, {2, 3})}, {{"dtype", "Int16"}});
    const auto out = run(b, {a});
    EXPECT_EQ(out[0].dtype().type, DTypeEnum::Int16);
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(values(out[0]), (std::vector<double>(6, 0)));
}

ir::ParamArgs mha_params(int heads, int e, int k, int v, int qp, int kp, int vp, int op, bool bias,
                         float scaler) {
    return {{"num_heads", heads},
            {"embeding_size", e},
            {"k_size", k},
            {"v_size", v},
            {"qproj_size", qp},
            {"kproj_size", kp},
            {"vproj_size", vp},
            {"oproj_size", op},
            {"qbias", ParamArg{bias}},
            {"kbias", ParamArg{bias}},
            {"vbias", ParamArg{bias}},
            {"obias", ParamArg{bias}},
            {"sm_scaler", scaler},
            {"training", ParamArg{false}}};
}

TEST(MiscKernels, MultiHeadAttnWithProjectionsBiasesAndAUserMask) {
    GraphBuilder b;
    VarId q = b.input("q", F32, {2, 2, 4}), k = b.input("k", F32, {2, 3, 3}),
          v = b.input("v", F32, {2, 3, 2});
    VarId w = b.input("w", F32, {63}), mask = b.input("mask", F32, {2, 3});
    ir::ParamArgs p = mha_params(2, 4, 3, 2, 4, 4, 4, 3, true, 0.5f);
    p.push_back({"attn_mask_type", "USER_DEFINED_MASK"});
    p.push_back({"tensor_combination_type", "ONLY_MASK"});
    VarId o = b.op("MultiHeadAttn", {q, k, v, w, mask}, p);
    const auto out = run(
        b, {o, VarId(o.value + 1)},
        {{"q", tensor(F32, {2, 2, 4},
                      {-0.56, 0.74, -0.59, 0.84, -0.02, 0.22, 0.53, 0.04, -0.41, -0.62, -0.84, 0.48, -0.12,
                       -0.68, 0.76, -0.45})},
         {"k", tensor(F32, {2, 3, 3},
                      {-0.17, -0.41, 0.26, 0.16, 0.2, -0.47, -0.43, -0.49, -0.34, -0.71, -0.67, 0.93, 0.92,
                       -0.62, -0.95, -0.59, 0.4, 0.56})},
         {"v",
          tensor(F32, {2, 3, 2}, {-0.95, 0.16, -1, 0.03, 0.28, 0.97, -0.48, 0.6, 0.74, 0.85, -1, -0.06})},
         {"w", tensor(F32, {63}, {0.96, -0.2,  0.63,  0.09,  0.54,  -0.03, -0.94, -0.83, -0.78, -0.5,  0.93,
                                  0.26, 0.63,  0.13,  0.27,  0.62,  0.85,  0.83,  0.65,  -0.81, -0.28, -0.93,
                                  0.09, 0.59,  -0.9,  -0.62, -0.27, -0.51, 0.59,  -0.3,  0.28,  -0.01, 0.17,
                                  0.88, 0.89,  -0.78, 0.69,  -0.31, -0.8,  -0.23, 0.02,  0.92,  -0.26, -0.98,
                                  0.72, -0.78, -0.04, 0.7,   0.03,  -0.11, 0.6,   -0.96, 0.15,  -0.18, 0.97,
                                  0.6,  -0.89, -0.62, -0.1,  0.41,  -0.34, -0.28, 0.84})},
         {"mask", tensor(F32, {2, 3}, {0, -1e9, 0, 0, 0, -0.5})}});
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{2, 2, 3}));
    expect_near(values(out[0]),
                {-1.0692283, -0.21427253, 1.7752345, -1.3100848, 0.16080595, 1.7944919, -1.3181993,
                 0.14799609, 1.8199553, -1.1901186, -0.51936629, 2.0427311},
                2e-6);
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{4, 2, 3}));
    expect_near(values(out[1]), {0.45147071, 0, 0.54852929, 0.41065779, 0.36103788,  0.22830433,
                                 0.57189715, 0, 0.42810285, 0.40700529, 0.3981663,   0.19482841,
                                 0.53493917, 0, 0.46506083, 0.57945484, 0.040600643, 0.37994452,
                                 0.52704003, 0, 0.47295997, 0.16858053, 0.72246862,  0.10895085},
                1e-6);
}

TEST(MiscKernels, MultiHeadAttnWithoutProjectionsRepeatsTheInputsPerHead) {
    GraphBuilder b;
    VarId q = b.input("q", F32, {1, 2, 3}), k = b.input("k", F32, {1, 2, 3}),
          v = b.input("v", F32, {1, 2, 2});
    VarId w = b.input("w", F32, {0});
    VarId o = b.op("MultiHeadAttn", {q, k, v, w}, mha_params(2, 3, 3, 2, 0, 0, 0, 0, false, 1.0f));
    const auto out = run(b, {o, VarId(o.value + 1)},
                         {{"q", tensor(F32, {1, 2, 3}, {0.91, -0.18, 0.8, -0.34, -0.83, 0.05})},
                          {"k", tensor(F32, {1, 2, 3}, {0.32, 0.79, 0.93, 0.54, 0.52, 0.42})},
                          {"v", tensor(F32, {1, 2, 2}, {0.4, 0.53, 0.95, -0.25})},
                          {"w", Tensor(F32, ir::Shape::of({0}))}});
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{1, 2, 4}));
    expect_near(
        values(out[0]),
        {0.65315612, 0.1709786, 0.65315612, 0.1709786, 0.69200079, 0.11588979, 0.69200079, 0.11588979}, 1e-6);
    expect_near(
        values(out[1]),
        {0.53971615, 0.46028385, 0.46908947, 0.53091053, 0.53971615, 0.46028385, 0.46908947, 0.53091053},
        1e-6);
}

TEST(MiscKernels, MultiHeadAttnRefusesWhatTheNaiveKernelIgnores) {
    GraphBuilder b;
    VarId q = b.input("q", F32, {1, 2, 3}), k = b.input("k", F32, {1, 2, 3}),
          v = b.input("v", F32, {1, 2, 2});
    VarId w = b.input("w", F32, {0});
    ir::ParamArgs p = mha_params(1, 3, 3, 2, 0, 0, 0, 0, false, 1.0f);
    p.push_back({"reslink", ParamArg{true}});
    VarId o = b.op("MultiHeadAttn", {q, k, v, w}, p);
    b.output(o, "o");
    const ir::Graph g = b.finish();
    try {
        engine::eval::evaluate(g, {{"q", Tensor(F32, ir::Shape::of({1, 2, 3}))},
                                   {"k", Tensor(F32, ir::Shape::of({1, 2, 3}))},
                                   {"v", Tensor(F32, ir::Shape::of({1, 2, 2}))},
                                   {"w", Tensor(F32, ir::Shape::of({0}))}});
        ADD_FAILURE() << "reslink was not refused";
    } catch (const EvalError& e) {
        EXPECT_NE(std::string(e.what()).find("(MultiHeadAttn): reslink is not implemented"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace mgedump::test
