// The matrix-product kernels (engine/eval/kernels_matmul.cpp, gemm.cpp) against
// MegDNN's definitions (dnn/src/naive/matrix_mul/matrix_mul_helper.h
// run_matrix_mul_tpl: C[m][n] = Σ_k A(m,k)·B(k,n) with zero points subtracted,
// accumulated in the output's integer type; naive/dot: Σ a[i]·b[i] in the
// input's type). Expected values worked out by hand (the comments show the sums).
#include <gtest/gtest.h>

#include <random>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

// A = [[1, −2, 3], [4, 5, −6]], B = [[7, 8], [−9, 10], [11, −12]]:
// A·B = [[1·7 + 2·9 + 33, 8 − 20 − 36], [28 − 45 − 66, 32 + 50 + 72]] = [[58, −48], [−83, 154]].
struct TransposeCase {
    bool ta, tb;
};
class MatrixMulTransposes : public ::testing::TestWithParam<TransposeCase> {};

TEST_P(MatrixMulTransposes, GiveTheSameProduct) {
    const auto [ta, tb] = GetParam();
    const std::vector<float> a = {1, -2, 3, 4, 5, -6}, at = {1, 4, -2, 5, 3, -6};
    const std::vector<float> bm = {7, 8, -9, 10, 11, -12}, bt = {7, -9, 11, 8, 10, -12};
    GraphBuilder b;
    VarId x = floats(b, ta ? U{3, 2} : U{2, 3}, ta ? at : a);
    VarId y = floats(b, tb ? U{2, 3} : U{3, 2}, tb ? bt : bm);
    VarId c = b.op("MatrixMul", {x, y}, {{"transposeA", ir::ParamArg(ta)}, {"transposeB", ir::ParamArg(tb)}});
    expect_values(run1(b, c), {2, 2}, {58, -48, -83, 154});
}

INSTANTIATE_TEST_SUITE_P(All, MatrixMulTransposes,
                         ::testing::Values(TransposeCase{false, false}, TransposeCase{true, false},
                                           TransposeCase{false, true}, TransposeCase{true, true}));

TEST(MatmulKernels, Int8IntoInt32IsExact) {
    // [−128, 127] · [[−128], [−128]] = 16384 − 16256 = 128; [127, 127]·[−128, −128] = −32512.
    GraphBuilder b;
    const DType i8 = DType::of(DTypeEnum::Int8);
    VarId x = constant<int8_t>(b, i8, {2, 2}, {-128, 127, 127, 127});
    VarId y = constant<int8_t>(b, i8, {2, 1}, {-128, -128});
    expect_values(run1(b, b.op("MatrixMul", {x, y})), {2, 1}, {128, -32512});
}

TEST(MatmulKernels, Int8IntoInt16WrapsLikeTheAccumulator) {
    // 3·127·127 = 48387 → 48387 − 65536 = −17149 in int16.
    GraphBuilder b;
    const DType i8 = DType::of(DTypeEnum::Int8);
    VarId x = constant<int8_t>(b, i8, {1, 3}, {127, 127, 127});
    VarId y = constant<int8_t>(b, i8, {3, 1}, {127, 127, 127});
    VarId c = b.op("MatrixMul", {x, y}, {}, to(DType::of(DTypeEnum::Int16)));
    expect_values(run1(b, c), {1, 1}, {-17149});
}

TEST(MatmulKernels, Quantized8AsymmSubtractsZeroPoints) {
    // A zero point 128: [130, 120] → [2, −8]; B zero point 10: [[11], [0]] → [[1], [−10]].
    // 2·1 + (−8)·(−10) = 82, QuantizedS32 at scale 0.5·0.25.
    GraphBuilder b;
    VarId x =
        constant<uint8_t>(b, DType::quantized(DTypeEnum::Quantized8Asymm, 0.5f, 128), {1, 2}, {130, 120});
    VarId y = constant<uint8_t>(b, DType::quantized(DTypeEnum::Quantized8Asymm, 0.25f, 10), {2, 1}, {11, 0});
    const auto t = run1(b, b.op("MatrixMul", {x, y}));
    EXPECT_EQ(t.dtype(), DType::quantized(DTypeEnum::QuantizedS32, 0.125f));
    expect_values(t, {1, 1}, {82});
}

TEST(MatmulKernels, Float16IsComputedInFloatAndRoundedOnce) {
    // 1 + 2^-11 + 2^-11 = 1 + 2^-10 (half 0x3c01); half accumulation would give 1.
    const DType f16 = DType::of(DTypeEnum::Float16);
    for (const char* mode : {"DEFAULT", "FLOAT32"}) {
        GraphBuilder b;
        VarId x = constant<uint16_t>(b, f16, {1, 3}, {0x3c00, 0x1000, 0x1000});
        VarId y = constant<uint16_t>(b, f16, {3, 1}, {0x3c00, 0x3c00, 0x3c00});
        const auto t = run1(b, b.op("MatrixMul", {x, y}, {{"compute_mode", mode}}));
        EXPECT_EQ(t.dtype(), f16) << mode;
        expect_values(t, {1, 1}, {1.0 + 1.0 / 1024});
    }
}

