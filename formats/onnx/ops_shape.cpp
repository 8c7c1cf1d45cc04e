// Shape manipulation: Flatten/Reshape (Reshape with a constant target),
// Transpose (Dimshuffle), Squeeze/Unsqueeze (AxisAddRemove), Concat, Split, Pad
// (Padding), and the import-time ones: Shape and Constant. Shapes are
// static, so Shape is a constant and every target shape is known; on constants
// the reshaping operators only relabel the bytes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_axes.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// The input as `shape`: a constant is relabelled, a var reshaped.
void reshape_to(Importer& c, const Shape& shape) {
    const Value& x = c.input(0);
    if (element_count(shape) != element_count(x.shape))
        c.fail(fmt::format("cannot reshape [{}] to [{}]", fmt::join(x.shape, ","), fmt::join(shape, ",")));
    if (x.is_const) {
        Value v = x;
        v.shape = shape;
        v.var = {};
        return c.set_output(0, v);
    }
    c.set_output_var(0, c.reshape(c.var(0), shape.empty() ? Shape{1} : shape), x.elem_type, shape);
}

// Dims only the run time knows (what a mask selected) may all lie on one side of
// the axis: that side is Reshape's unspecified axis.
void flatten(Importer& c) {
    c.check_attrs({"axis"});
    const Value& x = c.runtime_input(0);
    const Shape& s = x.shape;
    const int64_t rank = static_cast<int64_t>(s.size());
    int64_t axis = c.attr_int("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) c.fail(fmt::format("axis {} is out of range for rank {}", axis, rank));
    Shape outer(s.begin(), s.begin() + axis), inner(s.begin() + axis, s.end());
    if (!x.runtime_shape) return reshape_to(c, {element_count(outer), element_count(inner)});
    auto unknown = [](const Shape& dims) {
        return std::find(dims.begin(), dims.end(), int64_t{-1}) != dims.end();
    };
    const Shape target{unknown(outer) ? -1 : element_count(outer),
                       unknown(inner) ? -1 : element_count(inner)};
    if (!unknown(outer) || !unknown(inner))
        return set_runtime_output(c, 0, reshaped(c, c.var(0), target), x.elem_type, target);
    // Unknown dims on both sides (torchvision's decoded boxes, (count, classes,
    // 4), flattened at axis 1): the products of each side's dims, read from
    // GetVarShape when the graph runs.
    const ir::VarId dims = c.emit("GetVarShape", {c.var(0)});
    auto product = [&](int64_t begin, int64_t end) {
        const ir::VarId part = slice_1d(c, dims, begin, end);
        return end - begin == 1 ? part
                                : c.emit("Reduce", {part}, {{"mode", "PRODUCT"}, int_param("axis", 0)});
    };
    const ir::VarId to = c.emit("Concat", {product(0, axis), product(axis, rank)}, {int_param("axis", 0)});
    set_runtime_output(c, 0, c.emit("Reshape", {c.var(0), to}), x.elem_type, target);
}

// Reshape of a value whose dims only the run time knows to a constant target
// (x[mask].view(-1, 4)): a 0 copies a dim known at import time; a −1 is
// Reshape's unspecified axis, which MegEngine computes when it runs, as it checks
// the element count then.
void reshape_of_runtime_dims(Importer& c) {
    const Value& x = c.runtime_input(0);
    std::vector<int64_t> target = c.const_ints(1, "shape");
    if (target.empty()) c.fail("shape is empty (a scalar); the input's dims are known only at run time");
    const bool allow_zero = c.attr_int("allowzero", 0) != 0;
    int64_t unspecified = -1;
    for (size_t k = 0; k < target.size(); ++k) {
        if (target[k] == 0 && !allow_zero) {
            if (k >= x.shape.size() || x.shape[k] < 0)
                c.fail(fmt::format("shape[{}] = 0 copies an axis whose dim is not known at import time", k));
            target[k] = x.shape[k];
        }
        if (target[k] == -1) {
            if (unspecified >= 0) c.fail("shape has more than one -1");
            unspecified = static_cast<int64_t>(k);
        } else if (target[k] <= 0) {
            c.fail(fmt::format("shape[{}] = {} is invalid here (MegEngine holds no empty tensor)", k, target[k]));
        }
    }
    if (unspecified < 0) return c.set_output_var(0, c.reshape(c.var(0), target), x.elem_type, target);
    set_runtime_output(c, 0, reshaped(c, c.var(0), target), x.elem_type, target);
}

void reshape(Importer& c) {
    c.check_attrs({"allowzero"});
    if (is_runtime_value(c, 1)) return reshape_to_runtime_shape(c);
    if (c.runtime_input(0).runtime_shape) return reshape_of_runtime_dims(c);
    const Shape& in = c.input(0).shape;
    std::vector<int64_t> target = c.const_ints(1, "shape");
    const bool allow_zero = c.attr_int("allowzero", 0) != 0;
    int64_t known = 1, infer = -1;
    for (size_t k = 0; k < target.size(); ++k) {
        if (target[k] == 0 && !allow_zero) {
            if (k >= in.size())
                c.fail(fmt::format("shape[{}] = 0 copies an axis the input does not have", k));
            target[k] = in[k];
        }
        if (target[k] == -1) {
            if (infer >= 0) c.fail("shape has more than one -1");
            infer = static_cast<int64_t>(k);
        } else if (target[k] < 0) {
            c.fail(fmt::format("shape[{}] = {} is invalid", k, target[k]));
        } else {
            known *= target[k];
        }
    }
    if (infer >= 0) {
        if (known == 0 || element_count(in) % known != 0)
            c.fail(fmt::format("cannot infer the -1 in [{}] from input [{}]", fmt::join(target, ","),
                               fmt::join(in, ",")));
        target[infer] = element_count(in) / known;
    }
    reshape_to(c, target);
}

void transpose(Importer& c) {
    c.check_attrs({"perm"});
    // Dimshuffle takes any dims, so a value whose dims only the run time knows
    // (NonZero's coordinates, as torch exports x[mask]) is transposed too.
    const Value& x = c.runtime_input(0);
    std::vector<int64_t> perm = c.attr_ints("perm");
    if (perm.empty())
        for (int64_t k = static_cast<int64_t>(x.shape.size()) - 1; k >= 0; --k) perm.push_back(k);
    if (perm.size() != x.shape.size()) c.fail("perm does not list every axis");
    Shape out;
    std::vector<int32_t> pattern;
    for (int64_t p : perm) {
        p = normalize_axis(p, static_cast<int64_t>(x.shape.size()), c, "perm entry");
        out.push_back(x.shape[p]);
        pattern.push_back(static_cast<int32_t>(p));
    }
    if (x.runtime_shape)
        return set_runtime_output(c, 0, c.emit("Dimshuffle", {c.var(0)}, {{"pattern", pattern}}), x.elem_type, out);
    if (is_foldable_shape_const(x)) {  // shape arithmetic (swin_t's pads): the value, now
        std::vector<std::vector<int64_t>> every(out.size());
        std::vector<int64_t> from(pattern.begin(), pattern.end());
        for (size_t k = 0; k < out.size(); ++k)
            for (int64_t i = 0; i < out[k]; ++i) every[k].push_back(i);
        return c.set_output(0, gather_const(x, every, from));
    }
    c.set_output_var(0, c.emit("Dimshuffle", {c.var(0)}, {{"pattern", pattern}}), x.elem_type, out);
}

// Constants of one element type concatenate at import time (shape vectors).
bool fold_concat(Importer& c, int64_t axis, const Shape& out) {
    for (size_t k = 0; k < c.input_count(); ++k)
        if (!c.is_const(k) || c.input(k).elem_type != c.input(0).elem_type) return false;
    const size_t elem = onnx_elem_size(c.input(0).elem_type);
    const int64_t outer = element_count(Shape(out.begin(), out.begin() + axis));
    auto bytes = std::make_shared<std::vector<std::byte>>();
    for (int64_t o = 0; o < outer; ++o)
        for (size_t k = 0; k < c.input_count(); ++k) {
            const Value& v = c.input(k);
            size_t chunk =
                static_cast<size_t>(element_count(Shape(v.shape.begin() + axis, v.shape.end()))) * elem;
            bytes->insert(bytes->end(), v.bytes.begin() + o * chunk, v.bytes.begin() + (o + 1) * chunk);
        }
    c.set_output(0, bytes_const(c.input(0).elem_type, out, bytes));
    return true;
}

// Concat of parts some of whose dims only the run time knows (each class's
// selected boxes, as detection post-processing gathers them): MegEngine's Concat
// checks the other axes agree when it runs. The output's dims are those known:
// the axis's when every part's is, another axis's when some part's is.
void concat_of_runtime_dims(Importer& c, int64_t axis_attr) {
    const size_t rank = c.runtime_input(0).shape.size();
    const auto axis = static_cast<size_t>(normalize_axis(axis_attr, static_cast<int64_t>(rank), c, "axis"));
    Shape out(rank, -1);
    int64_t along = 0;
    std::vector<ir::VarId> parts;
    for (size_t k = 0; k < c.input_count(); ++k) {
        const Value& v = c.runtime_input(k);
        if (v.shape.size() != rank) c.fail(fmt::format("input #{} has a different rank", k));
        if (v.elem_type != c.runtime_input(0).elem_type) c.fail(fmt::format("input #{} has a different type", k));
        for (size_t a = 0; a < rank; ++a)
            if (a != axis && v.shape[a] >= 0) {
                if (out[a] >= 0 && out[a] != v.shape[a])
                    c.fail(fmt::format("input #{} has {} on axis {}, an earlier input {}", k, v.shape[a], a, out[a]));
                out[a] = v.shape[a];
            }
        along = along < 0 || v.shape[axis] < 0 ? -1 : along + v.shape[axis];
        parts.push_back(c.var(k));
    }
    out[axis] = along;
    set_runtime_output(c, 0, concat(c, parts, static_cast<int64_t>(axis)), c.runtime_input(0).elem_type, out);
}

void concat(Importer& c) {
    c.check_attrs({"axis"});
    if (any_runtime_shape(c, c.input_count()))
        return concat_of_runtime_dims(c, c.attr_int("axis", c.opset() < 4 ? 1 : 0));
    const Value& first = c.input(0);
    const int64_t rank = static_cast<int64_t>(first.shape.size());
    // Concat-1 (opset < 4) concatenates along axis 1 when none is given.
    const int64_t axis = normalize_axis(c.attr_int("axis", c.opset() < 4 ? 1 : 0), rank, c, "axis");
    Shape out = first.shape;
    out[axis] = 0;
    for (size_t k = 0; k < c.input_count(); ++k) {
        const Shape& s = c.input(k).shape;
        if (static_cast<int64_t>(s.size()) != rank) c.fail(fmt::format("input #{} has a different rank", k));
        out[axis] += s[axis];
    }
    if (fold_concat(c, axis, out)) return;
    // Parts with no elements add nothing, and MegEngine holds no empty tensor
    // (torchvision's transform concatenates an empty padding list): left out,
    // and a lone part left is the output itself (Concat::make's fold).
    std::vector<ir::VarId> inputs;
    for (size_t k = 0; k < c.input_count(); ++k)
        if (element_count(c.input(k).shape) > 0 || element_count(out) == 0) inputs.push_back(c.var(k));
    // A shape put together from dims some of which the import knows
    // (torchvision's zeros of (count, C, 7, 7)): the known ones, for what reads it.
    std::vector<int64_t> known;
    if (rank == 1 && is_integer_type(first.elem_type)) {
        for (size_t k = 0; k < c.input_count(); ++k) {
            const std::vector<int64_t> part = known_elements_of(c, k);
            known.insert(known.end(), part.begin(), part.end());
        }
        if (static_cast<int64_t>(known.size()) != out[0]) known.clear();
    }
    c.set_output_var(0, concat(c, inputs, axis), first.elem_type, out, std::move(known));
}

// MegEngine's Split takes the part sizes as scalar inputs ("SPECIFY" mode).
void split(Importer& c) {
    c.check_attrs({"axis", "split", "num_outputs"});
    // Split takes dims only the run time knows on the other axes (a selection's
    // boxes split into coordinates); the split axis's dim must be known.
    const Value& x = c.runtime_input(0);
    const int64_t axis =
        normalize_axis(c.attr_int("axis", 0), static_cast<int64_t>(x.shape.size()), c, "axis");
    std::vector<int64_t> sizes = c.attr_ints("split");
    if (is_runtime_value(c, 1)) return split_to_runtime_sizes(c, axis);
    if (c.has_input(1)) sizes = c.const_ints(1, "split");
    const int64_t n = static_cast<int64_t>(c.output_count());
    // A split axis whose dim only the run time knows, with the sizes given
    // (retinanet's boxes reshaped to a computed shape, split into coordinates):
    // MegEngine's Split checks, when it runs, that they add up to it.
    if (x.shape[axis] < 0 && !sizes.empty()) {
        if (static_cast<int64_t>(sizes.size()) != n)
            c.fail(fmt::format("{} split sizes for {} outputs", sizes.size(), n));
        std::vector<ir::VarId> inputs{c.var(0)};
        for (int64_t s : sizes) {
            if (s <= 0 || s > INT32_MAX) c.fail(fmt::format("split size {} is out of range", s));
            inputs.push_back(c.const_i32({s}));
        }
        const ir::OprId o = c.emit_opr("Split", inputs, {int_param("axis", axis)}, static_cast<uint32_t>(n));
        for (int64_t k = 0; k < n; ++k) {
            Shape part = x.shape;
            part[axis] = sizes[k];
            set_runtime_output(c, static_cast<size_t>(k), c.graph().output_var(o, static_cast<uint32_t>(k)),
                               x.elem_type, part);
        }
        return;
    }
    if (x.shape[axis] < 0)
        c.fail(fmt::format(
            "axis {} (the split axis) has a dim known only at run time, and no split sizes are given", axis));
    if (sizes.empty()) {
        const int64_t part = (x.shape[axis] + n - 1) / n;
        for (int64_t k = 0, left = x.shape[axis]; k < n; ++k, left -= part)
            sizes.push_back(std::min(part, left));
    }
    if (static_cast<int64_t>(sizes.size()) != n)
        c.fail(fmt::format("{} split sizes for {} outputs", sizes.size(), n));
    // Each part checked before it is added: sizes past the axis summed past int64
    // (fuzz_onnx found the overflow; kept as tests/fuzz/regressions/fuzz_onnx/
    // split-sizes-past-int64).
    int64_t total = 0;
    for (int64_t s : sizes) {
        if (s < 0 || s > x.shape[axis])
            c.fail(fmt::format("split size {} is out of range for axis {} of {}", s, axis, x.shape[axis]));
        total += s;
    }
    if (total != x.shape[axis])
        c.fail(fmt::format("split sizes add up to {}, axis {} has {}", total, axis, x.shape[axis]));
    std::vector<ir::VarId> inputs{c.var(0)};
    for (int64_t s : sizes) inputs.push_back(c.const_i32({s}));
    ir::OprId o = c.emit_opr("Split", inputs, {int_param("axis", axis)}, static_cast<uint32_t>(n));
    for (int64_t k = 0; k < n; ++k) {
        Shape s = x.shape;
        s[axis] = sizes[k];
        const ir::VarId part = c.graph().output_var(o, static_cast<uint32_t>(k));
        if (x.runtime_shape) set_runtime_output(c, static_cast<size_t>(k), part, x.elem_type, s);
        else c.set_output_var(static_cast<size_t>(k), part, x.elem_type, s);
    }
}

std::vector<int64_t> axes_of(Importer& c) {
    std::vector<int64_t> axes = c.attr_ints("axes");
    // The axes decide which axes the output has; AxisAddRemove names them in its param
    // (known only at run time: a Reshape, formats/onnx/runtime_axes.cpp).
    if (c.has_input(1)) axes = c.const_ints(1, "axes");
    return axes;
}

void squeeze(Importer& c) {
    c.check_attrs({"axes"});
    if (is_runtime_value(c, 1)) return squeeze_runtime_axes(c);
    // An input whose dims only the run time knows: the axes must be given, and
    // AxisAddRemove checks, when it runs, that each unknown one is 1.
    const Value& x = c.runtime_input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> axes = axes_of(c);
    if (axes.empty() && x.runtime_shape)
        c.fail("no axes, and the input's dims are known only at run time: which are 1 is not known");
    if (axes.empty())
        for (int64_t k = 0; k < rank; ++k)
            if (x.shape[k] == 1) axes.push_back(k);
    for (int64_t& a : axes) {
        a = normalize_axis(a, rank, c, "axis");
        if (x.shape[a] != 1 && x.shape[a] >= 0) c.fail(fmt::format("axis {} has size {}, not 1", a, x.shape[a]));
    }
    std::sort(axes.begin(), axes.end());
    if (auto twice = std::adjacent_find(axes.begin(), axes.end()); twice != axes.end())
        c.fail(fmt::format("axis {} is given twice", *twice));
    // No axis of size 1 and none given: the input itself (an AxisAddRemove
    // without descs, which MegEngine refuses, was written before).
    if (axes.empty()) return c.set_output(0, x);
    Shape out = x.shape;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) out.erase(out.begin() + *it);
    if (x.runtime_shape && out.empty())  // every axis 1 when it runs: a Reshape to [1] checks that
        return set_runtime_output(c, 0, c.reshape(c.var(0), {1}), x.elem_type, out);
    if (x.is_const || out.empty()) return reshape_to(c, out);
    std::vector<ir::AxisDesc> desc;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it)
        desc.push_back({ir::AxisDescMethod::REMOVE, static_cast<int32_t>(*it)});
    const ir::VarId y = c.emit("AxisAddRemove", {c.var(0)}, {{"desc", desc}});
    if (x.runtime_shape) return set_runtime_output(c, 0, y, x.elem_type, out);
    c.set_output_var(0, y, x.elem_type, out);
}

