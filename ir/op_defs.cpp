// The operator vocabulary as data (see ir/op_registry.h).
//
// Sources, in order of authority: spec §4.3 (typeinfo names, tokens, which
// operators have a version-2 FBS_V2 registration), §5 and the "Minimal op set"
// table (inputs, params), then MegEngine's registrations (src/opr/impl/*.sereg.h,
// dnn/dnn.sereg.h, dnn/dnn.sereg.v2.h, io.sereg.v2.h) where the spec is silent:
//  * params: an operator writes its `Param` struct as the identically named table
//    (OprLoadDumpImpl's default); the convolution families (ConvLoadDumpImpl,
//    LocalShareLoadDumpImpl) append ExecutionPolicy; Pooling and MatrixMul do not.
//  * inputs: the arity in MGB_SEREG_OPR(cls, arity), or the input counts the
//    custom OprMaker / Make*Caller accepts when that arity is 0.
//  * workspace: true when the MegBrain class holds its MegDNN operator through
//    MegDNNOprHolderImpl with the default add_workspace=true (every
//    MegDNNOprWrapperFwd/Bwd and WorkspaceSizeInfer class), or calls
//    cg::add_workspace_output itself (Reduce, CheckNonFinite, the RNGs, Dropout,
//    MultiHeadAttn, fancy indexing with non-scalar indices). Elemwise, TypeCvt and
//    ElemwiseMultiType pass add_workspace=false; AddUpdate, Subtensor and
//    Set/IncrSubtensor (scalar indices only) add none.
#include <fmt/format.h>

#include <mutex>
#include <string>
#include <unordered_map>

#include "ir/error.h"
#include "ir/infer/known_op_types.h"
#include "ir/op_registry.h"

