// Shape manipulation, indexing, pools, reductions, Softmax, Resize, Pad, and the
// import-time folding of the Shape → Gather → Unsqueeze → Concat → Reshape chains.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

// A part with no elements adds nothing to a concatenation, and MegEngine holds no
// empty tensor (torchvision's detection transform concatenates an empty list of
// paddings): it is left out. With two parts left they are the Concat; with one,
// that part is the output (what Concat::make returns for a lone input).
TEST(OnnxShape, ConcatLeavesOutPartsWithNoElements) {
    OnnxModel m;
    m.input("a", {2, 3}).input("b", {2, 5}).output("y").output("z");
    m.initializer("nothing", {2, 0}, {});
    set_attr(m.node("Concat", {"a", "nothing", "b"}, {"y"}), "axis", int64_t{1});
    set_attr(m.node("Concat", {"nothing", "a"}, {"z"}), "axis", int64_t{1});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"Concat"});
    EXPECT_EQ(g.inputs_of(find_opr(g, "Concat")).size(), 2u);
    EXPECT_EQ(g.var_shape(g.outputs.at(0)).size(), 2u);
    EXPECT_EQ(g.var_shape(g.outputs.at(0))[1], 8u);
    const auto out =
        evaluate(g, {{"a", {1, 2, 3, 4, 5, 6}}, {"b", {10, 11, 12, 13, 14, 20, 21, 22, 23, 24}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value),
              (std::vector<double>{1, 2, 3, 10, 11, 12, 13, 14, 4, 5, 6, 20, 21, 22, 23, 24}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (std::vector<double>{1, 2, 3, 4, 5, 6}));
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

TEST(OnnxShape, SplitRefusesAPartOutsideTheAxisBeforeAddingThem) {
    // -1 + 7 = 6 would pass a check of the sum alone; two parts near 2^62 each would
    // overflow it (fuzz_onnx's finding).
    for (const std::vector<int64_t>& parts :
         {std::vector<int64_t>{-1, 7}, std::vector<int64_t>{int64_t{1} << 62, int64_t{1} << 62}}) {
        OnnxModel m;
        m.input("x", {2, 6}).output("a").output("b");
        m.initializer_i64("parts", {2}, parts);
        set_attr(m.node("Split", {"x", "parts"}, {"a", "b"}, "split"), "axis", int64_t{1});
        const std::string e = import_error(m);
        EXPECT_NE(e.find(fmt::format("node 'split' (Split): split size {} is out of range for axis 1 of 6", parts[0])),
                  std::string::npos)
            << e;
    }
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

// Squeeze without axes removes every axis of size 1 (ONNX): with none, the
// input is the output. An AxisAddRemove without descs was written, which
// MegEngine refuses (and so did the dump).
TEST(OnnxShape, SqueezeWithNoAxisOfSize1IsTheInputAndAnAxisGivenTwiceIsRefusedAsInUnsqueeze) {
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    m.node("Squeeze", {"x"}, {"s"});
    m.node("Relu", {"s"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"Elemwise"});
    EXPECT_EQ(g.var_shape(g.outputs.at(0)).size(), 2u);
    expect_round_trip(g);

    OnnxModel twice;
    twice.input("x", {2, 1, 3}).output("y");
    twice.initializer_i64("a", {2}, {1, -2});
    twice.node("Squeeze", {"x", "a"}, {"y"}, "sq");
    EXPECT_NE(import_error(twice).find("node 'sq' (Squeeze): axis 1 is given twice"), std::string::npos)
        << import_error(twice);

    // Unsqueeze the same way: axes 1 and -3 of the rank-4 output are one axis.
    OnnxModel un;
    un.input("x", {2, 3}).output("y");
    un.initializer_i64("a", {2}, {1, -3});
    un.node("Unsqueeze", {"x", "a"}, {"y"}, "un");
    EXPECT_NE(import_error(un).find("node 'un' (Unsqueeze): axis 1 is given twice"), std::string::npos)
        << import_error(un);
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

// ONNX's pooling by its definition: window o of an axis starts at o·stride − pad_begin;
// MAX and the excluding average see the input elements in it; count_include_pad
// divides by the window clipped to the padded input (PyTorch's avg_pool2d and
// ONNX Runtime: the part of a ceil_mode window beyond the padding is not counted).
struct PoolRef {
    int64_t kh, kw, sh, sw;
    std::vector<int64_t> pads;  // top, left, bottom, right
    bool ceil = false, max = false, include_pad = false;
};
int64_t pool_out(int64_t in, int64_t pb, int64_t pe, int64_t k, int64_t s, bool ceil) {
    const int64_t span = in + pb + pe - k;
    int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (out - 1) * s >= in + pb) --out;
    return out;
}
std::vector<double> ref_pool(const std::vector<double>& x, const std::vector<int64_t>& shape,
                             const PoolRef& p) {
    const int64_t nc = shape[0] * shape[1], h = shape[2], w = shape[3];
    const int64_t oh = pool_out(h, p.pads[0], p.pads[2], p.kh, p.sh, p.ceil);
    const int64_t ow = pool_out(w, p.pads[1], p.pads[3], p.kw, p.sw, p.ceil);
    std::vector<double> y;
    for (int64_t c = 0; c < nc; ++c)
        for (int64_t i = 0; i < oh; ++i)
            for (int64_t j = 0; j < ow; ++j) {
                const int64_t y0 = i * p.sh - p.pads[0], x0 = j * p.sw - p.pads[1];
                double acc = p.max ? -INFINITY : 0;
                int64_t n = 0;
                for (int64_t yy = y0; yy < y0 + p.kh; ++yy)
                    for (int64_t xx = x0; xx < x0 + p.kw; ++xx) {
                        if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                        const double v = x[static_cast<size_t>((c * h + yy) * w + xx)];
                        acc = p.max ? std::max(acc, v) : acc + v;
                        ++n;
                    }
                if (p.include_pad)
                    n = (std::min(y0 + p.kh, h + p.pads[2]) - y0) * (std::min(x0 + p.kw, w + p.pads[3]) - x0);
                y.push_back(p.max ? acc : acc / static_cast<double>(n));
            }
    return y;
}

std::vector<double> pool_input(size_t n) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37) % 101) / 7.0;
    return v;
}