void unsqueeze(Importer& c) {
    c.check_attrs({"axes"});
    if (is_runtime_value(c, 1)) return unsqueeze_runtime_axes(c);
    const Value& x = c.runtime_input(0);  // AxisAddRemove takes dims only the run time knows too
    std::vector<int64_t> axes = axes_of(c);
    const int64_t rank = static_cast<int64_t>(x.shape.size() + axes.size());
    for (int64_t& a : axes) a = normalize_axis(a, rank, c, "axis");
    std::sort(axes.begin(), axes.end());
    if (auto twice = std::adjacent_find(axes.begin(), axes.end()); twice != axes.end())
        c.fail(fmt::format("axis {} is given twice", *twice));
    if (axes.empty()) return c.set_output(0, x);  // as Squeeze: no AxisAddRemove without descs
    Shape out = x.shape;
    for (int64_t a : axes) out.insert(out.begin() + a, 1);
    if (x.is_const || x.shape.empty()) return reshape_to(c, out);
    std::vector<ir::AxisDesc> desc;
    for (int64_t a : axes) desc.push_back({ir::AxisDescMethod::ADD_1, static_cast<int32_t>(a)});
    const ir::VarId y = c.emit("AxisAddRemove", {c.var(0)}, {{"desc", desc}});
    if (x.runtime_shape) return set_runtime_output(c, 0, y, x.elem_type, out);
    c.set_output_var(0, y, x.elem_type, out);
}

