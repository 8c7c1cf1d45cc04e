#include "formats/onnx/runtime_values.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {

using P = onnx::TensorProto;

bool is_runtime_value(const Importer& c, size_t i) { return c.has_input(i) && !c.is_const(i); }

ir::VarId int32_var(Importer& c, size_t i, std::string_view what) {
    const Value& v = c.input(i);
    if (v.elem_type == onnx::TensorProto::BOOL)
        c.fail(fmt::format("{} (input #{}) is BOOL, expected a number type", what, i));
    ir::VarId x = c.var(i);
    if (onnx_var_dtype(v.elem_type, c) == ir::DTypeEnum::Int32) return x;
    return type_cvt(c, x, ir::DTypeEnum::Int32);
}

int64_t operand_length(const Importer& c, size_t i, std::string_view what, int64_t expected) {
    const Shape& s = c.input(i).shape;
    if (s.size() > 1)
        c.fail(fmt::format("{} (input #{}) must be a scalar or a 1-D tensor, has rank {}", what, i, s.size()));
    const int64_t n = s.empty() ? 1 : s[0];
    if (expected >= 0 && n != expected)
        c.fail(fmt::format("{} (input #{}) holds {} values, expected {}", what, i, n, expected));
    return n;
}

ir::VarId int_op(Importer& c, std::string_view mode, std::vector<ir::VarId> inputs) {
    return c.emit("Elemwise", std::move(inputs), {{"mode", std::string(mode)}});
}

ir::VarId element(Importer& c, ir::VarId v, int64_t k) {
    const std::vector<ir::IndexDescMaskItem> index{ir::IndexDescMaskItem{0, false, false, false, true}};
    return c.emit("Subtensor", {v, c.const_i32({k})}, {{"items", index}});
}

ir::VarId iota(Importer& c, ir::VarId n) {
    ir::VarId ones = c.emit("Broadcast", {c.const_i32({1}), n});
    return c.emit("Cumsum", {ones}, {int_param("axis", 0), {"exclusive", true}, {"reverse", false}});
}

void set_runtime_output(Importer& c, size_t i, ir::VarId var, int32_t elem_type, size_t rank) {
    set_runtime_output(c, i, var, elem_type, Shape(rank, -1));
}

void set_runtime_output(Importer& c, size_t i, ir::VarId var, int32_t elem_type, Shape dims) {
    const size_t rank = dims.size();
    auto inferred = c.graph().var_shape(var);
    if (!inferred.empty()) {
        // Static inference found the dims after all: they are the output's.
        Shape s(inferred.begin(), inferred.end());
        if (rank == 0 && s == Shape{1}) s.clear();
        if (s.size() != rank)
            c.fail(fmt::format("output {} has rank {} in ONNX terms but {} by MegEngine's inference (an mgedump "
                               "mapping bug)",
                               i, rank, s.size()));
        for (size_t k = 0; k < rank; ++k)
            if (dims[k] >= 0 && dims[k] != s[k])
                c.fail(fmt::format("output {} has dim {} = {} in ONNX terms but {} by MegEngine's inference (an "
                                   "mgedump mapping bug)",
                                   i, k, dims[k], s[k]));
        return c.set_output_var(i, var, elem_type, std::move(s));
    }
    const ir::DType& dtype = c.graph().vars.dtype[var.value];
    if (dtype.valid && dtype.type != onnx_var_dtype(elem_type, c))
        c.fail(fmt::format("output {} is {} in ONNX terms but {} by MegEngine's inference (an mgedump mapping bug)",
                           i, onnx_elem_name(elem_type), ir::dtype_name(dtype.type)));
    Value v;
    v.var = var;
    v.elem_type = elem_type;
    v.shape = std::move(dims);
    v.runtime_shape = true;
    c.set_output(i, std::move(v));
}

std::vector<int64_t> known_elements_of(const Importer& c, size_t i) {
    const Value& v = c.runtime_input(i);
    if (v.shape.size() != 1 || v.shape[0] < 0) return {};
    if (v.is_const)
        if (auto ints = decode_ints(v)) return *ints;
    if (!v.known_elements.empty()) return v.known_elements;
    return std::vector<int64_t>(static_cast<size_t>(v.shape[0]), -1);
}

bool any_runtime_shape(const Importer& c, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (c.has_input(i) && c.runtime_input(i).runtime_shape) return true;
    return false;
}

Shape broadcast_runtime_dims(const Importer& c, size_t count) {
    size_t rank = 0;
    for (size_t i = 0; i < count; ++i) rank = std::max(rank, c.runtime_input(i).shape.size());
    Shape out(rank, 1);
    for (size_t d = 0; d < rank; ++d) {
        bool unknown = false;
        for (size_t i = 0; i < count; ++i) {
            const Shape& s = c.runtime_input(i).shape;
            if (d + s.size() < rank) continue;  // s has no axis here (right-aligned)
            const int64_t dim = s[d + s.size() - rank];
            if (dim < 0) {
                unknown = true;
            } else if (dim != 1) {
                if (out[d] != 1 && out[d] != dim)
                    c.fail(fmt::format("input #{} has {} where another input has {}: they do not broadcast", i, dim,
                                       out[d]));
                out[d] = dim;
            }
        }
        if (unknown && out[d] == 1) out[d] = -1;
    }
    return out;
}

void elemwise_of_runtime_shapes(Importer& c, std::string_view mode, size_t count, bool float_only) {
    const int32_t elem = c.runtime_input(0).elem_type;
    if (float_only && elem != P::FLOAT && elem != P::FLOAT16 && elem != P::DOUBLE && elem != P::BFLOAT16)
        c.fail(fmt::format("input #0 is {}; this operator takes floats", onnx_elem_name(elem)));
    std::vector<ir::VarId> inputs;
    for (size_t i = 0; i < count; ++i) {
        const Value& v = c.runtime_input(i);
        if (v.elem_type != elem)
            c.fail(fmt::format("inputs #0 and #{} are {} and {}; the operator takes one type", i,
                               onnx_elem_name(elem), onnx_elem_name(v.elem_type)));
        inputs.push_back(c.var(i));
    }
    ir::VarId y = c.emit("Elemwise", std::move(inputs), {{"mode", std::string(mode)}});
    set_runtime_output(c, 0, y, elem, broadcast_runtime_dims(c, count));
}

}  // namespace mgedump::formats::onnx_import