ir::Graph pool_model(const char* op, const std::vector<int64_t>& shape, const PoolRef& p,
                     const char* auto_pad = nullptr) {
    OnnxModel m;
    m.input("x", shape).output("y");
    auto& n = m.node(op, {"x"}, {"y"}, "pool");
    set_attr(n, "kernel_shape", std::vector<int64_t>{p.kh, p.kw});
    set_attr(n, "strides", std::vector<int64_t>{p.sh, p.sw});
    if (auto_pad)
        set_attr(n, "auto_pad", auto_pad);
    else
        set_attr(n, "pads", p.pads);
    if (p.ceil) set_attr(n, "ceil_mode", int64_t{1});
    if (p.include_pad) set_attr(n, "count_include_pad", int64_t{1});
    return m.import();
}

TEST(OnnxPool, AveragePoolCeilModeWithAPartialLastWindowAveragesWhatTheWindowCovers) {
    // ONNX's test_averagepool_2d_ceil: the last window holds 2 of its 3 columns.
    ir::Graph g = pool_model("AveragePool", {1, 1, 4, 4}, {3, 3, 2, 2, {0, 0, 0, 0}, true});
    EXPECT_EQ(compute_ops(g), (V{"Padding", "Pooling", "Elemwise", "Elemwise"}));
    EXPECT_EQ(enum_field(g, find_opr(g, "Pooling"), "mode"), "AVERAGE");
    std::vector<double> x(16);
    for (size_t i = 0; i < 16; ++i) x[i] = static_cast<double>(i + 1);
    expect_near_all(evaluate_values(g, {{"x", x}}), {6, 7.5, 12, 13.5});
    expect_round_trip(g);
}

TEST(OnnxPool, AveragePoolCeilModeCountsPaddingButNotTheWindowBeyondIt) {
    const std::vector<int64_t> shape{1, 2, 6, 7};
    const auto x = pool_input(84);
    for (bool include : {true, false}) {
        SCOPED_TRACE(include ? "count_include_pad=1" : "count_include_pad=0");
        const PoolRef p{3, 3, 2, 2, {1, 1, 1, 1}, true, false, include};
        ir::Graph g = pool_model("AveragePool", shape, p);
        const auto got = evaluate_values(g, {{"x", x}});
        expect_near_all(got, ref_pool(x, shape, p));
        // torch.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=...) on the same
        // values: channel 0's last row.
        const std::vector<double> torch_row =
            include ? std::vector<double>{2.428571428571429, 4.0, 4.476190476190477, 1.6190476190476193}
                    : std::vector<double>{7.2857142857142865, 8.0, 8.952380952380954, 4.857142857142858};
        expect_near_all(std::vector<double>(got.begin() + 12, got.begin() + 16), torch_row);
    }
}

