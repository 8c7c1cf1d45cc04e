// The elemwise family's kernels (engine/eval/kernels_elemwise.cpp,
// elemwise_multi_type.cpp, elemwise_misc.cpp) on small graphs, for the edge
// cases MegEngine's own files do not reach: broadcasting shapes, integer
// wrap-around and Python-style division, NaN and infinities, Float16 rounding,
// the quantized conversions' rounding and saturation, and the refusals.
//
// Expected values come from MegDNN's definitions (dnn/src/common/elemwise/
// kern_defs.cuh, elemwise_helper.cuh, dnn/include/megdnn/dtype.h quantize,
// dnn/src/naive/<op>), worked by hand, with numpy in float32, with exact
// rationals for Float16 (MegDNN's half rounds ties away from zero, unlike
// numpy's float16) and with Python's statistics.NormalDist for erfinv
// (erfinv(x) = Φ⁻¹((x + 1) / 2) / √2); written out as literals, each comment
// says how.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "ir/error.h"
#include "ir/param_schema.h"
#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

// Storage values: quantized dtypes as their integers, Float16 widened.
std::vector<double> stored(const Tensor& t) { return storage_values(t); }

// A value given by its real elements (quantized dtypes: by storage integers).
Tensor fed_value(DType d, std::vector<uint32_t> shape, std::vector<double> v) {
    if (!ir::dtype_is_quantized(d.type)) return tensor(d, shape, v);
    Tensor t(d, ir::Shape::of(shape));
    engine::eval::with_storage_type(d.type, [&](auto tag) {
        auto out = t.mutable_data<decltype(tag)>();
        for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<decltype(tag)>(v[i]);
    });
    return t;
}

// A graph built case by case: inputs with their feeds, then run.
struct Case {
    GraphBuilder b;
    Feeds feeds;
    int next = 0;

    VarId in(DType d, std::vector<uint32_t> shape, std::vector<double> v) {
        const std::string name = "x" + std::to_string(next++);
        feeds.emplace(name, fed_value(d, shape, v));
        return b.input(name, d, shape);
    }
    VarId op(std::string_view name, std::vector<VarId> in, const ir::ParamArgs& p = {},
             const OpOptions& o = {}) {
        return b.op(name, std::move(in), p, o);
    }
    VarId elemwise(const char* mode, std::vector<VarId> in) {
        return op("Elemwise", std::move(in), {{"mode", mode}});
    }
    std::vector<Tensor> run(std::vector<VarId> outs, int threads = 0) {
        for (size_t i = 0; i < outs.size(); ++i) b.output(outs[i], "out" + std::to_string(i));
        const ir::Graph g = b.finish();
        std::vector<Tensor> result;
        for (auto& o : engine::eval::evaluate(g, feeds, {.threads = threads})) result.push_back(o.value);
        return result;
    }
    Tensor run1(VarId out) { return run({out})[0]; }
};