TEST(MatmulKernels, BatchedMatrixMulMultipliesEachBatchEntry) {
    // transposeA: A[0]ᵀ = [[1, 2]], A[1]ᵀ = [[−1, 3]]; B[0] = [[1, 0, 2], [0, 1, −1]],
    // B[1] = [[2, 2, 2], [1, −1, 0]] → [[1, 2, 0]], [[1, −5, −2]].
    GraphBuilder b;
    VarId x = floats(b, {2, 2, 1}, {1, 2, -1, 3});
    VarId y = floats(b, {2, 2, 3}, {1, 0, 2, 0, 1, -1, 2, 2, 2, 1, -1, 0});
    VarId c = b.op("BatchedMatrixMul", {x, y}, {{"transposeA", ir::ParamArg(true)}});
    expect_values(run1(b, c), {2, 1, 3}, {1, 2, 0, 1, -5, -2});
}

TEST(MatmulKernels, DotSumsInTheInputType) {
    GraphBuilder b;
    // Float32: 0.5·4 − 1.5·2 + 3·0.25 = −0.25.
    VarId fa = floats(b, {3}, {0.5f, -1.5f, 3});
    VarId fb = floats(b, {3}, {4, 2, 0.25f});
    // Int8: 100·100 + 100·100 = 20000 ≡ 32 (mod 256).
    const DType i8 = DType::of(DTypeEnum::Int8);
    VarId ia = constant<int8_t>(b, i8, {2}, {100, 100});
    VarId ib = constant<int8_t>(b, i8, {2}, {100, 100});
    VarId f = b.op("Dot", {fa, fb});
    VarId i = b.op("Dot", {ia, ib});
    b.output(f, "f");
    b.output(i, "i");
    ir::Graph g = b.finish();
    const auto out = evaluate(g, {});
    expect_values(out.at(0).value, {1}, {-0.25});
    EXPECT_EQ(out.at(1).value.dtype(), i8);
    expect_values(out.at(1).value, {1}, {32});
}

TEST(MatmulKernels, DotBroadcastsAnInputOfLengthOne) {
    // Dot::scn_do_execute (blas.cpp:416): a length-1 input is read with stride 0.
    // 2·(1 − 3 + 0.5) = −3 either way round; as Int32, 3·(1 + 2 + 3) = 18.
    GraphBuilder b;
    VarId k = floats(b, {1}, {2});
    VarId v = floats(b, {3}, {1, -3, 0.5f});
    const DType i32 = DType::of(DTypeEnum::Int32);
    VarId ik = constant<int32_t>(b, i32, {1}, {3});
    VarId iv = constant<int32_t>(b, i32, {3}, {1, 2, 3});
    b.output(b.op("Dot", {k, v}), "kv");
    b.output(b.op("Dot", {v, k}), "vk");
    b.output(b.op("Dot", {iv, ik}), "i");
    ir::Graph g = b.finish();
    const auto out = evaluate(g, {});
    expect_values(out.at(0).value, {1}, {-3});
    expect_values(out.at(1).value, {1}, {-3});
    expect_values(out.at(2).value, {1}, {18});
}

TEST(MatmulKernels, PackedFormatsAreRefusedNamingTheFormat) {
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 4, 4}, std::vector<float>(16));
    VarId y = floats(b, {1, 3, 4}, std::vector<float>(12));
    VarId c = b.op("MatrixMul", {x, y}, {{"format", "MK4"}});
    try {
        run1(b, c);
        ADD_FAILURE() << "MK4 was not refused";
    } catch (const EvalError& e) {
        EXPECT_NE(std::string(e.what()).find("format MK4 is not implemented"), std::string::npos) << e.what();
    }
}

// Products big enough to be split into column (n ≥ m) or row (m > n) blocks
// over two threads, against the sum evaluated here in double.
struct Dims {
    uint32_t m, k, n;
    bool ta, tb;
};
class MatmulBlocks : public ::testing::TestWithParam<Dims> {};

TEST_P(MatmulBlocks, MatchTheDefinitionOnTwoThreads) {
    const Dims d = GetParam();
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> a(size_t{d.m} * d.k), bv(size_t{d.k} * d.n);
    for (float& v : a) v = u(rng);
    for (float& v : bv) v = u(rng);
    const auto A = [&](size_t i, size_t k) { return d.ta ? a[k * d.m + i] : a[i * d.k + k]; };
    const auto B = [&](size_t k, size_t j) { return d.tb ? bv[j * d.k + k] : bv[k * d.n + j]; };
    GraphBuilder b;
    VarId x = floats(b, d.ta ? U{d.k, d.m} : U{d.m, d.k}, a);
    VarId y = floats(b, d.tb ? U{d.n, d.k} : U{d.k, d.n}, bv);
    const auto got = run1(
        b,
        b.op("MatrixMul", {x, y}, {{"transposeA", ir::ParamArg(d.ta)}, {"transposeB", ir::ParamArg(d.tb)}}),
        2);
    engine::eval::Tensor want(F32, got.shape());
    auto w = want.mutable_data<float>();
    for (size_t i = 0; i < d.m; ++i)
        for (size_t j = 0; j < d.n; ++j) {
            double s = 0;
            for (size_t k = 0; k < d.k; ++k) s += double(A(i, k)) * B(k, j);
            w[i * d.n + j] = float(s);
        }
    EXPECT_EQ(compare_tensors(got, want, Tolerance{1e-5, 1e-5}), "");
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatmulBlocks,
                         ::testing::Values(Dims{64, 200, 700, false, false}, Dims{700, 150, 90, false, true},
                                           Dims{333, 129, 517, true, false}, Dims{517, 64, 333, true, true}));

}  // namespace
}  // namespace mgedump::test
