// The elemwise family's kernels reproduce MegEngine's outputs bit for bit on
// its own files (megengine-dumps), in every variant: they follow kern_defs.cuh's
// float arithmetic with the same libm, so a last-bit difference would be a
// kernel that departed from the definition. Quantized outputs are compared as
// their storage integers (the .npy files hold those; the scale is the model's).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "engine/eval/npy_tensor.h"
#include "formats/model_reader.h"
#include "tests/eval/eval_test_util.h"
#include "tests/eval/megengine_outputs.h"
#include "tests/megengine_dumps.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

// Every graph of the family whose outputs are all computed by its kernels (and
// the io kernels), including the rewritten forms of ElemwiseMultiType, Where,
// SIGN, the hyperbolic modes and the rest that MegEngine's dumper produced.
// Left out: extra.elemwise_unary, opmatrix.Elemwise.HSIGMOID (and .Float16)
// and opmatrix.Elemwise.SINH, whose rewrites divide by a constant. MegEngine
// executed those with its compile-time NormalizeArithChainPass, which turns
// TRUE_DIV by an immutable scalar into MUL by the scalar's reciprocal
// (src/gopt/impl/basic_arith/chain.cpp); its outputs equal x · (1/6) to the
// bit, the evaluator computes x / 6 as the graph says, so up to one ulp apart
// (within the shared test's tolerance).
const std::vector<std::string> kGraphs = {
    "appendix_c",
    "extra.elemwise_multitype_cmp",
    "opmatrix.AddUpdate",
    "opmatrix.CheckNonFinite.all_outputs",
    "opmatrix.CheckNonFinite.finite",
    "opmatrix.CheckNonFinite.nonfinite",
    "opmatrix.Elemwise.ABS",
    "opmatrix.Elemwise.ABS_GRAD",
    "opmatrix.Elemwise.ACOS",
    "opmatrix.Elemwise.ACOSH",
    "opmatrix.Elemwise.ACOSH_GRAD",
    "opmatrix.Elemwise.ADD",
    "opmatrix.Elemwise.AND",
    "opmatrix.Elemwise.ASIN",
    "opmatrix.Elemwise.ASINH",
    "opmatrix.Elemwise.ASINH_GRAD",
    "opmatrix.Elemwise.ATAN2",
    "opmatrix.Elemwise.ATANH",
    "opmatrix.Elemwise.ATANH_GRAD",
    "opmatrix.Elemwise.CEIL",
    "opmatrix.Elemwise.CLIP",
    "opmatrix.Elemwise.COND_LEQ_MOV",
    "opmatrix.Elemwise.COND_LT_MOV",
    "opmatrix.Elemwise.COS",
    "opmatrix.Elemwise.COSH",
    "opmatrix.Elemwise.EQ",
    "opmatrix.Elemwise.ERF",
    "opmatrix.Elemwise.ERFC",
    "opmatrix.Elemwise.ERFCINV",
    "opmatrix.Elemwise.ERFINV",
    "opmatrix.Elemwise.EXP",
    "opmatrix.Elemwise.EXPM1",
    "opmatrix.Elemwise.FAST_TANH",
    "opmatrix.Elemwise.FAST_TANH_GRAD",
    "opmatrix.Elemwise.FLOOR",
    "opmatrix.Elemwise.FLOOR_DIV",
    "opmatrix.Elemwise.FUSE_ADD_H_SWISH",
    "opmatrix.Elemwise.FUSE_ADD_RELU",
    "opmatrix.Elemwise.FUSE_ADD_SIGMOID",
    "opmatrix.Elemwise.FUSE_ADD_TANH",
    "opmatrix.Elemwise.FUSE_MUL_ADD3",
    "opmatrix.Elemwise.FUSE_MUL_ADD4",
    "opmatrix.Elemwise.GELU",
    "opmatrix.Elemwise.GELU_GRAD",
    "opmatrix.Elemwise.HSIGMOID_GRAD",
    "opmatrix.Elemwise.H_SWISH",
    "opmatrix.Elemwise.H_SWISH_GRAD",
    "opmatrix.Elemwise.LEQ",
    "opmatrix.Elemwise.LOG",
    "opmatrix.Elemwise.LOG1P",
    "opmatrix.Elemwise.LOGSIGMOID",
    "opmatrix.Elemwise.LOG_SUM_EXP",
    "opmatrix.Elemwise.LT",
    "opmatrix.Elemwise.MAX",
    "opmatrix.Elemwise.MIN",
    "opmatrix.Elemwise.MOD",
    "opmatrix.Elemwise.MUL",
    "opmatrix.Elemwise.NEGATE",
    "opmatrix.Elemwise.NOT",
    "opmatrix.Elemwise.OR",
    "opmatrix.Elemwise.POW",
    "opmatrix.Elemwise.PRELU",
    "opmatrix.Elemwise.PRELU_GRAD",
    "opmatrix.Elemwise.RELU",
    "opmatrix.Elemwise.RELU6",
    "opmatrix.Elemwise.RELU6.Int32",
    "opmatrix.Elemwise.RELU6_GRAD",
    "opmatrix.Elemwise.RMULH",
    "opmatrix.Elemwise.ROUND",
    "opmatrix.Elemwise.SHL",
    "opmatrix.Elemwise.SHR",
    "opmatrix.Elemwise.SIGMOID",
    "opmatrix.Elemwise.SIGMOID_GRAD",
    "opmatrix.Elemwise.SIGN",
    "opmatrix.Elemwise.SIGN.Int32",
    "opmatrix.Elemwise.SILU",
    "opmatrix.Elemwise.SILU_GRAD",
    "opmatrix.Elemwise.SIN",
    "opmatrix.Elemwise.SOFTPLUS",
    "opmatrix.Elemwise.SOFTPLUS_GRAD",
    "opmatrix.Elemwise.SQRT",
    "opmatrix.Elemwise.SQRT.Float16",
    "opmatrix.Elemwise.SQUARE",
    "opmatrix.Elemwise.SUB",
    "opmatrix.Elemwise.SWITCH_GT0",
    "opmatrix.Elemwise.TAN",
    "opmatrix.Elemwise.TANH",
    "opmatrix.Elemwise.TANH_GRAD",
    "opmatrix.Elemwise.TRUE_DIV",
    "opmatrix.Elemwise.XOR",
    "opmatrix.ElemwiseMultiType.EQ",
    "opmatrix.ElemwiseMultiType.FUSE_MUL_ADD3_INT16x32x32x32",
    "opmatrix.ElemwiseMultiType.FUSE_MUL_ADD3_INT16xF32xF32xF32",
    "opmatrix.ElemwiseMultiType.FUSE_MUL_ADD3_UINT8xF32xF32xF32",
    "opmatrix.ElemwiseMultiType.ISINF",
    "opmatrix.ElemwiseMultiType.ISNAN",
    "opmatrix.ElemwiseMultiType.LEQ",
    "opmatrix.ElemwiseMultiType.LT",
    "opmatrix.ElemwiseMultiType.MUL_INT16xF32xF32",
    "opmatrix.ElemwiseMultiType.NEQ",
    "opmatrix.ElemwiseMultiType.QADD",
    "opmatrix.ElemwiseMultiType.QFUSE_ADD_RELU",
    "opmatrix.ElemwiseMultiType.QFUSE_MUL_ADD3",
    "opmatrix.ElemwiseMultiType.QMUL",
    "opmatrix.ElemwiseMultiType.QRELU",
    "opmatrix.ElemwiseMultiType.QSIGMOID",
    "opmatrix.ElemwiseMultiType.ROUND_SHR_SATURATE_IXxI8xI8",
    "opmatrix.FakeQuant",
    "opmatrix.ImmutableTensor",
    "opmatrix.LSQ",
    "opmatrix.MaskedFill",
    "opmatrix.MultipleDeviceTensorHolder",
    "opmatrix.MultipleDeviceTensorWithFormatHolder",
    "opmatrix.MultipleDeviceTensorWithFormatHolder.with_format_blobs",
    "opmatrix.PowC",
    "opmatrix.SharedDeviceTensor",
    "opmatrix.SharedDeviceTensorWithFormat",
    "opmatrix.SharedDeviceTensorWithFormat.with_format_blob",
    "opmatrix.TQT",
    "opmatrix.TypeCvt.Float32_to_Float16",
    "opmatrix.TypeCvt.Float32_to_Int32",
    "opmatrix.TypeCvt.Float32_to_Quantized8Asymm",
    "opmatrix.TypeCvt.Float32_to_QuantizedS32",
    "opmatrix.TypeCvt.Float32_to_QuantizedS8",
    "opmatrix.TypeCvt.QuantizedS8_to_Float32",
    "opmatrix.VolatileSharedDeviceTensor",
    "opmatrix.Where",
    "opmatrix.Where.nonfinite",
};