void expect_refused(Case& c, VarId out, const std::string& what) {
    try {
        c.run({out});
        ADD_FAILURE() << "expected an EvalError containing '" << what << "'";
    } catch (const EvalError& e) {
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
}

// --- broadcasting ----------------------------------------------------------------

TEST(ElemwiseKernels, BroadcastsRightAlignedLikeNumpy) {
    Case c;
    // [2,3,1] + [1,4] → [2,3,4]: out[i,j,k] = a[i,j] + b[k] (np.add broadcasting).
    VarId a = c.in(F32, {2, 3, 1}, {0, 1, 2, 3, 4, 5});
    VarId b = c.in(F32, {1, 4}, {10, 20, 30, 40});
    // [2,1,3] · [2,4,1] → [2,4,3]: out[i,j,k] = p[i,k] · q[i,j].
    VarId p = c.in(F32, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
    VarId q = c.in(F32, {2, 4, 1}, {1, 10, 100, 1000, -1, -2, -3, -4});
    // A [1] operand is a scalar to any shape.
    VarId s = c.in(F32, {1}, {0.5});
    const auto out = c.run({c.elemwise("ADD", {a, b}), c.elemwise("MUL", {p, q}), c.elemwise("SUB", {s, a})});
    EXPECT_EQ(out[0].shape(), ir::Shape::of({2, 3, 4}));
    expect_values(stored(out[0]), {10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42,
                                   13, 23, 33, 43, 14, 24, 34, 44, 15, 25, 35, 45});
    EXPECT_EQ(out[1].shape(), ir::Shape::of({2, 4, 3}));
    expect_values(stored(out[1]), {1,  2,  3,  10, 20,  30,  100, 200, 300, 1000, 2000, 3000,
                                   -4, -5, -6, -8, -10, -12, -12, -15, -18, -16,  -20,  -24});
    expect_values(stored(out[2]), {0.5, -0.5, -1.5, -2.5, -3.5, -4.5});
}

TEST(ElemwiseKernels, LargeBroadcastsSplitOverThreadsGiveEveryElement) {
    // 300·301 = 90300 elements, above the parallel threshold, through the
    // strided path (b is a row) and the flat path (equal shapes): out = i·1000 + j.
    Case c;
    std::vector<double> col(300), row(301), full(300 * 301);
    for (size_t i = 0; i < 300; ++i) col[i] = static_cast<double>(i) * 1000;
    for (size_t j = 0; j < 301; ++j) row[j] = static_cast<double>(j);
    for (size_t k = 0; k < full.size(); ++k) full[k] = 1;
    VarId a = c.in(F32, {300, 1}, col), b = c.in(F32, {301}, row), f = c.in(F32, {300, 301}, full);
    VarId sum = c.elemwise("ADD", {a, b});
    const auto out = c.run({sum, c.elemwise("SUB", {sum, f})}, 2);
    const auto got = stored(out[0]), minus = stored(out[1]);
    ASSERT_EQ(got.size(), 300u * 301u);
    size_t wrong = 0;
    for (size_t i = 0; i < 300; ++i)
        for (size_t j = 0; j < 301; ++j) {
            const double want = static_cast<double>(i) * 1000 + static_cast<double>(j);
            wrong += got[i * 301 + j] != want || minus[i * 301 + j] != want - 1;
        }
    EXPECT_EQ(wrong, 0u);
}

TEST(ElemwiseKernels, AMillionElementAddIsExact) {
    Case c;
    const size_t n = 1 << 20;
    std::vector<double> x = iota(n), y(n);
    for (size_t i = 0; i < n; ++i) y[i] = 2.0 * static_cast<double>(i);
    const Tensor out =
        c.run({c.elemwise("ADD", {c.in(F32, {1024, 1024}, x), c.in(F32, {1024, 1024}, y)})}, 2)[0];
    const auto got = stored(out);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += got[i] != 3.0 * static_cast<double>(i);
    EXPECT_EQ(wrong, 0u);
}

TEST(ElemwiseKernels, EveryModeAndDtypeInferenceAcceptsHasAKernel) {
    // Each Elemwise mode with each arity and dtype the graph builder accepts
    // runs, except FUSE_MUL_ADD3/4 on Bool, which MegDNN has no kernel for.
    // The counts are the kern_defs.cuh kernels: 76 float (37 unary, 33 binary,
    // 5 ternary, FUSE_MUL_ADD4), 30 integer, 7 Bool.
    const ir::EnumDesc* modes = ir::find_enum("ElemwiseMode");
    ASSERT_NE(modes, nullptr);
    for (DType d : {F32, F16, I32, I8, U8, BOOL}) {
        int ran = 0, refused = 0;
        for (const ir::EnumMember& m : modes->members) {
            for (int arity = 1; arity <= 4; ++arity) {
                Case c;
                std::vector<VarId> in;
                for (int k = 0; k < arity; ++k) in.push_back(c.in(d, {2, 3}, {1, 2, 3, 4, 5, 6}));
                VarId y;
                try {
                    y = c.op("Elemwise", in, {{"mode", std::string(m.name)}});
                } catch (const Error&) {
                    continue;  // not a mode, arity or dtype MegEngine takes
                }
                SCOPED_TRACE(std::string(m.name) + " on " + std::string(ir::dtype_name(d.type)));
                try {
                    const Tensor out = c.run1(y);
                    EXPECT_EQ(out.shape(), ir::Shape::of({2, 3}));
                    // Int inputs of a float-only mode are converted to Float32
                    // first (Elemwise::make), so that mode runs on floats.
                    if (out.dtype() == d)
                        ++ran;
                    else
                        EXPECT_TRUE(d == I32 || d == I8 || d == U8) << ir::dtype_name(out.dtype().type);
                } catch (const EvalError& e) {
                    EXPECT_TRUE(d == BOOL && std::string(m.name).starts_with("FUSE_MUL_ADD")) << e.what();
                    ++refused;
                }
            }
        }
        const bool is_float = d == F32 || d == F16;
        EXPECT_EQ(ran, is_float ? 76 : d == BOOL ? 7 : 30) << ir::dtype_name(d.type);
        EXPECT_EQ(refused, d == BOOL ? 2 : 0) << ir::dtype_name(d.type);
    }
}

// --- float modes -------------------------------------------------------------------

TEST(ElemwiseKernels, FloatEdgeCasesFollowKernDefs) {
    Case c;
    // roundf: half away from zero.
    VarId r = c.elemwise("ROUND", {c.in(F32, {5}, {-2.5, 2.5, 0.5, -0.5, 1.4999999})});
    // SIGN: x < 0 ? -1 : (x > 0 ? 1 : 0), so -0 and NaN give 0.
    VarId sg = c.elemwise("SIGN", {c.in(F32, {4}, {-0.0, kNaN, -2, 3})});
    // MAX is x > y ? x : y and MIN x < y ? x : y: a NaN x yields y, a NaN y yields NaN.
    VarId nx = c.in(F32, {2}, {kNaN, 1}), ny = c.in(F32, {2}, {1, kNaN});
    VarId mx = c.elemwise("MAX", {nx, ny}), mn = c.elemwise("MIN", {nx, ny});
    // floorf(x / y) and fmodf(x, y) (the dividend's sign).
    VarId x = c.in(F32, {4}, {-7, 7, -7, 7}), y = c.in(F32, {4}, {2, 2, -2, -2});
    VarId fd = c.elemwise("FLOOR_DIV", {x, y}), md = c.elemwise("MOD", {x, y});
    // x / 0 is ±inf; powf(-8, 1/3) is NaN, powf(2, 10) = 1024.
    VarId dv = c.elemwise("TRUE_DIV", {c.in(F32, {2}, {1, -1}), c.in(F32, {2}, {0, 0})});
    VarId pw = c.elemwise("POW", {c.in(F32, {2}, {-8, 2}), c.in(F32, {2}, {1.0 / 3, 10})});
    // RELU keeps NaN (NaN <= 0 is false); H_SWISH propagates it through std::min/max.
    VarId nan1 = c.in(F32, {1}, {kNaN});
    VarId rl = c.elemwise("RELU", {nan1}), hs = c.elemwise("H_SWISH", {nan1});
    const auto out = c.run({r, sg, mx, mn, fd, md, dv, pw, rl, hs});
    expect_values(stored(out[0]), {-3, 3, 1, -1, 1});
    expect_values(stored(out[1]), {0, 0, -1, 1});
    expect_values(stored(out[2]), {1, kNaN});
    expect_values(stored(out[3]), {1, kNaN});
    expect_values(stored(out[4]), {-4, 3, 3, -4});
    expect_values(stored(out[5]), {-1, 1, -1, 1});
    expect_values(stored(out[6]), {kInf, -kInf});
    expect_values(stored(out[7]), {kNaN, 1024});
    expect_values(stored(out[8]), {kNaN});
    expect_values(stored(out[9]), {kNaN});
}

TEST(ElemwiseKernels, TranscendentalModesMatchTheirDefinitions) {
    Case c;
    VarId g = c.in(F32, {5}, {-3, -0.5, 0, 0.7, 2.5});
    // GELU step by step in float32 as kern_defs.cuh has it, x·(0.5·(1 + erff(x/sqrtf(2))))
    // (numpy float32 with math.erf rounded to float32; at −3 the float 1 + erf
    // cancels, so the double-precision GELU would differ); H_SWISH
    // x·min(max(x+3, 0), 6)/6 in double, rounded to float32.
    VarId gelu = c.elemwise("GELU", {g}), hswish = c.elemwise("H_SWISH", {g});
    // erfinv(x) = Φ⁻¹((x+1)/2)/√2 and erfcinv(x) = −Φ⁻¹(x/2)/√2 (Python's
    // statistics.NormalDist), rounded to float32; ±1 and 0, 2 are ±inf.
    VarId ei = c.elemwise("ERFINV", {c.in(F32, {8}, {0.5, -0.9, 0.999, 1e-3, -0.3, 1, -1, 1.5})});
    VarId eci = c.elemwise("ERFCINV", {c.in(F32, {8}, {1e-30, 0.25, 1.5, 1.9999, 1e-5, 0, 2, -0.5})});
    // fast_tanh(1) = 28/36; atan2f(1, -1) = 3π/4; 1000 + log1p(exp(0)).
    VarId ft = c.elemwise("FAST_TANH", {c.in(F32, {1}, {1})});
    VarId at = c.elemwise("ATAN2", {c.in(F32, {1}, {1}), c.in(F32, {1}, {-1})});
    VarId lse = c.elemwise("LOG_SUM_EXP", {c.in(F32, {1}, {1000}), c.in(F32, {1}, {1000})});
    // log1p(exp(-|x|)) + relu(x) stays finite far out: SOFTPLUS(100) = 100, LOGSIGMOID(-100) = -100.
    VarId sp = c.elemwise("SOFTPLUS", {c.in(F32, {1}, {100})});
    VarId ls = c.elemwise("LOGSIGMOID", {c.in(F32, {1}, {-100})});
    // 2·3 + 4·5.
    VarId f4 = c.elemwise("FUSE_MUL_ADD4", {c.in(F32, {1}, {2}), c.in(F32, {1}, {3}), c.in(F32, {1}, {4}),
                                            c.in(F32, {1}, {5})});
    const auto out = c.run({gelu, hswish, ei, eci, ft, at, lse, sp, ls, f4});
    expect_floats(stored(out[0]),
                  {-0.0040496885776519775, -0.1542687714099884, 0, 0.5306254625320435, 2.48447585105896});
    expect_floats(stored(out[1]), {0, -0.2083333283662796, 0, 0.43166667222976685, 2.2916667461395264});
    expect_floats(stored(out[2]), {0.4769362807273865, -1.1630871295928955, 2.326756238937378,
                                   0.0008862271788530052, -0.27246272563934326, kInf, -kInf, kNaN});
    expect_floats(stored(out[3]), {8.148615837097168, 0.8134198188781738, -0.4769362807273865,
                                   -2.751035451889038, 3.123413324356079, kInf, -kInf, kNaN});
    expect_floats(stored(out[4]), {0.7777777777777778});
    expect_floats(stored(out[5]), {2.356194490192345});
    expect_floats(stored(out[6]), {1000.6931471805599});
    expect_floats(stored(out[7]), {100});
    expect_floats(stored(out[8]), {-100});
    expect_values(stored(out[9]), {26});
}

TEST(ElemwiseKernels, Float16RoundsOnceAndFusedMultiplyAddFollowsTheLayouts) {
    // MegDNN's half rounds to nearest, ties away from zero (half.hpp
    // HALF_ROUND_TIES_TO_EVEN 0). x = 1 + 2⁻¹⁰, y = 1 − 2⁻¹¹, z = 2⁻¹²:
    // x·y = 1 + 2⁻¹¹ − 2⁻²¹, just below the tie between 1 and 1 + 2⁻¹⁰.
    // Fused (c has a's shape): half(x·y + z) = 1 + 2⁻¹⁰ = 1.0009765625.
    // MegBrain's fallback (c's shape is neither a's, b's nor [1]): MUL then ADD,
    // each rounded to half: half(half(x·y) + z) = half(1 + 2⁻¹²) = 1.
    // (Worked with exact rationals.)
    Case c;
    const double x = 1 + std::ldexp(1.0, -10), y = 1 - std::ldexp(1.0, -11), z = std::ldexp(1.0, -12);
    VarId a = c.in(F16, {2}, {x, x}), b = c.in(F16, {2}, {y, y});
    VarId fused = c.elemwise("FUSE_MUL_ADD3", {a, b, c.in(F16, {2}, {z, z})});
    VarId split = c.elemwise("FUSE_MUL_ADD3", {a, b, c.in(F16, {1, 2}, {z, z})});
    // 2048 + 1 = 2049 is a tie between halves 2048 and 2050: away from zero, 2050.
    VarId add = c.elemwise("ADD", {c.in(F16, {2}, {2048, -2048}), c.in(F16, {2}, {1, -1})});
    const auto out = c.run({fused, split, add});
    EXPECT_EQ(out[0].dtype().type, DTypeEnum::Float16);
    expect_values(stored(out[0]), {1.0009765625, 1.0009765625});
    EXPECT_EQ(out[1].shape(), ir::Shape::of({1, 2}));
    expect_values(stored(out[1]), {1, 1});
    expect_values(stored(out[2]), {2050, -2050});
}

// --- integer modes -----------------------------------------------------------------

TEST(ElemwiseKernels, IntegerDivisionFollowsPythonAndArithmeticWraps) {
    Case c;
    // dispatch_floordiv_int rounds toward −∞; MOD is (y + x % y) % y.
    VarId x = c.in(I32, {6}, {-7, 7, -7, 7, 0, -1}), y = c.in(I32, {6}, {2, 2, -2, -2, 3, 5});
    VarId fd = c.elemwise("FLOOR_DIV", {x, y}), md = c.elemwise("MOD", {x, y});
    // TRUE_DIV has no int kernel: Elemwise::make converts int inputs to Float32
    // (a TypeCvt in the graph), so 7 / 2 = 3.5.
    VarId td = c.elemwise("TRUE_DIV", {x, y});
    // int8: 100 + 100 = 200 → −56, 16·16 = 256 → 0; uint8: 3 − 5 → 254; int16: −(−32768) → −32768.
    VarId add8 = c.elemwise("ADD", {c.in(I8, {1}, {100}), c.in(I8, {1}, {100})});
    VarId mul8 = c.elemwise("MUL", {c.in(I8, {1}, {16}), c.in(I8, {1}, {16})});
    VarId sub_u8 = c.elemwise("SUB", {c.in(U8, {1}, {3}), c.in(U8, {1}, {5})});
    VarId neg16 = c.elemwise("NEGATE", {c.in(I16, {1}, {-32768})});
    // abs(int(INT32_MIN)) wraps to INT32_MIN; RELU6 clamps to [0, 6]; SIGN.
    VarId ab = c.elemwise("ABS", {c.in(I32, {2}, {-2147483648.0, -5})});
    VarId r6 = c.elemwise("RELU6", {c.in(I32, {3}, {-3, 4, 9})});
    VarId sg = c.elemwise("SIGN", {c.in(I32, {3}, {-9, 0, 9})});
    // Arithmetic shifts of the promoted int: −13 << 3 = −104, 1 << 31 = INT32_MIN; −13 >> 1 = −7.
    VarId shl = c.elemwise("SHL", {c.in(I32, {2}, {-13, 1}), c.in(I32, {2}, {3, 31})});
    VarId shr = c.elemwise("SHR", {c.in(I32, {3}, {-13, -1, 5}), c.in(I32, {3}, {1, 31, 0})});
    const auto out = c.run({fd, md, add8, mul8, sub_u8, neg16, ab, r6, sg, shl, shr, td});
    expect_values(stored(out[0]), {-4, 3, 3, -4, 0, -1});
    expect_values(stored(out[1]), {1, 1, -1, -1, 0, 4});
    expect_values(stored(out[2]), {-56});
    expect_values(stored(out[3]), {0});
    expect_values(stored(out[4]), {254});
    expect_values(stored(out[5]), {-32768});
    expect_values(stored(out[6]), {-2147483648.0, 5});
    expect_values(stored(out[7]), {0, 4, 6});
    expect_values(stored(out[8]), {-1, 0, 1});
    expect_values(stored(out[9]), {-104, -2147483648.0});
    expect_values(stored(out[10]), {-7, -1, 5});
    EXPECT_EQ(out[11].dtype().type, DTypeEnum::Float32);
    expect_floats(stored(out[11]), {-3.5, 3.5, 3.5, -3.5, 0, -0.2});
}

TEST(ElemwiseKernels, RmulhRoundsTheHighHalfUpward) {
    // round_mulh_saturate: (a·b >> digits) + ((a·b & mask) > mask/2), min·min → max.
    // int8 (digits 7): 100·100 = 10000 → 78 (78.125); −100·100 → −78; 64·1 → 1 (0.5 up);
    // −64·1 → 0 (−0.5 up); −128·−128 → 127. int32 (digits 31): INT_MIN² → INT_MAX,
    // 2³⁰·2³⁰ → 2²⁹, −445835·−803228 → 167. uint8 (digits 8): the min is 0, so
    // 0·0 is MegDNN's overflow case and gives 255; 200·200 = 40000 → 156 (156.25).
    Case c;
    VarId i8 = c.elemwise("RMULH",
                          {c.in(I8, {5}, {100, -100, 64, -64, -128}), c.in(I8, {5}, {100, 100, 1, 1, -128})});
    VarId i32 = c.elemwise("RMULH", {c.in(I32, {3}, {-2147483648.0, 1073741824, -445835}),
                                     c.in(I32, {3}, {-2147483648.0, 1073741824, -803228})});
    VarId u8 = c.elemwise("RMULH", {c.in(U8, {2}, {0, 200}), c.in(U8, {2}, {0, 200})});
    const auto out = c.run({i8, i32, u8});
    expect_values(stored(out[0]), {78, -78, 1, 0, 127});
    expect_values(stored(out[1]), {2147483647, 536870912, 167});
    expect_values(stored(out[2]), {255, 156});
}

TEST(ElemwiseKernels, UndefinedIntegerOperationsAreRefused) {
    {
        Case c;
        expect_refused(c, c.elemwise("FLOOR_DIV", {c.in(I32, {2}, {1, 2}), c.in(I32, {2}, {1, 0})}),
                       "division by zero");
    }
    {
        Case c;
        expect_refused(c, c.elemwise("MOD", {c.in(I32, {1}, {-2147483648.0}), c.in(I32, {1}, {-1})}),
                       "INT32_MIN by -1");
    }
    {
        Case c;
        expect_refused(c, c.elemwise("SHL", {c.in(I32, {1}, {1}), c.in(I32, {1}, {32})}), "shift count");
    }
}

TEST(ElemwiseKernels, BoolModesAndTheirMissingKernels) {
    Case c;
    VarId x = c.in(BOOL, {4}, {0, 0, 1, 1}), y = c.in(BOOL, {4}, {0, 1, 0, 1});
    const auto out = c.run({c.elemwise("AND", {x, y}), c.elemwise("OR", {x, y}), c.elemwise("XOR", {x, y}),
                            c.elemwise("NOT", {x}), c.elemwise("LT", {x, y}), c.elemwise("LEQ", {x, y})});
    expect_values(stored(out[0]), {0, 0, 0, 1});
    expect_values(stored(out[1]), {0, 1, 1, 1});
    expect_values(stored(out[2]), {0, 1, 1, 0});
    expect_values(stored(out[3]), {1, 1, 0, 0});
    expect_values(stored(out[4]), {0, 1, 0, 0});
    expect_values(stored(out[5]), {1, 1, 0, 1});
    // The mode trait allows Bool for FUSE_MUL_ADD3, but MegDNN dispatches it over
    // the computing dtypes only ("bad dtype").
    Case d;
    VarId b = d.in(BOOL, {2}, {1, 0});
    expect_refused(d, d.elemwise("FUSE_MUL_ADD3", {b, b, b}), "no Bool kernel");
}

TEST(ElemwiseKernels, QuantizedElemwiseComputesOnStorageIntegers) {
    // basic_arith.cpp:429: QuantizedS8 runs as Int8, so 100 + 100 wraps to −56
    // (the scale is not involved); Quantized8Asymm has no Elemwise kernel.
    Case c;
    const DType q = DType::quantized(DTypeEnum::QuantizedS8, 0.5f);
    VarId s = c.elemwise("ADD", {c.in(q, {2}, {100, -3}), c.in(q, {2}, {100, 1})});
    const Tensor out = c.run1(s);
    EXPECT_EQ(out.dtype(), q);
    expect_values(stored(out), {-56, -2});
    Case d;
    const DType a = DType::quantized(DTypeEnum::Quantized8Asymm, 0.5f, 128);
    expect_refused(d, d.elemwise("ADD", {d.in(a, {1}, {1}), d.in(a, {1}, {1})}),
                   "QuantizedS8 and QuantizedS32 only");
}

// --- TypeCvt -------------------------------------------------------------------------

TEST(ElemwiseKernels, TypeCvtQuantizesHalfAwayFromZeroAndSaturates) {
    Case c;
    auto cvt = [&](VarId x, DType to) { return c.op("TypeCvt", {x}, {{"dtype", ParamArg{to}}}); };
    VarId f = c.in(F32, {7}, {-0.625, 0.625, 40, -40, kNaN, 0.125, -0.125});
    // x / 0.25 rounded half away (−2.5 → −3), clamped with fmin(fmax(−128, v), 127):
    // NaN passes fmax as −128 (numpy float32 of the same steps).
    VarId s8 = cvt(f, DType::quantized(DTypeEnum::QuantizedS8, 0.25f));
    // Quantized8Asymm(0.1, 128): round(x / 0.1) + 128 in [0, 255]; NaN and −inf give 0.
    VarId a8 = cvt(c.in(F32, {5}, {kNaN, -kInf, kInf, 0.05, -0.05}),
                   DType::quantized(DTypeEnum::Quantized8Asymm, 0.1f, 128));
    // QuantizedS32 saturates at 2147483520, the largest float below 2³¹.
    VarId s32 = cvt(c.in(F32, {3}, {1e10, -1e10, 3.25}), DType::quantized(DTypeEnum::QuantizedS32, 0.5f));
    // QuantizedS8(0.5) → Quantized8Asymm(0.25, 10): −3 is −1.5 → −6 + 10 = 4; 127 is 63.5 → 264 → 255.
    VarId requant = cvt(c.in(DType::quantized(DTypeEnum::QuantizedS8, 0.5f), {2}, {-3, 127}),
                        DType::quantized(DTypeEnum::Quantized8Asymm, 0.25f, 10));
    const auto out = c.run({s8, a8, s32, requant});
    expect_values(stored(out[0]), {-3, 3, 127, -128, -128, 1, -1});
    expect_values(stored(out[1]), {0, 0, 255, 129, 127});
    expect_values(stored(out[2]), {2147483520, -2147483648.0, 7});
    expect_values(stored(out[3]), {4, 255});
}

TEST(ElemwiseKernels, TypeCvtBetweenPlainDtypesIsStaticCast) {
    Case c;
    auto cvt = [&](VarId x, DType to) { return c.op("TypeCvt", {x}, {{"dtype", ParamArg{to}}}); };
    // int → int wraps (C++20 modular conversion): 300 → 44, −129 → 127, 128 → −128.
    VarId i8 = cvt(c.in(I32, {3}, {300, -129, 128}), I8);
    // float → int truncates toward zero; beyond the range (undefined in C++) it
    // saturates and NaN gives 0, the evaluator's documented choice.
    VarId i32 = cvt(c.in(F32, {5}, {-1.7, 2.9, 1e10, -1e10, kNaN}), I32);
    // to Bool: x != 0, so NaN is true and −0 false.
    VarId b = cvt(c.in(F32, {3}, {kNaN, -0.0, 0.5}), BOOL);
    // float → half rounds to nearest, ties away from zero (MegDNN's half):
    // 65519 → 65504, 65520 → inf, 1 + 2⁻¹¹ → 1 + 2⁻¹⁰, 1 + 3·2⁻¹¹ → 1 + 2⁻⁹.
    VarId h =
        cvt(c.in(F32, {4}, {65519, 65520, 1 + std::ldexp(1.0, -11), 1 + 3 * std::ldexp(1.0, -11)}), F16);
    // int32 → float rounds 2²⁴ + 1 to 2²⁴ (to even); int32 → half goes through
    // float: 2049 → 2050 (a tie, away from zero), 65536 → inf.
    VarId fl = cvt(c.in(I32, {1}, {16777217}), F32);
    VarId ih = cvt(c.in(I32, {2}, {2049, 65536}), F16);
    // Bool → float is 0 or 1.
    VarId bf = cvt(c.in(BOOL, {2}, {1, 0}), F32);
    const auto out = c.run({i8, i32, b, h, fl, ih, bf});
    expect_values(stored(out[0]), {44, 127, -128});
    expect_values(stored(out[1]), {-1, 2, 2147483647, -2147483648.0, 0});
    expect_values(stored(out[2]), {1, 0, 1});
    expect_values(stored(out[3]), {65504, kInf, 1.0009765625, 1.001953125});
    expect_values(stored(out[4]), {16777216});
    expect_values(stored(out[5]), {2050, kInf});
    expect_values(stored(out[6]), {1, 0});
}

// --- ElemwiseMultiType ----------------------------------------------------------------

TEST(ElemwiseKernels, MultiTypeQuantizedModesDequantizeEachInputWithItsOwnScale) {
    Case c;
    const DType qa = DType::quantized(DTypeEnum::QuantizedS8, 0.5f),
                qb = DType::quantized(DTypeEnum::QuantizedS8, 0.25f);
    const DType qo = DType::quantized(DTypeEnum::QuantizedS8, 0.1f);
    VarId a = c.in(qa, {3}, {3, 100, -10}), b = c.in(qb, {3}, {-2, 100, 4});
    auto multi = [&](const char* mode, std::vector<VarId> in, DType out) {
        return c.op("ElemwiseMultiType", std::move(in), {{"mode", mode}}, {.output_dtype = out});
    };
    // QADD: 1.5 + (−0.5) = 1 → 10; 50 + 25 = 75 → 750 → 127; −5 + 1 = −4 → −40.
    VarId add = multi("QADD", {a, b}, qo);
    // QFUSE_ADD_RELU: the same sums through relu: 10, 127, 0.
    VarId relu = multi("QFUSE_ADD_RELU", {a, b}, qo);
    // QSIGMOID into Quantized8Asymm(1/256, 0): sigmoid(1.5) = 0.8175744 → 209.3 → 209;
    // sigmoid(50) → 256 → 255; sigmoid(−5) = 0.0066929 → 1.713 → 2.
    VarId sig = multi("QSIGMOID", {a}, DType::quantized(DTypeEnum::Quantized8Asymm, 1.0f / 256, 0));
    const auto out = c.run({add, relu, sig});
    EXPECT_EQ(out[0].dtype(), qo);
    expect_values(stored(out[0]), {10, 127, -40});
    expect_values(stored(out[1]), {10, 127, 0});
    expect_values(stored(out[2]), {209, 255, 2});
}

TEST(ElemwiseKernels, MultiTypeComparisonsAndClassificationsGiveBool) {
    Case c;
    auto multi = [&](const char* mode, std::vector<VarId> in) {
        return c.op("ElemwiseMultiType", std::move(in), {{"mode", mode}}, {.output_dtype = BOOL});
    };
    VarId a = c.in(I32, {3}, {1, 2, 3}), b = c.in(I32, {3}, {2, 2, 2});
    VarId h = c.in(F16, {2}, {kNaN, 1}), k = c.in(F16, {2}, {kNaN, 1});
    // ISINF by its definition, so −inf is true (MegEngine's dump rewrite says false).
    VarId f = c.in(F32, {4}, {-kInf, kInf, kNaN, 1});
    const auto out =
        c.run({multi("LT", {a, b}), multi("LEQ", {a, b}), multi("EQ", {a, b}), multi("NEQ", {a, b}),
               multi("EQ", {h, k}), multi("NEQ", {h, k}), multi("ISINF", {f}), multi("ISNAN", {f})});
    for (const Tensor& t : out) EXPECT_EQ(t.dtype().type, DTypeEnum::Bool);
    expect_values(stored(out[0]), {1, 0, 0});
    expect_values(stored(out[1]), {1, 1, 0});
    expect_values(stored(out[2]), {0, 1, 0});
    expect_values(stored(out[3]), {1, 0, 1});
    expect_values(stored(out[4]), {0, 1});
    expect_values(stored(out[5]), {1, 0});
    expect_values(stored(out[6]), {1, 1, 0, 0});
    expect_values(stored(out[7]), {0, 0, 1, 0});
    Case d;
    VarId x = d.in(I32, {1}, {1}), y = d.in(I16, {1}, {1});
    expect_refused(d, d.op("ElemwiseMultiType", {x, y}, {{"mode", "EQ"}}, {.output_dtype = BOOL}),
                   "one dtype");
}

TEST(ElemwiseKernels, MultiTypeIntegerModesRoundShiftAndSaturate) {
    Case c;
    auto multi = [&](const char* mode, std::vector<VarId> in) {
        return c.op("ElemwiseMultiType", std::move(in), {{"mode", mode}});
    };
    // rounding_shift_right_away_from_zero: −5>>1 → −3, 5>>1 → 3, 6>>2 → 2, −6>>2 → −2;
    // then saturated to int8: 300>>1 = 150 → 127, −1000>>2 = −250 → −128; a shift by 0 keeps 7.
    VarId shr8 = multi("ROUND_SHR_SATURATE_IXxI8xI8",
                       {c.in(I32, {7}, {-5, 5, 6, -6, 300, -1000, 7}), c.in(I8, {7}, {1, 1, 2, 2, 1, 2, 0})});
    // To int16: 100001 >> 1 = 50000.5 → 50001 → 32767.
    VarId shr16 = multi("ROUND_SHR_SATURATE_IXxI8xI16", {c.in(I32, {1}, {100001}), c.in(I8, {1}, {1})});
    // rint(k·x + b) saturated to int8: rint(1.5) = 2, rint(2.5) = 2 (to even), 300 → 127,
    // −300 → −128, rint(−3.5) = −4.
    VarId fma8 = multi("FUSE_MUL_ADD3_IXxF32xF32xI8",
                       {c.in(I32, {5}, {3, 5, 300, 300, -7}), c.in(F32, {5}, {0.5, 0.5, 1, -1, 0.5}),
                        c.in(F32, {5}, {0, 0, 0, 0, 0})});
    // int16·int32 + int32 in int, wrapping: 32767·65538 + 3 = 2³¹ + 1 → −2147483647.
    VarId fma32 = multi("FUSE_MUL_ADD3_INT16x32x32x32",
                        {c.in(I16, {2}, {-2, 32767}), c.in(I32, {2}, {1000, 65538}), c.in(I32, {2}, {1, 3})});
    // round_shr_saturate<int16,int8>(round_mulh_saturate<int16>(int16(x + y), z), off) in
    // [min, max] (a Python transcription of elemwise_helper.cuh): 30000 + 10000 wraps to
    // −25536, ·8192 >> 15 = −6384, >> 4 = −399 → −128, then max(−128, −50) = −50.
    VarId rmulh = multi("FUSE_ADD_RMULH_ROUND_SHR_SATURATE_INT16x16x16x8",
                        {c.in(I16, {3}, {1000, 30000, 10}), c.in(I16, {3}, {2000, 10000, 3}),
                         c.in(I16, {3}, {16384, 8192, 32767}), c.in(I8, {3}, {2, 4, 1}),
                         c.in(I8, {3}, {-100, -50, -128}), c.in(I8, {3}, {100, 127, 127})});
    // int16 · float32: 3·0.5, −2·1.25.
    VarId mul = multi("MUL_INT16xF32xF32", {c.in(I16, {2}, {3, -2}), c.in(F32, {2}, {0.5, 1.25})});
    const auto out = c.run({shr8, shr16, fma8, fma32, rmulh, mul});
    expect_values(stored(out[0]), {-3, 3, 2, -2, 127, -128, 7});
    expect_values(stored(out[1]), {32767});
    expect_values(stored(out[2]), {2, 2, 127, -128, -4});
    expect_values(stored(out[3]), {-1999, -2147483647});
    expect_values(stored(out[4]), {100, -50, 7});
    expect_values(stored(out[5]), {1.5, -2.5});
}

// --- PowC, AddUpdate, Where, MaskedFill, CheckNonFinite, AssertEqual --------------------

TEST(ElemwiseKernels, PowCIntegerExponentsUseTheAbsoluteValue) {
    // An exponent within float epsilon of an integer n is |x|^n, negated for odd
    // n and x < 0: so (−0)^−1 is +inf, where powf(−0, −1) is −inf; n = 0 gives 1
    // even for NaN. Other exponents are powf: (−1)^2.5 is NaN.
    Case c;
    VarId x = c.in(F32, {5}, {-2, -0.0, 3, -1, kNaN});
    auto powc = [&](VarId v, float e) { return c.op("PowC", {v}, {{"exp", e}}); };
    const auto out = c.run({powc(x, 3), powc(x, -1), powc(x, 0), powc(c.in(F32, {2}, {-1, 4}), 2.5f)});
    expect_values(stored(out[0]), {-8, 0, 27, -1, kNaN});
    EXPECT_FALSE(std::signbit(stored(out[0])[1]));
    expect_floats(stored(out[1]), {-0.5, kInf, 1.0 / 3, -1, kNaN});
    expect_values(stored(out[2]), {1, 1, 1, 1, 1});
    expect_values(stored(out[3]), {kNaN, 32});
}

std::vector<std::byte> bytes_of(const std::vector<float>& v) {
    std::vector<std::byte> b(v.size() * sizeof(float));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

TEST(ElemwiseKernels, AddUpdateScalesDestAndBroadcastDelta) {
    Case c;
    VarId dest = c.b.param("dest", F32, {4}, bytes_of({1.5f, -2, std::numeric_limits<float>::infinity(), 4}));
    VarId delta = c.in(F32, {1}, {2});
    // 0.5·dest + 2·delta + 0.25.
    VarId upd = c.op("AddUpdate", {dest, delta}, {{"alpha", 0.5f}, {"beta", 2.0f}, {"bias", 0.25f}});
    // alpha 0, beta 1, bias 0 is a copy of delta (so the inf in dest does not become 0·inf = NaN).
    VarId copy = c.op("AddUpdate", {dest, delta}, {{"alpha", 0.0f}, {"beta", 1.0f}, {"bias", 0.0f}});
    // Int32: 2·dest − delta + 3 in int.
    std::vector<std::byte> ib(12);
    const int32_t iv[] = {1, -2, 3};
    std::memcpy(ib.data(), iv, 12);
    VarId idest = c.b.param("idest", I32, {3}, ib);
    VarId iupd = c.op("AddUpdate", {idest, c.in(I32, {3}, {10, 20, 30})},
                      {{"alpha", 2.0f}, {"beta", -1.0f}, {"bias", 3.0f}});
    const auto out = c.run({upd, copy, iupd});
    expect_values(stored(out[0]), {5, 3.25, kInf, 6.25});
    expect_values(stored(out[1]), {2, 2, 2, 2});
    expect_values(stored(out[2]), {-5, -21, -21});
}

TEST(ElemwiseKernels, WhereMaskedFillAndCheckNonFinite) {
    Case c;
    // Where picks by the mask alone: a NaN on the side not taken does not leak
    // (as it does through MegEngine's SWITCH_GT0 rewrite of Where).
    VarId w = c.op("Where", {c.in(BOOL, {4}, {1, 0, 1, 0}), c.in(F32, {4}, {1, kNaN, 3, 4}),
                             c.in(F32, {4}, {kNaN, 6, 7, 8})});
    // A [2] mask over [2,3] rows; static_cast<int>(−3.7f) = −3, half(0.1) = 0.0999755859375.
    VarId mf = c.op("MaskedFill", {c.in(I32, {2, 3}, {1, 2, 3, 4, 5, 6}), c.in(BOOL, {2}, {0, 1})},
                    {{"value", -3.7f}});
    VarId mh = c.op("MaskedFill", {c.in(F16, {2}, {1, 2}), c.in(BOOL, {2}, {1, 0})}, {{"value", 0.1f}});
    // CheckNonFinite(scale 0.5): finite elements halved, inf and NaN kept, flag 1.
    VarId a = c.in(F32, {3}, {1, kInf, -2}), b = c.in(F32, {2}, {kNaN, 4});
    VarId cnf = c.op("CheckNonFinite", {a, b}, {{"scale", 0.5f}}, {.outputs = 3});
    const ir::OprId o = c.b.graph().vars.owner[cnf.value];
    VarId cnf1 = c.b.graph().output_var(o, 1), flag = c.b.graph().output_var(o, 2);
    VarId fin = c.op("CheckNonFinite", {c.in(F32, {2}, {1, -1})}, {{"scale", 2.0f}}, {.outputs = 2});
    VarId fin_flag = c.b.graph().output_var(c.b.graph().vars.owner[fin.value], 1);
    const auto out = c.run({w, mf, mh, cnf, cnf1, flag, fin, fin_flag});
    expect_values(stored(out[0]), {1, 6, 3, 8});
    expect_values(stored(out[1]), {1, 2, 3, -3, -3, -3});
    expect_values(stored(out[2]), {0.0999755859375, 2});
    expect_values(stored(out[3]), {0.5, kInf, -1});
    expect_values(stored(out[4]), {kNaN, 2});
    EXPECT_EQ(out[5].dtype().type, DTypeEnum::Int32);
    expect_values(stored(out[5]), {1});
    expect_values(stored(out[6]), {2, -2});
    expect_values(stored(out[7]), {0});
}

TEST(ElemwiseKernels, AssertEqualPassesInputZeroOrRefuses) {
    // err = max |e − g| / max(min(|e|, |g|), 1) = max(0, 0.1/2, 1/100) = 0.05.
    Case c;
    VarId e = c.in(F32, {3}, {1, 2, 100}), g = c.in(F32, {3}, {1, 2.1, 101});
    const Tensor out = c.run1(c.op("AssertEqual", {e, g}, {{"maxerr", 0.1f}}));
    expect_values(stored(out), {1, 2, 100});
    Case d;
    VarId e2 = d.in(F32, {3}, {1, 2, 100}), g2 = d.in(F32, {3}, {1, 2.1, 101});
    expect_refused(d, d.op("AssertEqual", {e2, g2}, {{"maxerr", 0.01f}}), "AssertEqual failed");
}

TEST(ElemwiseKernels, FakeQuantizersBroadcastTheirScales) {
    Case c;
    // FakeQuant, per-row scale [[0.5], [0.1]], zero point 1, [qmin, qmax] = [−4, 3]
    // (numpy float32): (clamp(round(x/s) + zp) − zp)·s.
    VarId fq =
        c.op("FakeQuant",
             {c.in(F32, {2, 2}, {1.26, -3.0, 0.3, 100}), c.in(F32, {2, 1}, {0.5, 0.1}), c.in(F32, {1}, {1})},
             {{"qmin", -4}, {"qmax", 3}});
    // TQT with s = −1: t = 2⁻¹; clamp(round(x/t), −4, 3)·t.
    VarId tq =
        c.op("TQT", {c.in(F32, {3}, {0.3, -10, 0.76}), c.in(F32, {1}, {-1})}, {{"qmin", -4}, {"qmax", 3}});
    // LSQ: (round(clamp(x/s + zp, 0, 3)) − zp)·s with s = 0.5, zp = 1.
    VarId lq = c.op(
        "LSQ", {c.in(F32, {2}, {0.3, 10}), c.in(F32, {1}, {0.5}), c.in(F32, {1}, {1}), c.in(F32, {1}, {1})},
        {{"qmin", 0}, {"qmax", 3}});
    const auto out = c.run({fq, tq, lq});
    expect_floats(stored(out[0]), {1.0, -2.5, 0.20000000298023224, 0.20000000298023224});
    expect_values(stored(out[1]), {0.5, -2, 1});
    expect_values(stored(out[2]), {0.5, 1});
}

}  // namespace
}  // namespace mgedump::test