TEST(OnnxPool, AsymmetricPadsPadTheDifferenceFirstForBothPools) {
    const std::vector<int64_t> shape{1, 2, 5, 6};
    const auto x = pool_input(60);
    for (bool max : {true, false}) {
        SCOPED_TRACE(max ? "MaxPool" : "AveragePool");
        const PoolRef p{2, 3, 1, 2, {0, 1, 1, 1}, false, max, false};  // SAME_UPPER-like: more at the end
        ir::Graph g = pool_model(max ? "MaxPool" : "AveragePool", shape, p);
        ir::OprId pad = find_opr(g, "Padding");
        EXPECT_EQ(int_field(g, pad, "back_offset_dim2"), 1);
        EXPECT_EQ(std::get<double>(field(g, pad, "padding_val")),
                  max ? -std::numeric_limits<double>::infinity() : 0.0);
        expect_near_all(evaluate_values(g, {{"x", x}}), ref_pool(x, shape, p));
    }
    // auto_pad SAME_UPPER / SAME_LOWER (ONNX's test_averagepool_2d_same_*).
    for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
        SCOPED_TRACE(mode);
        const bool upper = std::string(mode) == "SAME_UPPER";
        const PoolRef p{2, 2, 1, 1,
                        upper ? std::vector<int64_t>{0, 0, 1, 1} : std::vector<int64_t>{1, 1, 0, 0}};
        expect_near_all(evaluate_values(pool_model("AveragePool", shape, p, mode), {{"x", x}}),
                        ref_pool(x, shape, p));
    }
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

// Pad-18's axes: pads holds the begins then the ends of the listed axes only.
TEST(OnnxShape, PadWithAxesPadsOnlyThoseAxes) {
    OnnxModel m(18);
    m.input("x", {2, 3}).output("y");
    // Begins of axes -1 and 0, then their ends: axis 1 (1, 0), axis 0 (1, 2).
    m.initializer_i64("pads", {4}, {1, 1, 0, 2});
    m.initializer("v", {}, {9.0f});
    m.initializer_i64("axes", {2}, {-1, 0});
    m.node("Pad", {"x", "pads", "v", "axes"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(g.var_shape(g.outputs.at(0)).size(), 2u);
    // np.pad(x, ((1, 2), (1, 0)), constant_values=9) of x = [[1, 2, 3], [4, 5, 6]]: (5, 4).
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4, 5, 6}}}),
              (std::vector<double>{9, 9, 9, 9, 9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9, 9, 9, 9, 9}));

    OnnxModel twice(18);
    twice.input("x", {2, 3}).output("y");
    twice.initializer_i64("pads", {4}, {1, 1, 1, 1});
    twice.initializer_i64("axes", {2}, {1, -1});
    twice.node("Pad", {"x", "pads", "", "axes"}, {"y"}, "pad");
    EXPECT_NE(import_error(twice).find("node 'pad' (Pad): axis 1 is given twice"), std::string::npos)
        << import_error(twice);
}

// MegEngine's Padding fills with T(padding_val), a Float32 param: an integer
// fill must be exact in a Float32 and inside the input's type.
TEST(OnnxShape, IntegerPadFillsWithAValueAFloat32HoldsOrIsRefused) {
    auto model = [](int32_t fill) {
        OnnxModel m;
        m.input("x", {2}, OnnxType::INT32).output("y", OnnxType::INT32);
        m.initializer_i64("pads", {2}, {1, 1});
        m.initializer_bytes("v", {}, OnnxType::INT32, &fill, sizeof fill);
        m.node("Pad", {"x", "pads", "v"}, {"y"}, "pad");
        return m;
    };
    // 2^24 + 8 is a Float32; np.pad([5, 6], 1, constant_values=...) gives it at both ends.
    EXPECT_EQ(evaluate_values(model((1 << 24) + 8).import(), {{"x", {5, 6}}}),
              (std::vector<double>{(1 << 24) + 8, 5, 6, (1 << 24) + 8}));
    // 2^24 + 1 is not (it was filled as 2^24); INT32's maximum rounds to 2^31.
    for (int32_t fill : {(1 << 24) + 1, std::numeric_limits<int32_t>::max()}) {
        const std::string error = import_error(model(fill));
        EXPECT_NE(error.find(fmt::format("node 'pad' (Pad): the constant value {} cannot fill an input of type INT32", fill)),
                  std::string::npos)
            << error;
    }
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