namespace mgedump::ir {
namespace {

using P = std::string_view;

// Param lists, shared between operators that write the same tables.
constexpr std::span<const P> kNoParams{};
constexpr P kEmpty[] = {"Empty"};
constexpr P kAxis[] = {"Axis"};
constexpr P kConv[] = {"Convolution", "ExecutionPolicy"};
constexpr P kConvBias[] = {"ConvBias", "ExecutionPolicy"};
constexpr P kBatchConvBias[] = {"BatchConvBias", "ExecutionPolicy"};
constexpr P kConv3D[] = {"Convolution3D", "ExecutionPolicy"};
constexpr P kLocalShare[] = {"LocalShare", "ExecutionPolicy"};
constexpr P kHost2DeviceCopy[] = {"Host2DeviceCopy"};
constexpr P kElemwise[] = {"Elemwise"};
constexpr P kElemwiseMultiType[] = {"ElemwiseMultiType"};
constexpr P kPowC[] = {"PowC"};
constexpr P kDTypeTable[] = {"DType"};       // union 67, the dtype.fbs table
constexpr P kParamDType[] = {"ParamDType"};  // union 51, param.DType {dtype}
constexpr P kReduce[] = {"Reduce"};
constexpr P kPooling[] = {"Pooling"};
constexpr P kAdaptivePooling[] = {"AdaptivePooling"};
constexpr P kBN[] = {"BN"};
constexpr P kLayerNorm[] = {"LayerNorm"};
constexpr P kGroupNorm[] = {"GroupNorm"};
constexpr P kGeneralNorm[] = {"GeneralNorm"};
constexpr P kSoftmax[] = {"Softmax"};
constexpr P kLRN[] = {"LRN"};
constexpr P kMatrixMul[] = {"MatrixMul"};
constexpr P kOptionalAxisV1[] = {"OptionalAxisV1"};
constexpr P kDimshuffle[] = {"Dimshuffle"};
constexpr P kAxisAddRemove[] = {"AxisAddRemove"};
constexpr P kIndexDescMaskDump[] = {"IndexDescMaskDump"};
constexpr P kPadding[] = {"Padding"};
constexpr P kRelayoutFormat[] = {"RelayoutFormat"};
constexpr P kResize[] = {"Resize"};
constexpr P kWarpPerspective[] = {"WarpPerspective"};
constexpr P kWarpAffine[] = {"WarpAffine"};
constexpr P kRemap[] = {"Remap"};
constexpr P kROIAlign[] = {"ROIAlign"};
constexpr P kArgsort[] = {"Argsort"};
constexpr P kTopK[] = {"TopK"};
constexpr P kCondTake[] = {"CondTake"};
constexpr P kNMSKeep[] = {"NMSKeep"};
constexpr P kCumsum[] = {"Cumsum"};
constexpr P kCheckNonFinite[] = {"CheckNonFinite"};
constexpr P kLinspace[] = {"Linspace"};
constexpr P kEye[] = {"Eye"};
constexpr P kUniformRNG[] = {"UniformRNG"};
constexpr P kGaussianRNG[] = {"GaussianRNG"};
constexpr P kDropout[] = {"Dropout"};
constexpr P kMultiHeadAttn[] = {"MultiHeadAttn"};
constexpr P kAssertEqual[] = {"AssertEqual"};
constexpr P kPersistentOutputStorage[] = {"PersistentOutputStorage"};
constexpr P kFakeQuant[] = {"FakeQuant"};
constexpr P kTQT[] = {"TQT"};
constexpr P kLSQ[] = {"LSQ"};
constexpr P kMGBAddUpdate[] = {"MGBAddUpdate"};
constexpr P kFill[] = {"Fill"};

constexpr uint8_t kAny = kAnyCount;

// Keeps each row on one line: name, typeinfo, token, token_v2, min/max inputs,
// params, outputs, tensors, workspace.
constexpr OpDef op(std::string_view name, std::string_view typeinfo, std::string_view token,
                   std::string_view token_v2, uint8_t min_in, uint8_t max_in, std::span<const P> params,
                   uint8_t outputs = 1, OpTensors tensors = OpTensors::None, bool workspace = false) {
    return OpDef{name, typeinfo, token, token_v2, min_in, max_in, params, outputs, tensors, workspace};
}

constexpr bool W = true;  // adds a MegDNN workspace output
constexpr bool NoW = false;
constexpr OpTensors TNone = OpTensors::None;

// clang-format off
constexpr OpDef kOps[] = {
    // --- I/O and constants (io.sereg.h, io.sereg.v2.h) ---
    op("Host2DeviceCopy", "Host2DeviceCopy", "Host2DeviceCopy", "Host2DeviceCopy", 0, 0, kHost2DeviceCopy, 1, OpTensors::Input),
    op("ImmutableTensor", "ImmutableTensor", "ImmutableTensor", "ImmutableTensor", 0, 0, kNoParams, 1, OpTensors::Anonymous),
    op("SharedDeviceTensor", "SharedDeviceTensor", "SharedDeviceTensor", "", 0, 0, kNoParams, 1, OpTensors::Shared),
    op("VolatileSharedDeviceTensor", "VolatileSharedDeviceTensor", "VolatileSharedDeviceTensor", "", 0, 0, kNoParams, 1, OpTensors::Shared),
    op("MultipleDeviceTensorHolder", "MultipleDeviceTensorHolder", "MultipleDeviceTensorHolder", "MultipleDeviceTensorHolder", 0, 0, kNoParams, kAny, OpTensors::MultipleShared),
    op("SharedDeviceTensorWithFormat", "SharedDeviceTensorWithFormat", "SharedDeviceTensorWithFormat", "SharedDeviceTensorWithFormat", 0, 0, kNoParams, 1, OpTensors::Anonymous),
    op("MultipleDeviceTensorWithFormatHolder", "MultipleDeviceTensorWithFormatHolder", "MultipleDeviceTensorWithFormatHolder", "MultipleDeviceTensorWithFormatHolder", 0, 0, kNoParams, kAny, OpTensors::MultipleShared),
    op("Copy", "Copy", "Copy", "", 1, 1, kEmpty),

    // --- arithmetic (basic_arith.sereg.h, nn_int.sereg.h) ---
    op("Elemwise", "Elemwise", "Elemwise", "", 1, 4, kElemwise, 1, TNone, NoW),
    // FUSE_ADD_RMULH_ROUND_SHR_SATURATE_* take 6 inputs, the most of any mode.
    op("ElemwiseMultiType", "ElemwiseMultiType", "ElemwiseMultiType", "", 1, 6, kElemwiseMultiType, 1, TNone, NoW),
    op("PowC", "PowC", "PowC", "", 1, 1, kPowC, 1, TNone, W),
    op("TypeCvt", "TypeCvt", "TypeCvtV2", "", 1, 1, kDTypeTable, 1, TNone, NoW),
    op("Reduce", "Reduce", "ReduceV2", "", 1, 2, kReduce, 1, TNone, W),
    op("AddUpdate", "AddUpdate", "AddUpdate", "", 2, 2, kMGBAddUpdate, 1, TNone, NoW),

    // --- convolutions (dnn.sereg.h ConvLoadDumpImpl / LocalShareLoadDumpImpl) ---
    op("Convolution", "ConvolutionForward", "ConvolutionV2", "Convolution", 2, 2, kConv, 1, TNone, W),
    op("ConvolutionBackwardData", "ConvolutionBackwardData", "ConvolutionBackwardDataV2", "ConvolutionBackwardData", 2, 3, kConv, 1, TNone, W),
    op("ConvolutionBackwardFilter", "ConvolutionBackwardFilter", "ConvolutionBackwardFilterV2", "ConvolutionBackwardFilter", 3, 3, kConv, 1, TNone, W),
    op("ConvBias", "ConvBiasForward", "ConvBiasForwardV4", "ConvBiasForward", 2, 4, kConvBias, 1, TNone, W),
    op("BatchConvBias", "BatchConvBiasForward", "BatchConvBiasForwardV1", "BatchConvBiasForward", 2, 4, kBatchConvBias, 1, TNone, W),
    op("Convolution3D", "Convolution3DForward", "Convolution3D", "Convolution3D", 2, 2, kConv3D, 1, TNone, W),
    op("Convolution3DBackwardData", "Convolution3DBackwardData", "Convolution3DBackwardData", "Convolution3DBackwardData", 2, 3, kConv3D, 1, TNone, W),
    op("Convolution3DBackwardFilter", "Convolution3DBackwardFilter", "Convolution3DBackwardFilter", "Convolution3DBackwardFilter", 3, 3, kConv3D, 1, TNone, W),
    op("LocalShare", "LocalShareForward", "LocalShareForwardV1", "LocalShareForward", 2, 2, kLocalShare, 1, TNone, W),
    op("LocalShareBackwardData", "LocalShareBackwardData", "LocalShareBackwardDataV1", "LocalShareBackwardData", 3, 3, kLocalShare, 1, TNone, W),
    op("LocalShareBackwardFilter", "LocalShareBackwardFilter", "LocalShareBackwardFilterV1", "LocalShareBackwardFilter", 3, 3, kLocalShare, 1, TNone, W),
    op("DeformableConv", "DeformableConvForward", "DeformableConvForwardV1", "DeformableConvForward", 4, 4, kConv, 1, TNone, W),
    op("DeformableConvBackwardData", "DeformableConvBackwardData", "DeformableConvBackwardDataV1", "DeformableConvBackwardData", 5, 5, kConv, 3, TNone, W),
    op("DeformableConvBackwardFilter", "DeformableConvBackwardFilter", "DeformableConvBackwardFilterV1", "DeformableConvBackwardFilter", 5, 5, kConv, 1, TNone, W),

    // --- pooling and normalisation ---
    op("Pooling", "PoolingForward", "PoolingV1", "", 1, 1, kPooling, 1, TNone, W),
    op("AdaptivePooling", "AdaptivePoolingForward", "AdaptivePoolingV1", "", 2, 2, kAdaptivePooling, 1, TNone, W),
    // How many of BatchNorm's 6 outputs are numbered depends on fwd_mode and the input count (§5).
    op("BatchNorm", "BatchNormForward", "BatchNormV1", "", 3, 5, kBN, kAny, TNone, W),
    op("LayerNorm", "LayerNormForward", "LayerNorm", "", 1, 3, kLayerNorm, 3, TNone, W),
    op("GroupNorm", "GroupNormForward", "GroupNorm", "GroupNorm", 1, 3, kGroupNorm, 3, TNone, W),
    op("GroupNormBackward", "GroupNormBackward", "GroupNormBackward", "GroupNormBackward", 3, 5, kGroupNorm, 3, TNone, W),
    op("InstanceNorm", "InstanceNormForward", "InstanceNorm", "InstanceNorm", 1, 3, kGroupNorm, 3, TNone, W),
    op("InstanceNormBackward", "InstanceNormBackward", "InstanceNormBackward", "InstanceNormBackward", 3, 5, kGroupNorm, 3, TNone, W),
    op("GeneralNorm", "GeneralNormForward", "GeneralNorm", "", 1, 3, kGeneralNorm, 3, TNone, W),
    op("Softmax", "SoftmaxForward", "Softmax", "Softmax", 1, 1, kSoftmax, 1, TNone, W),
    op("LRN", "LRNForward", "LRN", "", 1, 1, kLRN, 1, TNone, W),

    // --- linear algebra (blas.sereg.h: MatrixMul writes no ExecutionPolicy) ---
    op("MatrixMul", "MatrixMul", "MatrixMulV2", "", 2, 2, kMatrixMul, 1, TNone, W),
    op("BatchedMatrixMul", "BatchedMatrixMul", "BatchedMatrixMulV2", "", 2, 2, kMatrixMul, 1, TNone, W),
    op("Dot", "Dot", "Dot", "", 2, 2, kEmpty, 1, TNone, W),

    // --- shape manipulation (tensor_manip.sereg.h) ---
    op("Reshape", "Reshape", "ReshapeV1", "", 2, 2, kOptionalAxisV1),
    op("Broadcast", "Broadcast", "Broadcast", "", 2, 2, kEmpty),
    op("Dimshuffle", "Dimshuffle", "Dimshuffle", "", 1, 1, kDimshuffle),
    op("AxisAddRemove", "AxisAddRemove", "AxisAddRemove", "", 1, 1, kAxisAddRemove),
    op("Concat", "Concat", "Concat", "", 1, kAny, kAxis),
    op("Split", "Split", "Split", "", 2, kAny, kAxis, kAny),
    op("GetVarShape", "GetVarShape", "GetVarShapeV1", "", 1, kAny, kOptionalAxisV1),
    op("Padding", "PaddingForward", "Padding", "", 1, 1, kPadding, 1, TNone, W),
    op("RelayoutFormat", "RelayoutFormat", "RelayoutFormatV1", "", 1, 1, kRelayoutFormat, 1, TNone, W),

    // --- indexing (indexing_helper_sereg.h: x [, value], then the index vars) ---
    op("Subtensor", "Subtensor", "Subtensor", "", 1, kAny, kIndexDescMaskDump),
    op("SetSubtensor", "SetSubtensor", "SetSubtensor", "", 2, kAny, kIndexDescMaskDump),
    op("IncrSubtensor", "IncrSubtensor", "IncrSubtensor", "", 2, kAny, kIndexDescMaskDump),
    op("IndexingMultiAxisVec", "IndexingMultiAxisVec", "IndexingMultiAxisVec", "", 2, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("IndexingSetMultiAxisVec", "IndexingSetMultiAxisVec", "IndexingSetMultiAxisVec", "", 3, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("IndexingIncrMultiAxisVec", "IndexingIncrMultiAxisVec", "IndexingIncrMultiAxisVec", "", 3, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("MeshIndexing", "MeshIndexing", "MeshIndexing", "", 2, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("BatchedMeshIndexing", "BatchedMeshIndexing", "BatchedMeshIndexing", "", 2, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("IncrMeshIndexing", "IncrMeshIndexing", "IncrMeshIndexing", "", 3, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("SetMeshIndexing", "SetMeshIndexing", "SetMeshIndexing", "", 3, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("BatchedIncrMeshIndexing", "BatchedIncrMeshIndexing", "BatchedIncrMeshIndexing", "", 3, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("BatchedSetMeshIndexing", "BatchedSetMeshIndexing", "BatchedSetMeshIndexing", "", 3, kAny, kIndexDescMaskDump, 1, TNone, W),
    op("IndexingOneHot", "IndexingOneHot", "IndexingOneHot", "", 2, 2, kAxis, 1, TNone, W),
    op("IndexingSetOneHot", "IndexingSetOneHot", "IndexingSetOneHot", "", 3, 3, kAxis, 1, TNone, W),
    op("MaskedFill", "MaskedFill", "MaskedFill", "", 2, 2, kFill, 1, TNone, W),

    // --- image processing (imgproc.sereg.h) ---
    op("Resize", "ResizeForward", "ResizeV2", "", 2, 2, kResize, 1, TNone, W),
    op("WarpPerspective", "WarpPerspectiveForward", "WarpPerspectiveV2", "", 3, 4, kWarpPerspective, 1, TNone, W),
    op("WarpAffine", "WarpAffineForward", "WarpAffineV2", "", 3, 3, kWarpAffine, 1, TNone, W),
    op("Remap", "RemapForward", "RemapV1", "", 2, 2, kRemap, 1, TNone, W),

    // --- detection (dnn.sereg.h: MGB_SEREG_OPR(ROIAlignV1, 2); dst and the Int32 argmax index) ---
    op("ROIAlign", "ROIAlignForward", "ROIAlignV1", "", 2, 2, kROIAlign, 2, TNone, W),
    // src/opr/impl/standalone/nms_opr.cpp: `using NMSKeepMGB = NMSKeep; MGB_SEREG_OPR(NMSKeepMGB, 1)`,
    // so the token is the alias; kept indices and their count, then cg::add_workspace_output.
    op("NMSKeep", "NMSKeep", "NMSKeepMGB", "", 1, 1, kNMSKeep, 2, TNone, W),

    // --- misc (misc.sereg.h) ---
    op("Argmax", "Argmax", "Argmax", "", 1, 1, kAxis, 1, TNone, W),
    op("Argmin", "Argmin", "Argmin", "", 1, 1, kAxis, 1, TNone, W),
    op("Argsort", "ArgsortForward", "Argsort", "", 1, 1, kArgsort, 2, TNone, W),
    // TopK's numbered outputs depend on its mode (KTH_ONLY vs VALUE_IDX_*).
    op("TopK", "TopK", "TopK", "", 2, 2, kTopK, kAny, TNone, W),
    op("CondTake", "CondTake", "CondTake", "", 2, 2, kCondTake, 2, TNone, W),
    op("Cumsum", "Cumsum", "CumsumV1", "", 1, 1, kCumsum, 1, TNone, W),
    op("Where", "WhereForward", "Where", "", 3, 3, kEmpty, 1, TNone, W),
    // One Float32 output per input plus the Int32 flag.
    op("CheckNonFinite", "CheckNonFinite", "CheckNonFinite", "", 1, kAny, kCheckNonFinite, kAny, TNone, W),

    // --- tensor generators (tensor_gen.sereg.h) ---
    op("Linspace", "Linspace", "Linspace", "", 3, 3, kLinspace),
    op("Eye", "Eye", "Eye", "", 1, 1, kEye),
    op("Alloc", "Alloc", "Alloc", "", 1, 1, kParamDType),

    // --- random and attention (rand.sereg.h) ---
    op("UniformRNG", "UniformRNG", "UniformRNGV1", "", 1, 1, kUniformRNG, 1, TNone, W),
    op("GaussianRNG", "GaussianRNG", "GaussianRNGV1", "", 1, 1, kGaussianRNG, 1, TNone, W),
    op("Dropout", "DropoutForward", "Dropout", "", 1, 1, kDropout, 2, TNone, W),
    op("MultiHeadAttn", "MultiHeadAttnForward", "MultiHeadAttn", "", 4, 7, kMultiHeadAttn, 4, TNone, W),

    // --- utility (utility.sereg.h) ---
    op("AssertEqual", "AssertEqual", "AssertEqual", "", 2, 3, kAssertEqual),
    op("Identity", "Identity", "Identity", "", 1, 1, kEmpty),
    op("MarkDynamicVar", "MarkDynamicVar", "MarkDynamicVar", "", 1, 1, kEmpty),
    op("MarkNoBroadcastElemwise", "MarkNoBroadcastElemwise", "MarkNoBroadcastElemwise", "", 1, 1, kEmpty),
    op("VirtualDep", "VirtualDep", "VirtualDep", "", 1, kAny, kNoParams),
    op("PersistentOutputStorage", "PersistentOutputStorage", "PersistentOutputStorage", "", 1, 1, kPersistentOutputStorage),

    // --- quantisation (dnn.sereg.h) ---
    op("FakeQuant", "FakeQuantForward", "FakeQuant", "", 3, 3, kFakeQuant, 1, TNone, W),
    op("TQT", "TQTForward", "TQT", "", 2, 2, kTQT, 1, TNone, W),
    op("LSQ", "LSQForward", "LSQ", "", 4, 4, kLSQ, 1, TNone, W),

    // --- custom operators: three blobs, no union param (§4.5) ---
    op("CustomOpNode", "CustomOpNode", "CustomOpNode", "CustomOpNode", 0, kAny, kNoParams, kAny),
};
// clang-format on

// The ids inference uses without a lookup (ir/infer/known_op_types.h).
static_assert(kOps[kImmutableTensorType.value].name == "ImmutableTensor");
static_assert(kOps[kMarkNoBroadcastElemwiseType.value].name == "MarkNoBroadcastElemwise");

// Every key find_op accepts, built once. A key naming two different operators
// would make lookups ambiguous, so building the index rejects it.
const std::unordered_map<std::string_view, uint32_t>& op_index() {
    static const auto index = [] {
        std::unordered_map<std::string_view, uint32_t> m;
        auto add = [&](std::string_view key, uint32_t i) {
            if (key.empty()) return;
            auto [it, inserted] = m.emplace(key, i);
            if (!inserted && it->second != i)
                throw Error(fmt::format("op registry: key \"{}\" names both {} and {}", key,
                                        kOps[it->second].name, kOps[i].name));
        };
        for (uint32_t i = 0; i < std::size(kOps); ++i) {
            add(kOps[i].name, i);
            add(kOps[i].typeinfo, i);
            add(kOps[i].token, i);
            add(kOps[i].token_v2, i);
        }
        return m;
    }();
    return index;
}

}  // namespace

std::span<const OpDef> op_defs() { return kOps; }

const OpDef& op_def(OpTypeId id) {
    if (!id.valid() || id.value >= std::size(kOps))
        throw GraphError(
            fmt::format("op registry: no operator with id {} (have {})", id.value, std::size(kOps)));
    return kOps[id.value];
}

OpTypeId find_op(std::string_view name_or_token) {
    const auto& index = op_index();
    auto it = index.find(name_or_token);
    return it == index.end() ? OpTypeId{} : OpTypeId{it->second};
}

}  // namespace mgedump::ir