// The shape of a value whose dims only the run time knows: GetVarShape, sliced
// to [start, end) (an Int32 var; INT64 is held as Int32).
void runtime_shape_of(Importer& c, int64_t start, int64_t end) {
    ir::VarId dims = c.emit("GetVarShape", {c.var(0)});
    const auto rank = static_cast<int64_t>(c.runtime_input(0).shape.size());
    if (start != 0 || end != rank) dims = slice_1d(c, dims, start, end);
    // With the dims the import knows, for a Gather that picks only those.
    const Shape& s = c.runtime_input(0).shape;
    c.set_output_var(0, dims, P::INT64, {end - start},
                     std::vector<int64_t>(s.begin() + start, s.begin() + end));
}

void shape(Importer& c) {
    c.check_attrs({"start", "end"});
    const Shape& s = c.runtime_input(0).shape;
    const int64_t rank = static_cast<int64_t>(s.size());
    int64_t start = c.attr_int("start", 0), end = c.attr_int("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    std::vector<int64_t> dims(s.begin() + start, s.begin() + end);
    // A runtime shape's dims known at import time (NonZero's rank) are a constant
    // as any static shape's; the others are read when the graph runs.
    if (std::ranges::any_of(dims, [](int64_t d) { return d < 0; })) return runtime_shape_of(c, start, end);
    c.set_output(0, int64_const(dims, {static_cast<int64_t>(dims.size())}));
}

void constant(Importer& c) {
    c.check_attrs({"value", "value_float", "value_floats", "value_int", "value_ints"});
    if (const auto* a = c.attr("value")) {
        return c.set_output(0, tensor_const(c.tensors().read(a->t())));
    }
    if (c.has_attr("value_int")) return c.set_output(0, int64_const({c.attr_int("value_int", 0)}, {}));
    if (c.has_attr("value_ints")) {
        auto v = c.attr_ints("value_ints");
        return c.set_output(0, int64_const(v, {static_cast<int64_t>(v.size())}));
    }
    if (c.has_attr("value_float"))
        return c.set_output(0, float_const({static_cast<float>(c.attr_float("value_float", 0))}, {}));
    if (const auto* a = c.attr("value_floats"))
        return c.set_output(0, float_const({a->floats().begin(), a->floats().end()}, {a->floats_size()}));
    c.fail("has no value attribute (value, value_float(s), value_int(s))");
}

// Pad-18's `axes` (input #3): `pads` holds the begins then the ends of those
// axes only; the others are not padded.
std::vector<int64_t> pads_of_every_axis(Importer& c, const std::vector<int64_t>& pads, size_t rank) {
    std::vector<int64_t> axes = c.const_ints(3, "axes");
    if (pads.size() != 2 * axes.size())
        c.fail(fmt::format("pads has {} entries for {} axes, expected {}", pads.size(), axes.size(), 2 * axes.size()));
    std::vector<int64_t> every(2 * rank, 0);
    std::vector<bool> seen(rank, false);
    for (size_t k = 0; k < axes.size(); ++k) {
        const auto a = static_cast<size_t>(normalize_axis(axes[k], static_cast<int64_t>(rank), c, "axis"));
        if (seen[a]) c.fail(fmt::format("axis {} is given twice", a));
        seen[a] = true;
        every[a] = pads[k];
        every[a + rank] = pads[k + axes.size()];
    }
    return every;
}

void pad(Importer& c) {
    c.check_attrs({"mode", "pads", "value"});
    const Value& x = c.input(0);
    const size_t rank = x.shape.size();
    if (rank > 7) c.fail("MegEngine's Padding handles at most 7 axes");
    std::vector<int64_t> pads = c.attr_ints("pads");
    if (c.has_input(3) && is_runtime_value(c, 1)) c.fail("the axes input with pads known only at run time is not supported");
    if (is_runtime_value(c, 1)) {
        // MegEngine's Padding takes its offsets as a param: formats/onnx/runtime_axes.cpp gathers instead.
        const std::string mode = c.attr_string("mode", "constant");
        if (mode != "constant" && mode != "reflect" && mode != "edge")
            c.fail(fmt::format("mode '{}' is not supported", mode));
        return pad_by_runtime_pads(c, mode);
    }
    if (c.has_input(1)) pads = c.const_ints(1, "pads");
    if (c.has_input(3)) pads = pads_of_every_axis(c, pads, rank);
    if (pads.size() != 2 * rank)
        c.fail(fmt::format("pads has {} entries, expected {}", pads.size(), 2 * rank));
    double value = c.attr_float("value", 0.0);
    if (c.has_input(2)) {
        auto v = c.const_floats(2, "constant_value");
        if (v.size() != 1) c.fail("constant_value must be a scalar");
        value = v[0];
    }
    const std::string mode = c.attr_string("mode", "constant");
    // MegEngine's Padding takes the fill as a Float32 param and writes T(fill)
    // (dnn/src/naive/padding): an integer input's fill must be a Float32 exactly
    // and, truncated as that conversion does, a value of the input's dtype
    // (INT32 16777217 was filled as 16777216, INT32's maximum as 2^31, past the type).
    if (mode == "constant" && is_integer_type(x.elem_type)) {
        const auto [lowest, highest] = integer_range(onnx_var_dtype(x.elem_type, c));
        const double whole = std::trunc(value);
        if (static_cast<double>(static_cast<float>(value)) != value || !(whole >= lowest && whole <= highest))
            c.fail(fmt::format("the constant value {} cannot fill an input of type {}: MegEngine's Padding takes its fill "
                               "as a Float32 (exact to 2^24) and writes it as a value of {} to {}",
                               value, onnx_elem_name(x.elem_type), lowest, highest));
    }
    const char* mge_mode = mode == "constant"  ? "CONSTANT"
                           : mode == "reflect" ? "REFLECT"
                           : mode == "edge"    ? "REPLICATE"
                                               : nullptr;
    if (!mge_mode) c.fail(fmt::format("mode '{}' is not supported", mode));
    ir::ParamArgs params{{"padding_mode", mge_mode}, float_param("padding_val", value)};
    Shape out = x.shape;
    for (size_t k = 0; k < rank; ++k) {
        if (pads[k] < 0 || pads[k + rank] < 0) c.fail("negative pads (cropping) are not supported");
        params.push_back(int_param(fmt::format("front_offset_dim{}", k), pads[k]));
        params.push_back(int_param(fmt::format("back_offset_dim{}", k), pads[k + rank]));
        out[k] += pads[k] + pads[k + rank];
    }
    c.set_output_var(0, c.emit("Padding", {c.var(0)}, params), x.elem_type, out);
}

constexpr OpHandler kHandlers[] = {
    {"Flatten", flatten},   {"Reshape", reshape}, {"Transpose", transpose}, {"Concat", concat},
    {"Split", split},       {"Squeeze", squeeze}, {"Unsqueeze", unsqueeze}, {"Shape", shape},
    {"Constant", constant}, {"Pad", pad},
};

}  // namespace

std::span<const OpHandler> shape_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
