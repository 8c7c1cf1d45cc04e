// The param vocabulary transcribed from the spec (megengine-format.md Appendix A for
// the tables, Appendix B for the enums). Fields are listed in declaration order
// because a field's position is its wire slot; defaults are the schema's own text.
// The transcription was generated mechanically from the spec tables once and is
// maintained by hand: a change here is a format change, so check it against the spec.
#include "ir/param_defs_data.h"

namespace mgedump::ir::detail {
namespace {

constexpr EnumMember kArgsortOrderMembers[] = {
    {"ASCENDING", 0},
    {"DESCENDING", 1},
};
constexpr EnumMember kBNFwdModeMembers[] = {
    {"TRAINING", 0},
    {"INFERENCE", 1},
};
constexpr EnumMember kBNParamDimMembers[] = {
    {"DIM_11HW", 0},
    {"DIM_1CHW", 1},
    {"DIM_1C11", 2},
    {"DIM_111C", 3},
};
constexpr EnumMember kCollectiveCommModeMembers[] = {
    {"REDUCE_SUM", 0},     {"BROADCAST", 1},      {"ALL_GATHER", 2},     {"REDUCE_SCATTER_SUM", 3},
    {"ALL_REDUCE_SUM", 4}, {"ALL_REDUCE_MAX", 5}, {"ALL_REDUCE_MIN", 6}, {"ALL_REDUCE_PROD", 7},
    {"GATHER", 8},         {"SCATTER", 9},        {"ALL_TO_ALL", 10},
};
constexpr EnumMember kCondExecMarkGradModeMembers[] = {
    {"SUM", 0},
    {"SUM_COND_OUT", 1},
};
constexpr EnumMember kCondExecMarkStaticInferMembers[] = {
    {"SHAPE_VALUE", 0},
    {"SHAPE_ONLY", 1},
    {"NONE", 2},
};
constexpr EnumMember kCondExecMergeModeMembers[] = {
    {"EXACT_ONE", 0},
    {"EXACT_ONE_SAME_SHAPE", 1},
    {"SUM", 2},
    {"SUM_COND_OUT", 3},
};
constexpr EnumMember kCondExecPredLogicalModeMembers[] = {
    {"OR", 0}, {"AND", 1}, {"XOR", 2}, {"NOR", 3}, {"NAND", 4}, {"XNOR", 5},
};
constexpr EnumMember kCondExecPredModeMembers[] = {
    {"CASE", 0},
    {"CASE_FALLBACK", 1},
    {"PIECEWISE", 2},
};
constexpr EnumMember kCondTakeModeMembers[] = {
    {"EQ", 0}, {"NEQ", 1}, {"LT", 2}, {"LEQ", 3}, {"GT", 4}, {"GEQ", 5},
};
constexpr EnumMember kConv3DBiasNonlineModeMembers[] = {
    {"IDENTITY", 0},
    {"RELU", 1},
    {"SIGMOID", 2},
};
constexpr EnumMember kConvBiasV0NonlineModeMembers[] = {
    {"IDENTITY", 0},
    {"RELU", 1},
    {"SIGMOID", 2},
    {"H_SWISH", 3},
};
constexpr EnumMember kConvPoolingMethodMembers[] = {
    {"WITH_TEXTURE_OBJ", 0},
    {"WITH_SHARED_MEM", 1},
};
constexpr EnumMember kConvPoolingNonlineModeMembers[] = {
    {"IDENTITY", 0},
    {"RELU", 1},
    {"SIGMOID", 2},
};
constexpr EnumMember kConvPoolingPoolModeMembers[] = {
    {"AVERAGE", 0},
    {"MAX_", 1},
};
constexpr EnumMember kConvolution3DDataTypeMembers[] = {
    {"FLOAT", 0},
    {"FLOAT_IO16xC32", 1},
};
constexpr EnumMember kConvolution3DFormatMembers[] = {
    {"NCDHW", 0},
    {"NDHWC", 1},
};
constexpr EnumMember kConvolution3DModeMembers[] = {
    {"CROSS_CORRELATION", 0},
    {"CONVOLUTION", 1},
};
constexpr EnumMember kConvolution3DSparseMembers[] = {
    {"DENSE", 0},
    {"GROUP", 1},
};
constexpr EnumMember kConvolutionFormatMembers[] = {
    {"NCHW", 0},
    {"NHWC", 1},
    {"NHWCD4", 2},
    {"NCHW4", 3},
    {"NCHW8", 4},
    {"NCHW32", 5},
    {"NCHW88", 6},
    {"NCHW44", 7},
    {"NCHW44_DOT", 8},
    {"NCHW4_NCHW32", 9},
    {"NCHW32_NCHW4", 10},
    {"NCHW4_NCHW", 11},
    {"NHWC_NCHW", 12},
    {"NHWC_NCHW4_IC_SMALL", 13},
    {"NCHW_NCHW4_IC_SMALL", 14},
    {"CHWN4", 15},
    {"NCHW64", 16},
    {"NCHW4_NHWC", 17},
};
constexpr EnumMember kConvolutionV0FormatMembers[] = {
    {"NCHW", 0},
    {"NHWC", 1},
    {"NHWCD4", 2},
    {"NCHW4", 3},
    {"NCHW8", 4},
    {"NCHW32", 5},
    {"NCHW88", 6},
    {"NCHW44", 7},
    {"NCHW44_DOT", 8},
    {"NCHW_WINOGRAD", 9},
    {"NCHW88_WINOGRAD", 10},
    {"NCHW44_WINOGRAD", 11},
    {"NCHW4_NCHW32", 12},
    {"NCHW32_NCHW4", 13},
    {"NCHW4_NCHW", 14},
    {"NHWC_NCHW", 15},
    {"NHWC_NCHW4_IC_SMALL", 16},
    {"NCHW_NCHW4_IC_SMALL", 17},
    {"CHWN4", 18},
    {"NCHW4_NHWC", 19},
};
constexpr EnumMember kConvolutionV0ModeMembers[] = {
    {"CROSS_CORRELATION", 0},
    {"CONVOLUTION", 1},
};
constexpr EnumMember kConvolutionV0SparseMembers[] = {
    {"DENSE", 0},
    {"GROUP", 1},
};
constexpr EnumMember kConvolutionV1ComputeModeMembers[] = {
    {"DEFAULT", 0},
    {"FLOAT32", 1},
};
constexpr EnumMember kCvtColorModeMembers[] = {
    {"RGB2GRAY", 0},
    {"RGB2YUV", 1},
    {"YUV2RGB", 2},
    {"GRAY2RGB", 3},
    {"RGBA2RGB", 4},
    {"RGBA2BGR", 5},
    {"RGBA2GRAY", 6},
    {"RGB2BGR", 7},
    {"BGR2GRAY", 8},
    {"BGR2RGB", 9},
    {"YUV2GRAY_NV21", 10},
    {"YUV2RGB_NV21", 11},
    {"YUV2BGR_NV21", 12},
    {"YUV2GRAY_NV12", 13},
    {"YUV2RGB_NV12", 14},
    {"YUV2BGR_NV12", 15},
    {"YUV2GRAY_YV12", 16},
    {"YUV2RGB_YV12", 17},
    {"YUV2BGR_YV12", 18},
    {"YUV2GRAY_YU12", 19},
    {"YUV2RGB_YU12", 20},
    {"YUV2BGR_YU12", 21},
    {"YCrCb2RGB", 22},
    {"YCrCb2BGR", 23},
    {"BT601_YUV2RGB_NV21", 24},
    {"BT601_YUV2BGR_NV21", 25},
    {"BT601_YUV2RGB_NV12", 26},
    {"BT601_YUV2BGR_NV12", 27},
    {"BT601_YUV2RGB_YV12", 28},
    {"BT601_YUV2BGR_YV12", 29},
    {"BT601_YUV2RGB_YU12", 30},
    {"BT601_YUV2BGR_YU12", 31},
};
constexpr EnumMember kDTypeEnumMembers[] = {
    {"Float32", 0},       {"Uint8", 1},         {"Int8", 2},
    {"Int16", 3},         {"Int32", 4},         {"IntB1", 5},
    {"IntB2", 6},         {"IntB4", 7},         {"Byte", 8},
    {"Float16", 9},       {"UintB4", 10},       {"Quantized8Asymm", 11},
    {"QuantizedS32", 12}, {"QuantizedS8", 13},  {"Quantized4Asymm", 14},
    {"QuantizedS4", 15},  {"QuantizedS16", 16}, {"BFloat16", 17},
    {"Bool", 18},         {"Uint16", 19},       {"QuantizedS1", 20},
    {"Complex64", 21},
};
constexpr EnumMember kDctChannelSelectV0FastImplMembers[] = {
    {"NONE", 0},
    {"FIX_32_MASK", 1},
};
constexpr EnumMember kElemwiseModeMembers[] = {
    {"RELU", 0},
    {"ABS", 1},
    {"ACOS", 2},
    {"ASIN", 3},
    {"CEIL", 4},
    {"COS", 5},
    {"EXP", 6},
    {"EXPM1", 7},
    {"FLOOR", 8},
    {"LOG", 9},
    {"LOG1P", 10},
    {"NEGATE", 11},
    {"SIGMOID", 12},
    {"SIN", 13},
    {"TANH", 14},
    {"ABS_GRAD", 15},
    {"ADD", 16},
    {"FLOOR_DIV", 17},
    {"MAX_", 18},
    {"MIN_", 19},
    {"MOD", 20},
    {"MUL", 21},
    {"POW", 22},
    {"SIGMOID_GRAD", 23},
    {"SUB", 24},
    {"SWITCH_GT0", 25},
    {"TANH_GRAD", 26},
    {"TRUE_DIV", 27},
    {"LOG_SUM_EXP", 28},
    {"LT", 29},
    {"LEQ", 30},
    {"EQ", 31},
    {"SHL", 32},
    {"SHR", 33},
    {"COND_LEQ_MOV", 34},
    {"FUSE_MUL_ADD3", 35},
    {"FUSE_MUL_ADD4", 36},
    {"FUSE_ADD_RELU", 37},
    {"FUSE_ADD_SIGMOID", 38},
    {"FUSE_ADD_TANH", 39},
    {"FAST_TANH", 40},
    {"FAST_TANH_GRAD", 41},
    {"ROUND", 42},
    {"RMULH", 43},
    {"ATAN2", 44},
    {"ERF", 45},
    {"ERFINV", 46},
    {"ERFC", 47},
    {"ERFCINV", 48},
    {"H_SWISH", 49},
    {"H_SWISH_GRAD", 50},
    {"FUSE_ADD_H_SWISH", 51},
    {"NOT", 52},
    {"AND", 53},
    {"OR", 54},
    {"XOR", 55},
    {"SILU", 56},
    {"SILU_GRAD", 57},
    {"GELU", 58},
    {"GELU_GRAD", 59},
    {"COND_LT_MOV", 60},
    {"NEQ", 61},
    {"ISNAN", 62},
    {"ISINF", 63},
    {"SINH", 64},
    {"COSH", 65},
    {"ASINH", 66},
    {"ACOSH", 67},
    {"ATANH", 68},
    {"TAN", 69},
    {"ASINH_GRAD", 70},
    {"ACOSH_GRAD", 71},
    {"ATANH_GRAD", 72},
    {"PRELU", 73},
    {"CLIP", 74},
    {"PRELU_GRAD", 75},
    {"SOFTPLUS", 76},
    {"SOFTPLUS_GRAD", 77},
    {"RELU6", 78},
    {"RELU6_GRAD", 79},
    {"HSIGMOID", 80},
    {"HSIGMOID_GRAD", 81},
    {"LOGSIGMOID", 82},
    {"SQRT", 83},
    {"SQUARE", 84},
    {"SIGN", 85},
};
constexpr EnumMember kElemwiseMultiTypeModeMembers[] = {
    {"FUSE_MUL_ADD3_INT16x32x32x32", 0},
    {"FUSE_MUL_ADD3_IXxF32xF32xI8", 1},
    {"ROUND_SHR_SATURATE_IXxI8xI8", 2},
    {"FUSE_ADD_RMULH_ROUND_SHR_SATURATE_INT16x16x16x8", 3},
    {"FUSE_ADD_RMULH_ROUND_SHR_SATURATE_INT32x32x32x8", 4},
    {"ROUND_SHR_SATURATE_IXxI8xI16", 5},
    {"QADD", 6},
    {"QFUSE_ADD_RELU", 7},
    {"QMUL", 8},
    {"QMIN", 9},
    {"QMAX", 10},
    {"QSUB", 11},
    {"QTRUE_DIV", 12},
    {"QFUSE_ADD_SIGMOID", 13},
    {"QFUSE_ADD_TANH", 14},
    {"QRELU", 15},
    {"QABS", 16},
    {"QSIGMOID", 17},
    {"QEXP", 18},
    {"QTANH", 19},
    {"QFUSE_MUL_ADD3", 20},
    {"QFAST_TANH", 21},
    {"QNEGATE", 22},
    {"QACOS", 23},
    {"QASIN", 24},
    {"QCEIL", 25},
    {"QCOS", 26},
    {"QEXPM1", 27},
    {"QFLOOR", 28},
    {"QLOG", 29},
    {"QLOG1P", 30},
    {"QSIN", 31},
    {"QROUND", 32},
    {"QERF", 33},
    {"QERFINV", 34},
    {"QERFC", 35},
    {"QERFCINV", 36},
    {"QABS_GRAD", 37},
    {"QFLOOR_DIV", 38},
    {"QMOD", 39},
    {"QSIGMOID_GRAD", 40},
    {"QSWITCH_GT0", 41},
    {"QTANH_GRAD", 42},
    {"QLT", 43},
    {"QLEQ", 44},
    {"QEQ", 45},
    {"QPOW", 46},
    {"QLOG_SUM_EXP", 47},
    {"QFAST_TANH_GRAD", 48},
    {"QATAN2", 49},
    {"QCOND_LEQ_MOV", 50},
    {"QH_SWISH", 51},
    {"QFUSE_ADD_H_SWISH", 52},
    {"QH_SWISH_GRAD", 53},
    {"FUSE_MUL_ADD3_INT16xF32xF32xF32", 54},
    {"MUL_INT16xF32xF32", 55},
    {"FUSE_MUL_ADD3_UINT8xF32xF32xF32", 56},
    {"QCOND_LT_MOV", 57},
    {"EQ", 58},
    {"NEQ", 59},
    {"LT", 60},
    {"LEQ", 61},
    {"ISNAN", 62},
    {"ISINF", 63},
};
constexpr EnumMember kExecutionPolicyStrategyMembers[] = {
    {"HEURISTIC", 1},
    {"PROFILE", 2},
    {"REPRODUCIBLE", 4},
    {"OPTIMIZED", 8},
};
constexpr EnumMember kMatrixMulFormatMembers[] = {
    {"DEFAULT", 0}, {"MK4", 1}, {"MK8", 2}, {"MK4_DOT", 3}, {"N32K4_DOT", 4},
};
constexpr EnumMember kMatrixMulV1ComputeModeMembers[] = {
    {"DEFAULT", 0},
    {"FLOAT32", 1},
};
constexpr EnumMember kMultiHeadAttnAttnMaskTypeMembers[] = {
    {"NO_MASK", 0},
    {"DEFAULT_MASK", 1},
    {"CUDNN_STYLE_MASK", 2},
    {"USER_DEFINED_MASK", 3},
};
constexpr EnumMember kMultiHeadAttnTensorCombinationTypeMembers[] = {
    {"NONE", 0},
    {"ONLY_MASK", 1},
    {"ONLY_BIASKV", 2},
    {"ALL", 3},
};
constexpr EnumMember kPaddingPaddingModeMembers[] = {
    {"REPLICATE", 0},
    {"REFLECT", 1},
    {"CONSTANT", 2},
};
constexpr EnumMember kPoolingV0ModeMembers[] = {
    {"MAX_", 0},
    {"AVERAGE", 1},
    {"AVERAGE_COUNT_EXCLUDE_PADDING", 2},
};
constexpr EnumMember kRNNCellNonlineModeMembers[] = {
    {"IDENTITY", 0},
    {"RELU", 1},
    {"TANH", 2},
};
constexpr EnumMember kROIAlignV0ModeMembers[] = {
    {"MAX_", 0},
    {"AVERAGE", 1},
};
constexpr EnumMember kROIPoolingModeMembers[] = {
    {"MAX_", 0},
    {"AVERAGE", 1},
};
constexpr EnumMember kReduceDataTypeMembers[] = {
    {"DEFAULT", 0},       {"FLOAT_IO16xC32", 1}, {"FLOAT_O32xC32", 2},
    {"FLOAT_O16xC32", 3}, {"QUINT_I8xO32", 4},   {"QINT_I8xO32", 5},
};
constexpr EnumMember kReduceModeMembers[] = {
    {"SUM", 0}, {"SUM_SQR", 1}, {"PRODUCT", 2}, {"MIN_", 3}, {"MAX_", 4}, {"MEAN", 5},
};
constexpr EnumMember kRelayoutFormatV0ModeMembers[] = {
    {"NHWC_NHWCD4", 0},
    {"NHWCD4_NHWC", 1},
    {"NHWC_NHWCD4I", 2},
    {"NCHW_NHWCD4", 3},
    {"NCHW_NHWCD4I", 4},
    {"NHWCD4I_NCHW", 5},
    {"NHWCD4_NCHW", 6},
    {"INTER_WEIGHT_DENSE", 7},
    {"INTER_WEIGHT_DENSEI", 8},
    {"INTER_WEIGHT_GROUP", 9},
    {"INTER_WEIGHT_GROUPI", 10},
    {"INTER_WEIGHT_CHAN", 11},
    {"INTER_WEIGHT_CHANI", 12},
    {"INTER_WEIGHT_DENSEI_DOT", 13},
    {"INTER_WEIGHT_GROUPI_DOT", 14},
    {"NCHW4_CHWN4", 15},
    {"CHWN4_NCHW4", 16},
    {"NCHW_NCHW88_CONV_DENSE_WEIGHT", 17},
    {"NCHW_NCHW88_CONV_CHAN_WEIGHT", 18},
    {"NCHW_NCHW88_CONV_GROUP_WEIGHT", 19},
    {"NCHW_NCHW88", 20},
    {"NCHW88_NCHW", 21},
    {"NCHW_NCHW4_IC_SMALL", 22},
    {"NCHW_NCHW4_IC_SMALL_CONV_DENSE_WEIGHT", 23},
    {"NCHW_NCHW4", 24},
    {"NCHW4_NCHW", 25},
    {"NCHW_NCHW4_WEIGHT", 26},
    {"NCHW_NCHW64", 27},
    {"NCHW64_NCHW", 28},
    {"NCHW_NHWC", 29},
    {"NHWC_NCHW", 30},
    {"NHWCD4I_NHWC", 31},
};
constexpr EnumMember kSeparableConv3DBorderModeMembers[] = {
    {"BORDER_REPLICATE", 0}, {"BORDER_REFLECT", 1},     {"BORDER_REFLECT_101", 2}, {"BORDER_WRAP", 3},
    {"BORDER_CONSTANT", 4},  {"BORDER_TRANSPARENT", 5}, {"BORDER_ISOLATED", 6},
};
constexpr EnumMember kSeparableConvBorderModeMembers[] = {
    {"BORDER_REPLICATE", 0}, {"BORDER_REFLECT", 1},     {"BORDER_REFLECT_101", 2}, {"BORDER_WRAP", 3},
    {"BORDER_CONSTANT", 4},  {"BORDER_TRANSPARENT", 5}, {"BORDER_ISOLATED", 6},
};
constexpr EnumMember kSpatialTfGridGeneratorModeMembers[] = {
    {"AFFINE", 0},
};
constexpr EnumMember kSpatialTfSamplerModeMembers[] = {
    {"BILINEAR", 0},
};
constexpr EnumMember kTopKModeMembers[] = {
    {"KTH_ONLY", 0},
    {"VALUE_IDX_NOSORT", 1},
    {"VALUE_IDX_SORTED", 2},
};
constexpr EnumMember kWarpPerspectiveV1BorderModeMembers[] = {
    {"REPLICATE", 0}, {"REFLECT", 1},     {"REFLECT_101", 2}, {"WRAP", 3},
    {"CONSTANT", 4},  {"TRANSPARENT", 5}, {"ISOLATED", 6},
};
constexpr EnumMember kWarpPerspectiveV1InterpolationModeMembers[] = {
    {"NEAREST", 0}, {"LINEAR", 1}, {"AREA", 2}, {"CUBIC", 3}, {"LANCZOS4", 4},
};
constexpr EnumMember kAxisDescMethodMembers[] = {
    {"ADD_1", 0},
    {"REMOVE", 1},
};
constexpr EnumDesc kArgsortOrder{"ArgsortOrder", kArgsortOrderMembers};
constexpr EnumDesc kBNFwdMode{"BNFwdMode", kBNFwdModeMembers};
constexpr EnumDesc kBNParamDim{"BNParamDim", kBNParamDimMembers};
constexpr EnumDesc kCollectiveCommMode{"CollectiveCommMode", kCollectiveCommModeMembers};
constexpr EnumDesc kCondExecMarkGradMode{"CondExecMarkGradMode", kCondExecMarkGradModeMembers};
constexpr EnumDesc kCondExecMarkStaticInfer{"CondExecMarkStaticInfer", kCondExecMarkStaticInferMembers};
constexpr EnumDesc kCondExecMergeMode{"CondExecMergeMode", kCondExecMergeModeMembers};
constexpr EnumDesc kCondExecPredLogicalMode{"CondExecPredLogicalMode", kCondExecPredLogicalModeMembers};
constexpr EnumDesc kCondExecPredMode{"CondExecPredMode", kCondExecPredModeMembers};
constexpr EnumDesc kCondTakeMode{"CondTakeMode", kCondTakeModeMembers};
constexpr EnumDesc kConv3DBiasNonlineMode{"Conv3DBiasNonlineMode", kConv3DBiasNonlineModeMembers};
constexpr EnumDesc kConvBiasV0NonlineMode{"ConvBiasV0NonlineMode", kConvBiasV0NonlineModeMembers};
constexpr EnumDesc kConvPoolingMethod{"ConvPoolingMethod", kConvPoolingMethodMembers};
constexpr EnumDesc kConvPoolingNonlineMode{"ConvPoolingNonlineMode", kConvPoolingNonlineModeMembers};
constexpr EnumDesc kConvPoolingPoolMode{"ConvPoolingPoolMode", kConvPoolingPoolModeMembers};
constexpr EnumDesc kConvolution3DDataType{"Convolution3DDataType", kConvolution3DDataTypeMembers};
constexpr EnumDesc kConvolution3DFormat{"Convolution3DFormat", kConvolution3DFormatMembers};
constexpr EnumDesc kConvolution3DMode{"Convolution3DMode", kConvolution3DModeMembers};
constexpr EnumDesc kConvolution3DSparse{"Convolution3DSparse", kConvolution3DSparseMembers};
constexpr EnumDesc kConvolutionFormat{"ConvolutionFormat", kConvolutionFormatMembers};
constexpr EnumDesc kConvolutionV0Format{"ConvolutionV0Format", kConvolutionV0FormatMembers};
constexpr EnumDesc kConvolutionV0Mode{"ConvolutionV0Mode", kConvolutionV0ModeMembers};
constexpr EnumDesc kConvolutionV0Sparse{"ConvolutionV0Sparse", kConvolutionV0SparseMembers};
constexpr EnumDesc kConvolutionV1ComputeMode{"ConvolutionV1ComputeMode", kConvolutionV1ComputeModeMembers};
constexpr EnumDesc kCvtColorMode{"CvtColorMode", kCvtColorModeMembers};
constexpr EnumDesc kDTypeEnum{"DTypeEnum", kDTypeEnumMembers};
constexpr EnumDesc kDctChannelSelectV0FastImpl{"DctChannelSelectV0FastImpl",
                                               kDctChannelSelectV0FastImplMembers};
constexpr EnumDesc kElemwiseMode{"ElemwiseMode", kElemwiseModeMembers};
constexpr EnumDesc kElemwiseMultiTypeMode{"ElemwiseMultiTypeMode", kElemwiseMultiTypeModeMembers};
constexpr EnumDesc kExecutionPolicyStrategy{"ExecutionPolicyStrategy", kExecutionPolicyStrategyMembers, true};
constexpr EnumDesc kMatrixMulFormat{"MatrixMulFormat", kMatrixMulFormatMembers};
constexpr EnumDesc kMatrixMulV1ComputeMode{"MatrixMulV1ComputeMode", kMatrixMulV1ComputeModeMembers};
constexpr EnumDesc kMultiHeadAttnAttnMaskType{"MultiHeadAttnAttnMaskType", kMultiHeadAttnAttnMaskTypeMembers};
constexpr EnumDesc kMultiHeadAttnTensorCombinationType{"MultiHeadAttnTensorCombinationType",
                                                       kMultiHeadAttnTensorCombinationTypeMembers};
constexpr EnumDesc kPaddingPaddingMode{"PaddingPaddingMode", kPaddingPaddingModeMembers};
constexpr EnumDesc kPoolingV0Mode{"PoolingV0Mode", kPoolingV0ModeMembers};
constexpr EnumDesc kRNNCellNonlineMode{"RNNCellNonlineMode", kRNNCellNonlineModeMembers};
constexpr EnumDesc kROIAlignV0Mode{"ROIAlignV0Mode", kROIAlignV0ModeMembers};
constexpr EnumDesc kROIPoolingMode{"ROIPoolingMode", kROIPoolingModeMembers};
constexpr EnumDesc kReduceDataType{"ReduceDataType", kReduceDataTypeMembers};
constexpr EnumDesc kReduceMode{"ReduceMode", kReduceModeMembers};
constexpr EnumDesc kRelayoutFormatV0Mode{"RelayoutFormatV0Mode", kRelayoutFormatV0ModeMembers};
constexpr EnumDesc kSeparableConv3DBorderMode{"SeparableConv3DBorderMode", kSeparableConv3DBorderModeMembers};
constexpr EnumDesc kSeparableConvBorderMode{"SeparableConvBorderMode", kSeparableConvBorderModeMembers};
constexpr EnumDesc kSpatialTfGridGeneratorMode{"SpatialTfGridGeneratorMode",
                                               kSpatialTfGridGeneratorModeMembers};
constexpr EnumDesc kSpatialTfSamplerMode{"SpatialTfSamplerMode", kSpatialTfSamplerModeMembers};
constexpr EnumDesc kTopKMode{"TopKMode", kTopKModeMembers};
constexpr EnumDesc kWarpPerspectiveV1BorderMode{"WarpPerspectiveV1BorderMode",
                                                kWarpPerspectiveV1BorderModeMembers};
constexpr EnumDesc kWarpPerspectiveV1InterpolationMode{"WarpPerspectiveV1InterpolationMode",
                                                       kWarpPerspectiveV1InterpolationModeMembers};
constexpr EnumDesc kAxisDescMethod{"AxisDescMethod", kAxisDescMethodMembers};
constexpr const EnumDesc* kEnums[] = {
    &kArgsortOrder,
    &kBNFwdMode,
    &kBNParamDim,
    &kCollectiveCommMode,
    &kCondExecMarkGradMode,
    &kCondExecMarkStaticInfer,
    &kCondExecMergeMode,
    &kCondExecPredLogicalMode,
    &kCondExecPredMode,
    &kCondTakeMode,
    &kConv3DBiasNonlineMode,
    &kConvBiasV0NonlineMode,
    &kConvPoolingMethod,
    &kConvPoolingNonlineMode,
    &kConvPoolingPoolMode,
    &kConvolution3DDataType,
    &kConvolution3DFormat,
    &kConvolution3DMode,
    &kConvolution3DSparse,
    &kConvolutionFormat,
    &kConvolutionV0Format,
    &kConvolutionV0Mode,
    &kConvolutionV0Sparse,
    &kConvolutionV1ComputeMode,
    &kCvtColorMode,
    &kDTypeEnum,
    &kDctChannelSelectV0FastImpl,
    &kElemwiseMode,
    &kElemwiseMultiTypeMode,
    &kExecutionPolicyStrategy,
    &kMatrixMulFormat,
    &kMatrixMulV1ComputeMode,
    &kMultiHeadAttnAttnMaskType,
    &kMultiHeadAttnTensorCombinationType,
    &kPaddingPaddingMode,
    &kPoolingV0Mode,
    &kRNNCellNonlineMode,
    &kROIAlignV0Mode,
    &kROIPoolingMode,
    &kReduceDataType,
    &kReduceMode,
    &kRelayoutFormatV0Mode,
    &kSeparableConv3DBorderMode,
    &kSeparableConvBorderMode,
    &kSpatialTfGridGeneratorMode,
    &kSpatialTfSamplerMode,
    &kTopKMode,
    &kWarpPerspectiveV1BorderMode,
    &kWarpPerspectiveV1InterpolationMode,
    &kAxisDescMethod,
};

constexpr FieldDesc kAxisFields[] = {
    {"axis", FieldType::Int32, "0"},
};
constexpr FieldDesc kConvolutionFields[] = {
    {"mode", FieldType::Enum, "CROSS_CORRELATION", &kConvolutionV0Mode},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"},
    {"stride_w", FieldType::UInt32, "1"},
    {"dilate_h", FieldType::UInt32, "1"},
    {"dilate_w", FieldType::UInt32, "1"},
    {"sparse", FieldType::Enum, "DENSE", &kConvolutionV0Sparse},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
    {"compute_mode", FieldType::Enum, "DEFAULT", &kConvolutionV1ComputeMode},
};
constexpr FieldDesc kMaskPropagateFields[] = {
    {"pad_h", FieldType::UInt32, "0"},    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"}, {"stride_w", FieldType::UInt32, "1"},
    {"kernel_h", FieldType::UInt32, "1"}, {"kernel_w", FieldType::UInt32, "1"},
    {"dilate_h", FieldType::UInt32, "1"}, {"dilate_w", FieldType::UInt32, "1"},
};
constexpr FieldDesc kConvPoolingFields[] = {
    {"method", FieldType::Enum, "WITH_TEXTURE_OBJ", &kConvPoolingMethod},
    {"convMode", FieldType::Enum, "CROSS_CORRELATION", &kConvolutionV0Mode},
    {"poolMode", FieldType::Enum, "AVERAGE", &kConvPoolingPoolMode},
    {"nonlineMode", FieldType::Enum, "IDENTITY", &kConvPoolingNonlineMode},
    {"pool_shape_h", FieldType::UInt32, "1"},
    {"pool_shape_w", FieldType::UInt32, "1"},
    {"pool_stride_h", FieldType::UInt32, "1"},
    {"pool_stride_w", FieldType::UInt32, "1"},
    {"pool_pad_h", FieldType::UInt32, "0"},
    {"pool_pad_w", FieldType::UInt32, "0"},
    {"conv_stride_h", FieldType::UInt32, "1"},
    {"conv_stride_w", FieldType::UInt32, "1"},
    {"conv_pad_h", FieldType::UInt32, "0"},
    {"conv_pad_w", FieldType::UInt32, "0"},
};
constexpr FieldDesc kConvBiasFields[] = {
    {"nonlineMode", FieldType::Enum, "IDENTITY", &kConvBiasV0NonlineMode},
    {"mode", FieldType::Enum, "CROSS_CORRELATION", &kConvolutionV0Mode},
    {"sparse", FieldType::Enum, "DENSE", &kConvolutionV0Sparse},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"},
    {"stride_w", FieldType::UInt32, "1"},
    {"dilate_h", FieldType::UInt32, "1"},
    {"dilate_w", FieldType::UInt32, "1"},
    {"compute_mode", FieldType::Enum, "DEFAULT", &kConvolutionV1ComputeMode},
};
constexpr FieldDesc kSeparableConvFields[] = {
    {"mode", FieldType::Enum, "CROSS_CORRELATION", &kConvolutionV0Mode},
    {"borderMode", FieldType::Enum, "BORDER_REPLICATE", &kSeparableConvBorderMode},
    {"is_symm_kernel", FieldType::Bool, "true"},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"},
    {"stride_w", FieldType::UInt32, "1"},
    {"ksize_h", FieldType::UInt32, "3"},
    {"ksize_w", FieldType::UInt32, "3"},
    {"anchor_h", FieldType::UInt32, "1"},
    {"anchor_w", FieldType::UInt32, "1"},
};
constexpr FieldDesc kImages2NeibsFields[] = {
    {"pad_h", FieldType::UInt32, "0"},    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"}, {"stride_w", FieldType::UInt32, "1"},
    {"dilate_h", FieldType::UInt32, "1"}, {"dilate_w", FieldType::UInt32, "1"},
    {"window_h", FieldType::UInt32, "3"}, {"window_w", FieldType::UInt32, "3"},
};
constexpr FieldDesc kPoolingFields[] = {
    {"mode", FieldType::Enum, "MAX_", &kPoolingV0Mode},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "2"},
    {"stride_w", FieldType::UInt32, "2"},
    {"window_h", FieldType::UInt32, "2"},
    {"window_w", FieldType::UInt32, "2"},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
};
constexpr FieldDesc kLRNFields[] = {
    {"n", FieldType::UInt32, "5"},
    {"k", FieldType::Float32, "2."},
    {"alpha", FieldType::Float32, "1e-4"},
    {"beta", FieldType::Float32, "0.75"},
};
constexpr FieldDesc kBNFields[] = {
    {"param_dim", FieldType::Enum, "DIM_11HW", &kBNParamDim},
    {"fwd_mode", FieldType::Enum, "TRAINING", &kBNFwdMode},
    {"epsilon", FieldType::Float64, "1e-4"},
    {"avg_factor", FieldType::Float64, "1."},
    {"scale", FieldType::Float32, "1."},
    {"bias", FieldType::Float32, "0."},
};
constexpr FieldDesc kROIPoolingFields[] = {
    {"mode", FieldType::Enum, "MAX_", &kROIPoolingMode},
    {"scale", FieldType::Float32, "1."},
};
constexpr FieldDesc kWarpPerspectiveFields[] = {
    {"imode", FieldType::Enum, "LINEAR", &kWarpPerspectiveV1InterpolationMode},
    {"bmode", FieldType::Enum, "REPLICATE", &kWarpPerspectiveV1BorderMode},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
    {"border_val", FieldType::Float32, ".0"},
};
constexpr FieldDesc kSpatialTfGridGeneratorFields[] = {
    {"mode", FieldType::Enum, "AFFINE", &kSpatialTfGridGeneratorMode},
};
constexpr FieldDesc kSpatialTfSamplerFields[] = {
    {"mode", FieldType::Enum, "BILINEAR", &kSpatialTfSamplerMode},
};
constexpr FieldDesc kMGBAddUpdateFields[] = {
    {"alpha", FieldType::DTypeScalar},
    {"beta", FieldType::DTypeScalar},
    {"bias", FieldType::DTypeScalar},
};
constexpr FieldDesc kElemwiseFields[] = {
    {"mode", FieldType::Enum, "RELU", &kElemwiseMode},
};
constexpr FieldDesc kElemwiseMultiTypeFields[] = {
    {"mode", FieldType::Enum, "FUSE_MUL_ADD3_INT16x32x32x32", &kElemwiseMultiTypeMode},
};
constexpr FieldDesc kPowCFields[] = {
    {"exp", FieldType::Float32, "0"},
};
constexpr FieldDesc kMatrixMulFields[] = {
    {"transposeA", FieldType::Bool, "false"},
    {"transposeB", FieldType::Bool, "false"},
    {"compute_mode", FieldType::Enum, "DEFAULT", &kMatrixMulV1ComputeMode},
    {"format", FieldType::Enum, "DEFAULT", &kMatrixMulFormat},
};
constexpr FieldDesc kSVDFields[] = {
    {"full_matrices", FieldType::Bool, "false"},
    {"compute_uv", FieldType::Bool, "true"},
};
constexpr FieldDesc kReduceFields[] = {
    {"mode", FieldType::Enum, "SUM", &kReduceMode},
    {"axis", FieldType::Int32, "2147483647"},
    {"data_type", FieldType::Enum, "DEFAULT", &kReduceDataType},
};
constexpr FieldDesc kCumsumFields[] = {
    {"axis", FieldType::Int32, "2147483647"},
    {"exclusive", FieldType::Bool, "true"},
    {"reverse", FieldType::Bool, "false"},
};
constexpr FieldDesc kCondTakeFields[] = {
    {"mode", FieldType::Enum, "EQ", &kCondTakeMode},
    {"val", FieldType::Float32, "0"},
    {"eps", FieldType::Float32, "1e-06"},
};
constexpr FieldDesc kArgsortFields[] = {
    {"order", FieldType::Enum, "ASCENDING", &kArgsortOrder},
};
constexpr FieldDesc kIndexingRemapFields[] = {
    {"is_non_overlapping", FieldType::Bool, "false"},
};
constexpr FieldDesc kMGBSleepFields[] = {
    {"device", FieldType::Bool, "true"},
    {"host", FieldType::Bool, "false"},
    {"seconds", FieldType::Float64},
};
constexpr FieldDesc kLinspaceFields[] = {
    {"endpoint", FieldType::Bool, "true"},
};
constexpr FieldDesc kLinspaceFullFields[] = {
    {"start", FieldType::Float64, "0"},
    {"stop", FieldType::Float64, "1"},
    {"endpoint", FieldType::Bool, "true"},
};
constexpr FieldDesc kEyeFields[] = {
    {"k", FieldType::Int32, "0"},
    {"dtype", FieldType::DTypeEnum, "Float32", &kDTypeEnum},
};
constexpr FieldDesc kUniformRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
    {"dtype", FieldType::DTypeEnum, "Float32", &kDTypeEnum},
};
constexpr FieldDesc kGaussianRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
    {"mean", FieldType::Float32, "0"},
    {"std", FieldType::Float32, "1"},
    {"dtype", FieldType::DTypeEnum, "Float32", &kDTypeEnum},
};
constexpr FieldDesc kFlipFields[] = {
    {"vertical", FieldType::Bool, "false"},
    {"horizontal", FieldType::Bool, "false"},
};
constexpr FieldDesc kRotateFields[] = {
    {"clockwise", FieldType::Bool, "true"},
};
constexpr FieldDesc kROICopyFields[] = {
    {"row_from", FieldType::UInt32, "0"},
    {"row_to", FieldType::UInt32, "0"},
    {"col_from", FieldType::UInt32, "0"},
    {"col_to", FieldType::UInt32, "0"},
};
constexpr FieldDesc kCvtColorFields[] = {
    {"mode", FieldType::Enum, "RGB2GRAY", &kCvtColorMode},
};
constexpr FieldDesc kWarpAffineFields[] = {
    {"imode", FieldType::Enum, "LINEAR", &kWarpPerspectiveV1InterpolationMode},
    {"border_mode", FieldType::Enum, "REPLICATE", &kWarpPerspectiveV1BorderMode},
    {"border_val", FieldType::Float32, ".0"},
    {"format", FieldType::Enum, "NHWC", &kConvolutionFormat},
};
constexpr FieldDesc kGaussianBlurFields[] = {
    {"border_mode", FieldType::Enum, "REPLICATE", &kWarpPerspectiveV1BorderMode},
    {"kernel_height", FieldType::UInt32, "0"},
    {"kernel_width", FieldType::UInt32, "0"},
    {"sigma_x", FieldType::Float32, "0."},
    {"sigma_y", FieldType::Float32, "0."},
};
constexpr FieldDesc kResizeFields[] = {
    {"imode", FieldType::Enum, "LINEAR", &kWarpPerspectiveV1InterpolationMode},
    {"format", FieldType::Enum, "NHWC", &kConvolutionFormat},
};
constexpr FieldDesc kConvolution3DFields[] = {
    {"mode", FieldType::Enum, "CROSS_CORRELATION", &kConvolution3DMode},
    {"pad_d", FieldType::UInt32, "0"},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_d", FieldType::UInt32, "1"},
    {"stride_h", FieldType::UInt32, "1"},
    {"stride_w", FieldType::UInt32, "1"},
    {"dilate_d", FieldType::UInt32, "1"},
    {"dilate_h", FieldType::UInt32, "1"},
    {"dilate_w", FieldType::UInt32, "1"},
    {"sparse", FieldType::Enum, "DENSE", &kConvolution3DSparse},
    {"data_type", FieldType::Enum, "FLOAT", &kConvolution3DDataType},
    {"format", FieldType::Enum, "NCDHW", &kConvolution3DFormat},
};
constexpr FieldDesc kConv3DBiasFields[] = {
    {"nonlineMode", FieldType::Enum, "IDENTITY", &kConv3DBiasNonlineMode},
    {"mode", FieldType::Enum, "CROSS_CORRELATION", &kConvolution3DMode},
    {"pad_d", FieldType::UInt32, "0"},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_d", FieldType::UInt32, "1"},
    {"stride_h", FieldType::UInt32, "1"},
    {"stride_w", FieldType::UInt32, "0"},
};
constexpr FieldDesc kSeparableConv3DFields[] = {
    {"mode", FieldType::Enum, "CROSS_CORRELATION", &kConvolution3DMode},
    {"borderMode", FieldType::Enum, "BORDER_REPLICATE", &kSeparableConv3DBorderMode},
    {"is_symm_kernel", FieldType::Bool, "true"},
    {"pad_d", FieldType::UInt32, "0"},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_d", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"},
    {"stride_w", FieldType::UInt32, "1"},
    {"ksize_d", FieldType::UInt32, "0"},
    {"ksize_h", FieldType::UInt32, "3"},
    {"ksize_w", FieldType::UInt32, "3"},
    {"anchor_d", FieldType::UInt32, "0"},
    {"anchor_h", FieldType::UInt32, "1"},
    {"anchor_w", FieldType::UInt32, "1"},
};
constexpr FieldDesc kTopKFields[] = {
    {"mode", FieldType::Enum, "KTH_ONLY", &kTopKMode},
};
constexpr FieldDesc kRelayoutFormatFields[] = {
    {"mode", FieldType::Enum, "NHWC_NHWCD4", &kRelayoutFormatV0Mode},
    {"oc", FieldType::UInt32, "0"},
    {"group", FieldType::UInt32, "1"},
};
constexpr FieldDesc kSeparableFilterFields[] = {
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
    {"borderMode", FieldType::Enum, "REPLICATE", &kWarpPerspectiveV1BorderMode},
    {"is_symm_kernel", FieldType::Bool, "true"},
    {"ksize_h", FieldType::UInt32, "3"},
    {"ksize_w", FieldType::UInt32, "3"},
    {"anchor_h", FieldType::UInt32, "1"},
    {"anchor_w", FieldType::UInt32, "1"},
};
constexpr FieldDesc kLocalShareFields[] = {
    {"mode", FieldType::Enum, "CROSS_CORRELATION", &kConvolutionV0Mode},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"},
    {"stride_w", FieldType::UInt32, "1"},
    {"dilate_h", FieldType::UInt32, "1"},
    {"dilate_w", FieldType::UInt32, "1"},
    {"spatial_groups_h", FieldType::UInt32, "1"},
    {"spatial_groups_w", FieldType::UInt32, "1"},
    {"sparse", FieldType::Enum, "DENSE", &kConvolutionV0Sparse},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
    {"computeMode", FieldType::Enum, "DEFAULT", &kConvolutionV1ComputeMode},
};
constexpr FieldDesc kROIAlignFields[] = {
    {"mode", FieldType::Enum, "MAX_", &kROIAlignV0Mode},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
    {"spatial_scale", FieldType::Float32, "1.0"},
    {"offset", FieldType::Float32, "0.0"},
    {"pooled_height", FieldType::UInt32, "1"},
    {"pooled_width", FieldType::UInt32, "1"},
    {"sample_height", FieldType::UInt32, "2"},
    {"sample_width", FieldType::UInt32, "2"},
};
constexpr FieldDesc kDeformablePSROIPoolingFields[] = {
    {"no_trans", FieldType::Bool, "true"},       {"spatial_scale", FieldType::Float32, "1"},
    {"trans_std", FieldType::Float32, "1"},      {"pooled_h", FieldType::UInt32, "1"},
    {"pooled_w", FieldType::UInt32, "1"},        {"part_size", FieldType::UInt32, "1"},
    {"sample_per_part", FieldType::UInt32, "1"},
};
constexpr FieldDesc kBatchConvBiasFields[] = {
    {"nonlineMode", FieldType::Enum, "IDENTITY", &kConvBiasV0NonlineMode},
    {"mode", FieldType::Enum, "CROSS_CORRELATION", &kConvolutionV0Mode},
    {"pad_h", FieldType::UInt32, "0"},
    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"},
    {"stride_w", FieldType::UInt32, "1"},
    {"dilate_h", FieldType::UInt32, "1"},
    {"dilate_w", FieldType::UInt32, "1"},
    {"sparse", FieldType::Enum, "DENSE", &kConvolutionV0Sparse},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
    {"compute_mode", FieldType::Enum, "DEFAULT", &kConvolutionV1ComputeMode},
};
constexpr FieldDesc kParamDTypeFields[] = {
    {"dtype", FieldType::DTypeEnum, "Byte", &kDTypeEnum},
};
constexpr FieldDesc kPersistentOutputStorageFields[] = {
    {"share_key", FieldType::Int32, "-1"},
};
constexpr FieldDesc kOptionalAxisFields[] = {
    {"axis", FieldType::Int32, "-1"},
};
constexpr FieldDesc kOptionalAxisV1Fields[] = {
    {"axis", FieldType::Int32, "7"},
};
constexpr FieldDesc kExecutionPolicyFields[] = {
    {"strategy", FieldType::Enum, "1", &kExecutionPolicyStrategy},
    {"workspace_limit", FieldType::UInt64, "18446744073709551615"},
};
constexpr FieldDesc kAssertEqualFields[] = {
    {"maxerr", FieldType::Float32, "0.0001"},
    {"verbose", FieldType::Bool, "false"},
};
constexpr FieldDesc kCollectiveCommFields[] = {
    {"mode", FieldType::Enum, "REDUCE_SUM", &kCollectiveCommMode},
};
constexpr FieldDesc kCondExecPredFields[] = {
    {"mode", FieldType::Enum, "CASE", &kCondExecPredMode},
    {"eps", FieldType::Float32, "0.0001"},
};
constexpr FieldDesc kCondExecPredLogicalFields[] = {
    {"mode", FieldType::Enum, "OR", &kCondExecPredLogicalMode},
};
constexpr FieldDesc kCondExecMarkFields[] = {
    {"grad_mode", FieldType::Enum, "SUM", &kCondExecMarkGradMode},
    {"static_infer", FieldType::Enum, "SHAPE_VALUE", &kCondExecMarkStaticInfer},
};
constexpr FieldDesc kCondExecMergeFields[] = {
    {"nr_output", FieldType::UInt32, "1"},
    {"mode", FieldType::Enum, "EXACT_ONE", &kCondExecMergeMode},
};
constexpr FieldDesc kHost2DeviceCopyFields[] = {
    {"enable_value_infer", FieldType::Bool, "true"},
    {"dump_default_value", FieldType::Bool, "false"},
    {"allow_cpu_mem_fwd", FieldType::Bool, "true"},
};
constexpr FieldDesc kDimshuffleFields[] = {
    {"pattern", FieldType::Int32Vector},
    {"ndim", FieldType::UInt32},
};
constexpr FieldDesc kAxisAddRemoveFields[] = {
    {"desc", FieldType::AxisDescVector},
};
constexpr FieldDesc kIndexDescMaskDumpFields[] = {
    {"items", FieldType::IndexDescMaskVector},
};
constexpr FieldDesc kDTypeFields[] = {
    {"dtype", FieldType::DTypeTable},
};
constexpr FieldDesc kRemapFields[] = {
    {"imode", FieldType::Enum, "LINEAR", &kWarpPerspectiveV1InterpolationMode},
    {"border_type", FieldType::Enum, "REPLICATE", &kWarpPerspectiveV1BorderMode},
    {"format", FieldType::Enum, "NHWC", &kConvolutionFormat},
    {"scalar", FieldType::Float32, "0."},
};
constexpr FieldDesc kNMSKeepFields[] = {
    {"iou_thresh", FieldType::Float32},
    {"max_output", FieldType::UInt32},
};
constexpr FieldDesc kAdaptivePoolingFields[] = {
    {"mode", FieldType::Enum, "MAX_", &kPoolingV0Mode},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
};
constexpr FieldDesc kNvOfFields[] = {
    {"precision", FieldType::UInt32, "1"},
};
constexpr FieldDesc kDctChannelSelectFields[] = {
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
    {"fastImpl", FieldType::Enum, "NONE", &kDctChannelSelectV0FastImpl},
    {"dct_block_size", FieldType::Int32, "8"},
};
constexpr FieldDesc kFakeQuantFields[] = {
    {"qmin", FieldType::Int32, "-2147483648"},
    {"qmax", FieldType::Int32, "2147483647"},
};
constexpr FieldDesc kTQTFields[] = {
    {"qmin", FieldType::Int32, "-2147483648"},
    {"qmax", FieldType::Int32, "2147483647"},
};
constexpr FieldDesc kCorrelationFields[] = {
    {"format", FieldType::Enum, "NCHW", &kConvolutionV0Format},
    {"kernel_size", FieldType::UInt32, "1"},
    {"max_displacement", FieldType::UInt32, "1"},
    {"stride1", FieldType::UInt32, "1"},
    {"stride2", FieldType::UInt32, "1"},
    {"pad_size", FieldType::UInt32, "0"},
    {"is_multiply", FieldType::Bool, "true"},
};
constexpr FieldDesc kLSQFields[] = {
    {"qmin", FieldType::Int32, "-2147483648"},
    {"qmax", FieldType::Int32, "2147483647"},
};
constexpr FieldDesc kGammaRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
};
constexpr FieldDesc kPoissonRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
};
constexpr FieldDesc kPermutationRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
    {"dtype", FieldType::DTypeEnum, "Int32", &kDTypeEnum},
};
constexpr FieldDesc kBetaRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
};
constexpr FieldDesc kSlidingWindowTransposeFields[] = {
    {"out_h", FieldType::UInt32, "0"},    {"out_w", FieldType::UInt32, "0"},
    {"pad_h", FieldType::UInt32, "0"},    {"pad_w", FieldType::UInt32, "0"},
    {"stride_h", FieldType::UInt32, "1"}, {"stride_w", FieldType::UInt32, "1"},
    {"dilate_h", FieldType::UInt32, "1"}, {"dilate_w", FieldType::UInt32, "1"},
    {"window_h", FieldType::UInt32, "3"}, {"window_w", FieldType::UInt32, "3"},
};
constexpr FieldDesc kPaddingFields[] = {
    {"front_offset_dim0", FieldType::UInt32, "0"},
    {"front_offset_dim1", FieldType::UInt32, "0"},
    {"front_offset_dim2", FieldType::UInt32, "0"},
    {"front_offset_dim3", FieldType::UInt32, "0"},
    {"front_offset_dim4", FieldType::UInt32, "0"},
    {"front_offset_dim5", FieldType::UInt32, "0"},
    {"front_offset_dim6", FieldType::UInt32, "0"},
    {"back_offset_dim0", FieldType::UInt32, "0"},
    {"back_offset_dim1", FieldType::UInt32, "0"},
    {"back_offset_dim2", FieldType::UInt32, "0"},
    {"back_offset_dim3", FieldType::UInt32, "0"},
    {"back_offset_dim4", FieldType::UInt32, "0"},
    {"back_offset_dim5", FieldType::UInt32, "0"},
    {"back_offset_dim6", FieldType::UInt32, "0"},
    {"padding_val", FieldType::Float32, "0"},
    {"padding_mode", FieldType::Enum, "CONSTANT", &kPaddingPaddingMode},
};
constexpr FieldDesc kShuffleRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
};
constexpr FieldDesc kCheckNonFiniteFields[] = {
    {"scale", FieldType::Float32, "1.0"},
};
constexpr FieldDesc kLayerNormFields[] = {
    {"affine", FieldType::Bool, "true"},
    {"eps", FieldType::Float32, "1e-5"},
    {"normalized_dim", FieldType::UInt64, "1"},
    {"normalized_size", FieldType::UInt64, "1"},
};
constexpr FieldDesc kDropoutFields[] = {
    {"drop_prob", FieldType::Float32, "0"},
    {"seed", FieldType::UInt64, "0"},
};
constexpr FieldDesc kRNNCellFields[] = {
    {"nonlineMode", FieldType::Enum, "IDENTITY", &kRNNCellNonlineMode},
};
constexpr FieldDesc kRNNFields[] = {
    {"num_layers", FieldType::UInt32, "1"},
    {"bidirectional", FieldType::Bool, "false"},
    {"bias", FieldType::Bool, "true"},
    {"hidden_size", FieldType::UInt32, "128"},
    {"dropout", FieldType::Float32, "0."},
    {"nonlineMode", FieldType::Enum, "IDENTITY", &kRNNCellNonlineMode},
    {"fwd_mode", FieldType::Enum, "TRAINING", &kBNFwdMode},
};
constexpr FieldDesc kLSTMFields[] = {
    {"num_layers", FieldType::UInt32, "1"},
    {"bidirectional", FieldType::Bool, "false"},
    {"bias", FieldType::Bool, "true"},
    {"hidden_size", FieldType::UInt32, "128"},
    {"proj_size", FieldType::UInt32, "0"},
    {"dropout", FieldType::Float32, "0."},
    {"fwd_mode", FieldType::Enum, "TRAINING", &kBNFwdMode},
};
constexpr FieldDesc kSoftmaxFields[] = {
    {"axis", FieldType::Int32, "-1"},
};
constexpr FieldDesc kDiagFields[] = {
    {"k", FieldType::Int32, "0"},
};
constexpr FieldDesc kGroupNormFields[] = {
    {"affine", FieldType::Bool, "true"},
    {"eps", FieldType::Float32, "1e-5"},
    {"group", FieldType::UInt32, "1"},
    {"format", FieldType::Enum, "NCHW", &kConvolutionFormat},
};
constexpr FieldDesc kFillFields[] = {
    {"value", FieldType::Float32, "0"},
};
constexpr FieldDesc kGeneralNormFields[] = {
    {"affine", FieldType::Bool, "true"},
    {"eps", FieldType::Float32, "1e-5"},
    {"axis_start", FieldType::UInt64, "0"},
    {"axis_end", FieldType::UInt64, "0"},
};
constexpr FieldDesc kMultiHeadAttnFields[] = {
    {"num_heads", FieldType::UInt32, "1"},
    {"embeding_size", FieldType::UInt32, "0"},
    {"k_size", FieldType::UInt32, "0"},
    {"v_size", FieldType::UInt32, "0"},
    {"qproj_size", FieldType::UInt32, "0"},
    {"kproj_size", FieldType::UInt32, "0"},
    {"vproj_size", FieldType::UInt32, "0"},
    {"oproj_size", FieldType::UInt32, "0"},
    {"qbias", FieldType::Bool, "false"},
    {"kbias", FieldType::Bool, "false"},
    {"vbias", FieldType::Bool, "false"},
    {"obias", FieldType::Bool, "false"},
    {"sm_scaler", FieldType::Float32, "1."},
    {"input_order", FieldType::UInt32, "0"},
    {"attn_mask_type", FieldType::Enum, "NO_MASK", &kMultiHeadAttnAttnMaskType},
    {"tensor_combination_type", FieldType::Enum, "NONE", &kMultiHeadAttnTensorCombinationType},
    {"add_zero_attn", FieldType::Bool, "false"},
    {"need_weights", FieldType::Bool, "false"},
    {"reslink", FieldType::Bool, "false"},
    {"training", FieldType::Bool, "true"},
    {"seed", FieldType::UInt64, "0"},
    {"attn_prob", FieldType::Float32, "0."},
    {"out_prob", FieldType::Float32, "0."},
};
constexpr FieldDesc kResize3DFields[] = {
    {"imode", FieldType::Enum, "LINEAR", &kWarpPerspectiveV1InterpolationMode},
    {"format", FieldType::Enum, "NDHWC", &kConvolution3DFormat},
    {"align_corners", FieldType::Bool, "false"},
};
constexpr FieldDesc kCrossFields[] = {
    {"axisa", FieldType::Int32, "-1"},
    {"axisb", FieldType::Int32, "-1"},
    {"axisc", FieldType::Int32, "-1"},
};
constexpr FieldDesc kExponentialRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
};
constexpr FieldDesc kMultinomialRNGFields[] = {
    {"seed", FieldType::UInt64, "0"},
    {"num_samples", FieldType::UInt64, "1"},
    {"replacement", FieldType::Bool, "false"},
};
// In OperatorParam union order (formats/param_codec.cpp owns the indices).
constexpr ParamTableDesc kTables[] = {
    {"Empty", {}},
    {"Axis", kAxisFields},
    {"Convolution", kConvolutionFields},
    {"MaskPropagate", kMaskPropagateFields},
    {"ConvPooling", kConvPoolingFields},
    {"ConvBias", kConvBiasFields},
    {"SeparableConv", kSeparableConvFields},
    {"Images2Neibs", kImages2NeibsFields},
    {"Pooling", kPoolingFields},
    {"LRN", kLRNFields},
    {"BN", kBNFields},
    {"ROIPooling", kROIPoolingFields},
    {"WarpPerspective", kWarpPerspectiveFields},
    {"SpatialTfGridGenerator", kSpatialTfGridGeneratorFields},
    {"SpatialTfSampler", kSpatialTfSamplerFields},
    {"MGBAddUpdate", kMGBAddUpdateFields},
    {"Elemwise", kElemwiseFields},
    {"ElemwiseMultiType", kElemwiseMultiTypeFields},
    {"PowC", kPowCFields},
    {"MatrixMul", kMatrixMulFields},
    {"DeprecatedParam", {}},
    {"SVD", kSVDFields},
    {"Reduce", kReduceFields},
    {"Cumsum", kCumsumFields},
    {"CondTake", kCondTakeFields},
    {"Argsort", kArgsortFields},
    {"IndexingRemap", kIndexingRemapFields},
    {"MGBSleep", kMGBSleepFields},
    {"Linspace", kLinspaceFields},
    {"LinspaceFull", kLinspaceFullFields},
    {"Eye", kEyeFields},
    {"UniformRNG", kUniformRNGFields},
    {"GaussianRNG", kGaussianRNGFields},
    {"Flip", kFlipFields},
    {"Rotate", kRotateFields},
    {"ROICopy", kROICopyFields},
    {"CvtColor", kCvtColorFields},
    {"WarpAffine", kWarpAffineFields},
    {"GaussianBlur", kGaussianBlurFields},
    {"Resize", kResizeFields},
    {"Convolution3D", kConvolution3DFields},
    {"Conv3DBias", kConv3DBiasFields},
    {"SeparableConv3D", kSeparableConv3DFields},
    {"TopK", kTopKFields},
    {"RelayoutFormat", kRelayoutFormatFields},
    {"SeparableFilter", kSeparableFilterFields},
    {"LocalShare", kLocalShareFields},
    {"ROIAlign", kROIAlignFields},
    {"DeformablePSROIPooling", kDeformablePSROIPoolingFields},
    {"BatchConvBias", kBatchConvBiasFields},
    {"ParamDType", kParamDTypeFields},
    {"PersistentOutputStorage", kPersistentOutputStorageFields},
    {"OptionalAxis", kOptionalAxisFields},
    {"OptionalAxisV1", kOptionalAxisV1Fields},
    {"ExecutionPolicy", kExecutionPolicyFields},
    {"AssertEqual", kAssertEqualFields},
    {"Reserved0", {}},
    {"CollectiveComm", kCollectiveCommFields},
    {"CondExecPred", kCondExecPredFields},
    {"CondExecPredLogical", kCondExecPredLogicalFields},
    {"CondExecMark", kCondExecMarkFields},
    {"CondExecMerge", kCondExecMergeFields},
    {"Host2DeviceCopy", kHost2DeviceCopyFields},
    {"Dimshuffle", kDimshuffleFields},
    {"AxisAddRemove", kAxisAddRemoveFields},
    {"IndexDescMaskDump", kIndexDescMaskDumpFields},
    {"DType", kDTypeFields},
    {"Remap", kRemapFields},
    {"NMSKeep", kNMSKeepFields},
    {"AdaptivePooling", kAdaptivePoolingFields},
    {"NvOf", kNvOfFields},
    {"DctChannelSelect", kDctChannelSelectFields},
    {"FakeQuant", kFakeQuantFields},
    {"TQT", kTQTFields},
    {"Correlation", kCorrelationFields},
    {"LSQ", kLSQFields},
    {"GammaRNG", kGammaRNGFields},
    {"PoissonRNG", kPoissonRNGFields},
    {"PermutationRNG", kPermutationRNGFields},
    {"BetaRNG", kBetaRNGFields},
    {"SlidingWindowTranspose", kSlidingWindowTransposeFields},
    {"Padding", kPaddingFields},
    {"ShuffleRNG", kShuffleRNGFields},
    {"CheckNonFinite", kCheckNonFiniteFields},
    {"LayerNorm", kLayerNormFields},
    {"Dropout", kDropoutFields},
    {"RNNCell", kRNNCellFields},
    {"RNN", kRNNFields},
    {"LSTM", kLSTMFields},
    {"Softmax", kSoftmaxFields},
    {"Diag", kDiagFields},
    {"GroupNorm", kGroupNormFields},
    {"Fill", kFillFields},
    {"GeneralNorm", kGeneralNormFields},
    {"MultiHeadAttn", kMultiHeadAttnFields},
    {"Resize3D", kResize3DFields},
    {"Cross", kCrossFields},
    {"ExponentialRNG", kExponentialRNGFields},
    {"MultinomialRNG", kMultinomialRNGFields},
};

}  // namespace

std::span<const ParamTableDesc> param_table_data() { return kTables; }
std::span<const EnumDesc* const> param_enum_data() { return kEnums; }

}  // namespace mgedump::ir::detail
