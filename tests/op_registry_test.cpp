// The operator vocabulary (ir/op_registry.h): internal consistency, lookups, and
// the facts spec §5 and the minimal-op-set table state outright.
#include "ir/op_registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ir/error.h"
#include "ir/param_schema.h"

namespace mgedump::ir {
namespace {

const OpDef& op_named(std::string_view key) {
    const auto id = find_op(key);
    if (!id) throw std::runtime_error("test: no operator \"" + std::string(key) + "\"");
    return op_def(id);
}

std::vector<std::string_view> params_of(std::string_view key) {
    const auto& op = op_named(key);
    return {op.params.begin(), op.params.end()};
}

TEST(OpRegistry, NamesAreUnique) {
    std::set<std::string_view> names;
    for (const auto& op : op_defs()) EXPECT_TRUE(names.insert(op.name).second) << op.name;
}

TEST(OpRegistry, TypeinfoNamesAndTokensAreUnique) {
    std::set<std::string_view> typeinfos, tokens;
    for (const auto& op : op_defs()) {
        EXPECT_TRUE(typeinfos.insert(op.typeinfo).second) << op.typeinfo;
        EXPECT_TRUE(tokens.insert(op.token).second) << op.token;
    }
}

TEST(OpRegistry, EveryOperatorHasANameATypeinfoAndAToken) {
    for (const auto& op : op_defs()) {
        EXPECT_FALSE(op.name.empty());
        EXPECT_FALSE(op.typeinfo.empty()) << op.name;
        EXPECT_FALSE(op.token.empty()) << op.name;
    }
}

TEST(OpRegistry, NamesAreClassNamesWithoutForward) {
    for (const auto& op : op_defs()) {
        EXPECT_FALSE(op.name.ends_with("Forward")) << op.name;
        const bool same = op.typeinfo == op.name;
        const bool plus_forward = op.typeinfo == std::string(op.name) + "Forward";
        EXPECT_TRUE(same || plus_forward) << op.name << " vs " << op.typeinfo;
    }
}

TEST(OpRegistry, EveryParamTableNameResolves) {
    for (const auto& op : op_defs())
        for (auto table : op.params) EXPECT_TRUE(find_param_table(table).valid()) << op.name << ": " << table;
}

TEST(OpRegistry, InputArityIsAnOrderedRange) {
    for (const auto& op : op_defs()) {
        EXPECT_LE(op.min_inputs, op.max_inputs) << op.name;
        EXPECT_NE(op.min_inputs, kAnyCount) << op.name;
    }
}

TEST(OpRegistry, OnlySourceOperatorsCarryTensors) {
    for (const auto& op : op_defs()) {
        if (op.tensors != OpTensors::None) {
            EXPECT_EQ(op.max_inputs, 0) << op.name;
        }
        if (op.tensors == OpTensors::MultipleShared) {
            EXPECT_EQ(op.outputs, kAnyCount) << op.name;
        }
    }
}

TEST(OpRegistry, FindOpFindsEveryOperatorByEachOfItsKeys) {
    const auto defs = op_defs();
    for (uint32_t i = 0; i < defs.size(); ++i) {
        const OpTypeId id{i};
        EXPECT_EQ(find_op(defs[i].name), id) << defs[i].name;
        EXPECT_EQ(find_op(defs[i].typeinfo), id) << defs[i].typeinfo;
        EXPECT_EQ(find_op(defs[i].token), id) << defs[i].token;
        if (!defs[i].token_v2.empty()) {
            EXPECT_EQ(find_op(defs[i].token_v2), id) << defs[i].token_v2;
        }
    }
}

TEST(OpRegistry, FindOpAcceptsTheSpellingsOfTheConvolutionRow) {
    const auto conv = find_op("Convolution");
    ASSERT_TRUE(conv);
    EXPECT_EQ(find_op("ConvolutionForward"), conv);
    EXPECT_EQ(find_op("ConvolutionV2"), conv);
    EXPECT_EQ(op_def(conv).token, "ConvolutionV2");
    EXPECT_EQ(op_def(conv).token_v2, "Convolution");
}

TEST(OpRegistry, FindOpIsExactAndCaseSensitive) {
    EXPECT_FALSE(find_op("convolution"));
    EXPECT_FALSE(find_op("Convolution "));
    EXPECT_FALSE(find_op(""));
    EXPECT_FALSE(find_op("NoSuchOperator"));
}

TEST(OpRegistry, SetGradIsNotAnOperatorThatGetsDumped) { EXPECT_FALSE(find_op("SetGrad")); }

TEST(OpRegistry, OpDefRejectsAnInvalidId) {
    EXPECT_THROW(op_def(OpTypeId{}), GraphError);
    EXPECT_THROW(op_def(OpTypeId{static_cast<uint32_t>(op_defs().size())}), GraphError);
}

TEST(OpRegistry, ConcurrentFirstLookupsAgree) {
    // The index is built on first use; every thread must see the same answer.
    std::vector<std::thread> threads;
    std::vector<OpTypeId> seen(8);
    for (size_t t = 0; t < seen.size(); ++t)
        threads.emplace_back([&seen, t] { seen[t] = find_op("ConvBiasForwardV4"); });
    for (auto& t : threads) t.join();
    for (auto id : seen) EXPECT_EQ(id, find_op("ConvBias"));
}

// --- facts stated by spec §5 and the minimal op set ----------------------------------

using Params = std::vector<std::string_view>;

TEST(OpRegistry, ParamTablesFollowSection5) {
    EXPECT_EQ(params_of("Convolution"), (Params{"Convolution", "ExecutionPolicy"}));
    EXPECT_EQ(params_of("ConvolutionBackwardData"), (Params{"Convolution", "ExecutionPolicy"}));
    EXPECT_EQ(params_of("ConvBias"), (Params{"ConvBias", "ExecutionPolicy"}));
    EXPECT_EQ(params_of("Pooling"), (Params{"Pooling"}));
    EXPECT_EQ(params_of("MatrixMul"), (Params{"MatrixMul"}));
    EXPECT_EQ(params_of("BatchedMatrixMul"), (Params{"MatrixMul"}));
    EXPECT_EQ(params_of("TypeCvt"), (Params{"DType"}));
    EXPECT_EQ(params_of("Reshape"), (Params{"OptionalAxisV1"}));
    EXPECT_EQ(params_of("GetVarShape"), (Params{"OptionalAxisV1"}));
    EXPECT_EQ(params_of("Broadcast"), (Params{"Empty"}));
    EXPECT_EQ(params_of("Where"), (Params{"Empty"}));
    EXPECT_EQ(params_of("Concat"), (Params{"Axis"}));
    EXPECT_EQ(params_of("Split"), (Params{"Axis"}));
    EXPECT_EQ(params_of("Subtensor"), (Params{"IndexDescMaskDump"}));
    EXPECT_EQ(params_of("IndexingOneHot"), (Params{"Axis"}));
    EXPECT_EQ(params_of("BatchNorm"), (Params{"BN"}));
    EXPECT_EQ(params_of("InstanceNorm"), (Params{"GroupNorm"}));
    EXPECT_EQ(params_of("MaskedFill"), (Params{"Fill"}));
    EXPECT_EQ(params_of("AddUpdate"), (Params{"MGBAddUpdate"}));
    EXPECT_EQ(params_of("Host2DeviceCopy"), (Params{"Host2DeviceCopy"}));
    EXPECT_TRUE(params_of("ImmutableTensor").empty());
    EXPECT_TRUE(params_of("VirtualDep").empty());
    EXPECT_TRUE(params_of("CustomOpNode").empty());
}

TEST(OpRegistry, SourceOperatorsDeclareHowTheyStoreTensors) {
    EXPECT_EQ(op_named("Host2DeviceCopy").tensors, OpTensors::Input);
    EXPECT_EQ(op_named("ImmutableTensor").tensors, OpTensors::Anonymous);
    EXPECT_EQ(op_named("SharedDeviceTensor").tensors, OpTensors::Shared);
    EXPECT_EQ(op_named("VolatileSharedDeviceTensor").tensors, OpTensors::Shared);
    EXPECT_EQ(op_named("MultipleDeviceTensorHolder").tensors, OpTensors::MultipleShared);
    EXPECT_EQ(op_named("Elemwise").tensors, OpTensors::None);
}

TEST(OpRegistry, ArityFollowsSection5) {
    auto arity = [](std::string_view key) {
        const auto& op = op_named(key);
        return std::pair<int, int>{op.min_inputs, op.max_inputs};
    };
    using A = std::pair<int, int>;
    EXPECT_EQ(arity("Host2DeviceCopy"), (A{0, 0}));
    EXPECT_EQ(arity("Elemwise"), (A{1, 4}));
    EXPECT_EQ(arity("Convolution"), (A{2, 2}));
    EXPECT_EQ(arity("ConvolutionBackwardData"), (A{2, 3}));
    EXPECT_EQ(arity("ConvBias"), (A{2, 4}));
    EXPECT_EQ(arity("Reduce"), (A{1, 2}));
    EXPECT_EQ(arity("BatchNorm"), (A{3, 5}));
    EXPECT_EQ(arity("MultiHeadAttn"), (A{4, 7}));
    EXPECT_EQ(arity("Linspace"), (A{3, 3}));
    EXPECT_EQ(arity("AssertEqual"), (A{2, 3}));
    EXPECT_EQ(arity("Concat"), (A{1, kAnyCount}));
    EXPECT_EQ(arity("Split"), (A{2, kAnyCount}));
}

TEST(OpRegistry, OutputCountsFollowSection5) {
    EXPECT_EQ(op_named("Split").outputs, kAnyCount);
    EXPECT_EQ(op_named("MultipleDeviceTensorHolder").outputs, kAnyCount);
    EXPECT_EQ(op_named("Argsort").outputs, 2);
    EXPECT_EQ(op_named("CondTake").outputs, 2);
    EXPECT_EQ(op_named("Elemwise").outputs, 1);
}

TEST(OpRegistry, WorkspaceOutputsFollowMegDnnHolders) {
    // Elemwise and TypeCvt hold MegDNN operators without a workspace; convolutions,
    // matmul, pooling and reductions add one (it shows up as "Byte" in strip info).
    EXPECT_FALSE(op_named("Elemwise").workspace);
    EXPECT_FALSE(op_named("TypeCvt").workspace);
    EXPECT_FALSE(op_named("Reshape").workspace);
    EXPECT_FALSE(op_named("Host2DeviceCopy").workspace);
    EXPECT_TRUE(op_named("Convolution").workspace);
    EXPECT_TRUE(op_named("MatrixMul").workspace);
    EXPECT_TRUE(op_named("Pooling").workspace);
    EXPECT_TRUE(op_named("Reduce").workspace);
    EXPECT_TRUE(op_named("BatchNorm").workspace);
}

TEST(OpRegistry, CoversTheMinimalOpSet) {
    for (std::string_view name : {"Host2DeviceCopy",
                                  "ImmutableTensor",
                                  "SharedDeviceTensor",
                                  "MultipleDeviceTensorHolder",
                                  "Convolution",
                                  "ConvBias",
                                  "ConvolutionBackwardData",
                                  "Pooling",
                                  "AdaptivePooling",
                                  "Elemwise",
                                  "PowC",
                                  "Reduce",
                                  "TypeCvt",
                                  "MatrixMul",
                                  "BatchedMatrixMul",
                                  "Softmax",
                                  "LayerNorm",
                                  "BatchNorm",
                                  "Reshape",
                                  "AxisAddRemove",
                                  "Dimshuffle",
                                  "Broadcast",
                                  "Concat",
                                  "Split",
                                  "GetVarShape",
                                  "Subtensor",
                                  "IndexingMultiAxisVec",
                                  "IndexingOneHot",
                                  "Resize",
                                  "Padding",
                                  "Linspace",
                                  "Where",
                                  "MaskedFill",
                                  "Argmax",
                                  "TopK",
                                  "MultiHeadAttn"})
        EXPECT_TRUE(find_op(name)) << name;
}

}  // namespace
}  // namespace mgedump::ir