class ElemwiseOracleBits : public ::testing::TestWithParam<std::string> {};

TEST_P(ElemwiseOracleBits, EveryVariantsOutputsAreMegEnginesToTheBit) {
    const fs::path dir = test::dumps_dir() / GetParam();
    int variants = 0;
    for (const char* variant : test::kVariants) {
        const fs::path file = dir / (std::string(variant) + ".mge");
        const fs::path outputs = dir / "outputs" / variant;
        if (!fs::exists(file) || !fs::exists(outputs)) continue;
        ++variants;
        SCOPED_TRACE(file.string());
        auto bytes = test::read_file(file);
        formats::LoadedModel m = formats::read_model(*bytes, bytes);
        const auto got = engine::eval::evaluate(m.graph, test::feeds_for(m.graph, dir / "inputs"));
        const std::vector<fs::path> want = test::expected_outputs(outputs);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            const engine::eval::Tensor expected = engine::eval::read_npy_tensor(want[i]);
            const engine::eval::Tensor& value = got[i].value;
            EXPECT_EQ(test::storage_dtype(value.dtype().type), expected.dtype().type) << want[i].filename();
            ASSERT_EQ(value.shape(), expected.shape()) << want[i].filename();
            ASSERT_EQ(value.bytes().size(), expected.bytes().size());
            EXPECT_EQ(std::memcmp(value.bytes().data(), expected.bytes().data(), expected.bytes().size()), 0)
                << want[i].filename() << ": "
                << test::compare_tensors(value, expected, test::Tolerance{0, 0});
        }
    }
    EXPECT_GT(variants, 0) << "no file with outputs in " << dir;
}

INSTANTIATE_TEST_SUITE_P(Dumps, ElemwiseOracleBits, ::testing::ValuesIn(kGraphs), test::graph_test_name);

}  // namespace
}  // namespace mgedump
