// Shape manipulation, indexing, pools, reductions, Softmax, Resize, Pad, and the
// import-time folding of the Shape → Gather → Unsqueeze → Concat → Reshape chains.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;
using U = std::vector<uint32_t>;
using I = std::vector<int32_t>;

TEST(OnnxShape, FlattenIsReshapeToTwoAxes) {
    OnnxModel m;
    m.input("x", {2, 3, 4, 5}).output("y");
    set_attr(m.node("Flatten", {"x"}, {"y"}), "axis", int64_t{2});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"Reshape"});
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape"), 1), (I{6, 20}));
    expect_round_trip(g);
}

TEST(OnnxShape, ReshapeResolvesZeroAndMinusOne) {
    OnnxModel m;
    m.input("x", {2, 3, 4}).output("y");
    m.initializer_i64("s", {3}, {0, -1, 2});
    m.node("Reshape", {"x", "s"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape"), 1), (I{2, 6, 2}));
}

TEST(OnnxShape, TorchShapeChainFoldsIntoOneReshape) {
    // x.view(x.size(0), -1) as torch.onnx.export writes it.
    OnnxModel m;
    m.input("x", {2, 3, 4}).output("y");
    m.initializer_i64("zero", {}, {0});
    m.initializer_i64("minus1", {1}, {-1});
    m.node("Shape", {"x"}, {"s"});
    set_attr(m.node("Gather", {"s", "zero"}, {"n"}), "axis", int64_t{0});
    m.initializer_i64("ax0", {1}, {0});
    m.node("Unsqueeze", {"n", "ax0"}, {"n1"});
    set_attr(m.node("Concat", {"n1", "minus1"}, {"shape"}), "axis", int64_t{0});
    m.node("Reshape", {"x", "shape"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"Reshape"});
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape"), 1), (I{2, 12}));
    expect_round_trip(g);
}

TEST(OnnxShape, TransposeIsDimshuffleWithThePermutation) {
    OnnxModel m;
    m.input("x", {2, 3, 4}).output("y");
    set_attr(m.node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{2, 0, 1});
    ir::Graph g = m.import();
    ir::OprId d = find_opr(g, "Dimshuffle");
    EXPECT_EQ(std::get<std::vector<int32_t>>(field(g, d, "pattern")), (I{2, 0, 1}));
    expect_round_trip(g);
}

TEST(OnnxShape, ConcatKeepsTheAxis) {
    OnnxModel m;
    m.input("a", {2, 3}).input("b", {2, 5}).output("y");
    set_attr(m.node("Concat", {"a", "b"}, {"y"}), "axis", int64_t{-1});
    ir::Graph g = m.import();
    EXPECT_EQ(int_field(g, find_opr(g, "Concat"), "axis"), 1);
    expect_round_trip(g);
}

TEST(OnnxShape, SplitTakesThePartSizesAsInputs) {
    OnnxModel m;
    m.input("x", {2, 6}).output("a").output("b");
    m.initializer_i64("parts", {2}, {2, 4});
    set_attr(m.node("Split", {"x", "parts"}, {"a", "b"}), "axis", int64_t{1});
    ir::Graph g = m.import();
    ir::OprId s = find_opr(g, "Split");
    EXPECT_EQ(int_field(g, s, "axis"), 1);
    EXPECT_EQ(g.oprs.outputs[s.value].count, 2u);
    EXPECT_EQ(input_ints(g, s, 1), I{2});
    EXPECT_EQ(input_ints(g, s, 2), I{4});
    expect_round_trip(g);
}

TEST(OnnxShape, SqueezeAndUnsqueezeAreAxisAddRemove) {
    OnnxModel m;
    m.input("x", {2, 1, 3}).output("y");
    m.initializer_i64("a1", {1}, {1});
    m.initializer_i64("a2", {2}, {0, 3});
    m.node("Squeeze", {"x", "a1"}, {"s"});
    m.node("Unsqueeze", {"s", "a2"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"AxisAddRemove", "AxisAddRemove"}));
    auto rm = std::get<std::vector<ir::AxisDesc>>(field(g, find_opr(g, "AxisAddRemove", 0), "desc"));
    auto add = std::get<std::vector<ir::AxisDesc>>(field(g, find_opr(g, "AxisAddRemove", 1), "desc"));
    EXPECT_EQ(rm, (std::vector<ir::AxisDesc>{{ir::AxisDescMethod::REMOVE, 1}}));
    EXPECT_EQ(add,
              (std::vector<ir::AxisDesc>{{ir::AxisDescMethod::ADD_1, 0}, {ir::AxisDescMethod::ADD_1, 3}}));
    expect_round_trip(g);
}

TEST(OnnxIndex, SliceIsSubtensorWithClampedBounds) {
    OnnxModel m;
    m.input("x", {4, 10}).output("y");
    m.initializer_i64("st", {1}, {2});
    m.initializer_i64("en", {1}, {INT64_MAX});
    m.initializer_i64("ax", {1}, {1});
    m.initializer_i64("sp", {1}, {3});
    m.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"});
    ir::Graph g = m.import();
    ir::OprId s = find_opr(g, "Subtensor");
    auto items = std::get<std::vector<ir::IndexDescMaskItem>>(field(g, s, "items"));
    EXPECT_EQ(items, (std::vector<ir::IndexDescMaskItem>{{1, true, true, true, false}}));
    EXPECT_EQ(input_ints(g, s, 1), I{2});
    EXPECT_EQ(input_ints(g, s, 2), I{10});
    EXPECT_EQ(input_ints(g, s, 3), I{3});
    expect_round_trip(g);
}

TEST(OnnxIndex, GatherWithAScalarIndexIsSubtensorAndWithAVectorIndexingMultiAxisVec) {
    OnnxModel m;
    m.input("x", {5, 3}).output("a").output("b");
    m.initializer_i64("i", {}, {-1});
    m.initializer_i64("v", {2}, {0, 2});
    set_attr(m.node("Gather", {"x", "i"}, {"a"}), "axis", int64_t{0});
    set_attr(m.node("Gather", {"x", "v"}, {"b"}), "axis", int64_t{1});
    ir::Graph g = m.import();
    ir::OprId s = find_opr(g, "Subtensor");
    EXPECT_EQ(input_ints(g, s, 1), I{4});
    ir::OprId v = find_opr(g, "IndexingMultiAxisVec");
    auto items = std::get<std::vector<ir::IndexDescMaskItem>>(field(g, v, "items"));
    EXPECT_EQ(items, (std::vector<ir::IndexDescMaskItem>{{1, false, false, false, true}}));
    EXPECT_EQ(input_ints(g, v, 1), (I{0, 2}));
    expect_round_trip(g);
}

TEST(OnnxIndex, GatherWithRuntimeIndicesIsIndexingMultiAxisVecOnTheIndexVar) {
    OnnxModel m;
    m.input("ids", {3}, OnnxType::INT64).output("y");
    m.ramp("table", {10, 4});
    m.node("Gather", {"table", "ids"}, {"y"});
    ir::Graph g = m.import();
    ir::OprId v = find_opr(g, "IndexingMultiAxisVec");
    EXPECT_EQ(ir::op_def(g.oprs.type[g.vars.owner[g.inputs_of(v)[1].value].value]).name, "Host2DeviceCopy");
    EXPECT_EQ(g.vars.dtype[g.inputs_of(v)[1].value].type, ir::DTypeEnum::Int32);  // INT64 input as Int32
    expect_round_trip(g);
}

TEST(OnnxPool, MaxPoolAndAveragePoolArePoolingWithTheirModes) {
    OnnxModel m;
    m.input("x", {1, 2, 8, 8}).output("a").output("b");
    auto& mp = m.node("MaxPool", {"x"}, {"a"});
    set_attr(mp, "kernel_shape", std::vector<int64_t>{3, 3});
    set_attr(mp, "strides", std::vector<int64_t>{2, 2});
    set_attr(mp, "pads", std::vector<int64_t>{1, 1, 1, 1});
    auto& ap = m.node("AveragePool", {"x"}, {"b"});
    set_attr(ap, "kernel_shape", std::vector<int64_t>{2, 2});
    set_attr(ap, "strides", std::vector<int64_t>{2, 2});
    ir::Graph g = m.import();
    ir::OprId p0 = find_opr(g, "Pooling", 0), p1 = find_opr(g, "Pooling", 1);
    EXPECT_EQ(enum_field(g, p0, "mode"), "MAX_");
    EXPECT_EQ(int_field(g, p0, "window_h"), 3);
    EXPECT_EQ(int_field(g, p0, "pad_w"), 1);
    EXPECT_EQ(enum_field(g, p1, "mode"), "AVERAGE_COUNT_EXCLUDE_PADDING");
    EXPECT_EQ(int_field(g, p1, "stride_h"), 2);
    expect_round_trip(g);
}

TEST(OnnxPool, CeilModeMaxPoolPadsTheEdgeWithMinusInfinityFirst) {
    OnnxModel m;
    m.input("x", {1, 2, 8, 8}).output("y");
    auto& mp = m.node("MaxPool", {"x"}, {"y"});
    set_attr(mp, "kernel_shape", std::vector<int64_t>{3, 3});
    set_attr(mp, "strides", std::vector<int64_t>{2, 2});
    set_attr(mp, "ceil_mode", int64_t{1});
    ir::Graph g = m.import();
    // floor: (8-3)/2+1 = 3; ceil: 4, needing (4-1)*2+3-8 = 1 more row and column.
    EXPECT_EQ(compute_ops(g), (V{"Padding", "Pooling"}));
    ir::OprId p = find_opr(g, "Padding");
    EXPECT_EQ(int_field(g, p, "back_offset_dim2"), 1);
    EXPECT_EQ(int_field(g, p, "back_offset_dim3"), 1);
    EXPECT_EQ(std::get<double>(field(g, p, "padding_val")), -std::numeric_limits<double>::infinity());
    expect_round_trip(g);
}

TEST(OnnxPool, GlobalAveragePoolIsOneWindowOverThePlane) {
    OnnxModel m;
    m.input("x", {1, 2, 7, 5}).output("y");
    m.node("GlobalAveragePool", {"x"}, {"y"});
    ir::Graph g = m.import();
    ir::OprId p = find_opr(g, "Pooling");
    EXPECT_EQ(enum_field(g, p, "mode"), "AVERAGE");
    EXPECT_EQ(int_field(g, p, "window_h"), 7);
    EXPECT_EQ(int_field(g, p, "window_w"), 5);
    expect_round_trip(g);
}

TEST(OnnxPool, GlobalMaxPoolIsOneMaxWindowOverThePlane) {
    OnnxModel m;
    m.input("x", {1, 2, 3, 6}).output("y");
    m.node("GlobalMaxPool", {"x"}, {"y"});
    ir::Graph g = m.import();
    ir::OprId p = find_opr(g, "Pooling");
    EXPECT_EQ(enum_field(g, p, "mode"), "MAX_");
    EXPECT_EQ(int_field(g, p, "window_h"), 3);
    EXPECT_EQ(int_field(g, p, "stride_w"), 6);
}

TEST(OnnxPool, ReduceMeanOverTwoAxesWithoutKeepdimsIsTwoReducesAndAnAxisRemove) {
    OnnxModel m;
    m.input("x", {2, 3, 4}).output("y");
    auto& n = m.node("ReduceMean", {"x"}, {"y"});
    set_attr(n, "axes", std::vector<int64_t>{-1, 1});
    set_attr(n, "keepdims", int64_t{0});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Reduce", "Reduce", "AxisAddRemove"}));
    EXPECT_EQ(enum_field(g, find_opr(g, "Reduce", 0), "mode"), "MEAN");
    EXPECT_EQ(int_field(g, find_opr(g, "Reduce", 0), "axis"), 1);
    EXPECT_EQ(int_field(g, find_opr(g, "Reduce", 1), "axis"), 2);
    expect_round_trip(g);
}

TEST(OnnxPool, ReduceSumAndMaxUseTheirModes) {
    OnnxModel m;
    m.input("x", {2, 3}).output("a").output("b");
    m.initializer_i64("ax", {1}, {1});
    m.node("ReduceSum", {"x", "ax"}, {"a"});
    set_attr(m.node("ReduceMax", {"x"}, {"b"}), "axes", std::vector<int64_t>{0});
    ir::Graph g = m.import();
    EXPECT_EQ(enum_field(g, find_opr(g, "Reduce", 0), "mode"), "SUM");
    EXPECT_EQ(enum_field(g, find_opr(g, "Reduce", 1), "mode"), "MAX_");
}

TEST(OnnxPool, SoftmaxKeepsTheAxis) {
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    m.node("Softmax", {"x"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(int_field(g, find_opr(g, "Softmax"), "axis"), 1);
    expect_round_trip(g);
}

TEST(OnnxShape, ResizeNearestAndLinearGiveTheOutputSize) {
    OnnxModel m;
    m.input("x", {1, 2, 4, 4}).output("a").output("b");
    m.initializer("scales", {4}, {1, 1, 2, 2});
    m.initializer_i64("sizes", {4}, {1, 2, 6, 3});
    auto& n = m.node("Resize", {"x", "", "scales"}, {"a"});
    set_attr(n, "mode", "nearest");
    set_attr(n, "coordinate_transformation_mode", "asymmetric");
    set_attr(n, "nearest_mode", "floor");
    set_attr(m.node("Resize", {"x", "", "", "sizes"}, {"b"}), "mode", "linear");
    ir::Graph g = m.import();
    ir::OprId r0 = find_opr(g, "Resize", 0), r1 = find_opr(g, "Resize", 1);
    EXPECT_EQ(enum_field(g, r0, "imode"), "NEAREST");
    EXPECT_EQ(enum_field(g, r0, "format"), "NCHW");
    EXPECT_EQ(input_ints(g, r0, 1), (I{8, 8}));
    EXPECT_EQ(enum_field(g, r1, "imode"), "LINEAR");
    EXPECT_EQ(input_ints(g, r1, 1), (I{6, 3}));
    expect_round_trip(g);
}

TEST(OnnxShape, ResizeWithAlignCornersIsAnError) {
    OnnxModel m;
    m.input("x", {1, 2, 4, 4}).output("y");
    m.initializer("scales", {4}, {1, 1, 2, 2});
    auto& n = m.node("Resize", {"x", "", "scales"}, {"y"});
    set_attr(n, "mode", "linear");
    set_attr(n, "coordinate_transformation_mode", "align_corners");
    EXPECT_THROW(m.import(), GraphError);
}

TEST(OnnxShape, PadIsPaddingWithFrontAndBackOffsets) {
    OnnxModel m;
    m.input("x", {1, 2, 4, 4}).output("y");
    m.initializer_i64("pads", {8}, {0, 0, 1, 2, 0, 0, 3, 4});
    m.initializer("v", {}, {1.5f});
    set_attr(m.node("Pad", {"x", "pads", "v"}, {"y"}), "mode", "constant");
    ir::Graph g = m.import();
    ir::OprId p = find_opr(g, "Padding");
    EXPECT_EQ(int_field(g, p, "front_offset_dim2"), 1);
    EXPECT_EQ(int_field(g, p, "front_offset_dim3"), 2);
    EXPECT_EQ(int_field(g, p, "back_offset_dim2"), 3);
    EXPECT_EQ(int_field(g, p, "back_offset_dim3"), 4);
    EXPECT_EQ(std::get<double>(field(g, p, "padding_val")), 1.5);
    EXPECT_EQ(enum_field(g, p, "padding_mode"), "CONSTANT");
    expect_round_trip(g);
}

TEST(OnnxShape, ConstantNodeFeedsARuntimeOperatorAsImmutableTensor) {
    OnnxModel m;
    m.input("x", {3}).output("y");
    auto& c = m.node("Constant", {}, {"k"});
    auto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(OnnxType::FLOAT);
    a->mutable_t()->add_dims(3);
    for (float f : {1.0f, 2.0f, 3.0f}) a->mutable_t()->add_float_data(f);
    m.node("Add", {"x", "k"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(input_floats(g, find_opr(g, "Elemwise"), 1), (std::vector<float>{1, 2, 3}));
    EXPECT_EQ(count_ops(g, "ImmutableTensor"), 1u);
}

}  // namespace
}  // namespace mgedump::test
