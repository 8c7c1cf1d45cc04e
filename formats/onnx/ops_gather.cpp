// Element-wise gathers and scatters as MegEngine's vector indexing:
// IndexingMultiAxisVec indexes several axes with index tensors that broadcast
// together (numpy's advanced indexing; MegDNN wraps a negative index once, as
// ONNX allows), and IndexingSetMultiAxisVec / IndexingIncrMultiAxisVec write
// through the same indexing.
//   GatherElements(data, idx, axis): every axis indexed, `axis` by idx, each
//     other axis d by 0..n_d-1 laid along d: out[i] = data[.., idx[i], ..].
//   GatherND(data, idx, batch_dims b): the batch axes by 0..n-1, then axis b + j
//     by idx[..., j].
//   ScatterND(data, idx, updates, reduction none / add): the GatherND indexing
//     written: Set, or Incr (which accumulates duplicates, as ONNX's add does).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include <cstring>

#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

ir::VarId int32_tensor(Importer& c, const std::vector<int64_t>& values, const Shape& shape) {
    std::vector<std::byte> bytes(values.size() * 4);
    for (size_t k = 0; k < values.size(); ++k) {
        const auto v = static_cast<int32_t>(values[k]);
        std::memcpy(bytes.data() + 4 * k, &v, 4);
    }
    return c.const_var(ir::DTypeEnum::Int32, shape.empty() ? Shape{1} : shape, std::move(bytes));
}

// 0..n-1 laid along axis `axis` of a rank-`rank` tensor (1 elsewhere).
ir::VarId arange_along(Importer& c, int64_t n, size_t axis, size_t rank) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) v[k] = k;
    Shape s(rank, 1);
    s[axis] = n;
    return int32_tensor(c, v, s);
}

ir::IndexDescMaskItem index_item(size_t axis) { return {static_cast<int8_t>(axis), false, false, false, true}; }

void check_int_indices(Importer& c, size_t i) {
    const int32_t t = c.input(i).elem_type;
    if (t != onnx::TensorProto::INT64 && t != onnx::TensorProto::INT32)
        c.fail(fmt::format("indices (input #{}) are {}, expected INT32 or INT64", i, onnx_elem_name(t)));
}

void gather_elements(Importer& c) {
    c.check_attrs({"axis"});
    const Value &x = c.input(0), &ind = c.input(1);
    check_int_indices(c, 1);
    const size_t r = x.shape.size();
    if (ind.shape.size() != r)
        c.fail(fmt::format("indices [{}] must have the data's rank {}", fmt::join(ind.shape, ","), r));
    const auto axis = static_cast<size_t>(normalize_axis(c.attr_int("axis", 0), static_cast<int64_t>(r), c, "axis"));
    for (size_t d = 0; d < r; ++d)
        if (d != axis && ind.shape[d] > x.shape[d])
            c.fail(fmt::format("indices [{}] are larger than the data [{}] at axis {}", fmt::join(ind.shape, ","),
                               fmt::join(x.shape, ","), d));
    std::vector<ir::VarId> inputs{c.var(0)};
    std::vector<ir::IndexDescMaskItem> items;
    for (size_t d = 0; d < r; ++d) {
        inputs.push_back(d == axis ? c.var(1) : arange_along(c, ind.shape[d], d, r));
        items.push_back(index_item(d));
    }
    c.set_output_var(0, c.emit("IndexingMultiAxisVec", inputs, {{"items", items}}), x.elem_type, ind.shape);
}

// The index vars of GatherND / ScatterND's indexing (batch aranges, then one per
// index component) and the shape MegEngine's indexing gives.
struct NdIndexing {
    std::vector<ir::VarId> indices;
    std::vector<ir::IndexDescMaskItem> items;
    Shape onnx_shape, mge_shape;
};

NdIndexing nd_indexing(Importer& c, size_t idx_input, int64_t batch_dims) {
    const Value &x = c.input(0), &ind = c.input(idx_input);
    check_int_indices(c, idx_input);
    const size_t r = x.shape.size(), q = ind.shape.size();
    if (q < 1) c.fail("indices must have rank >= 1");
    const int64_t m = ind.shape.back();
    if (batch_dims < 0 || static_cast<size_t>(batch_dims) >= std::min(r, q))
        c.fail(fmt::format("batch_dims {} is out of range", batch_dims));
    const auto b = static_cast<size_t>(batch_dims);
    if (m < 1 || b + static_cast<size_t>(m) > r)
        c.fail(fmt::format("index tuples of length {} do not fit data of rank {} (batch_dims {})", m, r, b));
    for (size_t k = 0; k < b; ++k)
        if (ind.shape[k] != x.shape[k])
            c.fail(fmt::format("batch axis {} has {} in the indices and {} in the data", k, ind.shape[k], x.shape[k]));
    NdIndexing out;
    const Shape lead(ind.shape.begin(), ind.shape.end() - 1);  // indices.shape[:-1]
    for (size_t k = 0; k < b; ++k) {
        out.indices.push_back(arange_along(c, x.shape[k], k, lead.size()));
        out.items.push_back(index_item(k));
    }
    for (int64_t j = 0; j < m; ++j) {
        ir::VarId comp;
        if (ind.is_const) {
            const std::vector<int64_t> all = c.const_ints(idx_input, "indices");
            std::vector<int64_t> part;
            for (size_t e = static_cast<size_t>(j); e < all.size(); e += static_cast<size_t>(m)) part.push_back(all[e]);
            comp = int32_tensor(c, part, lead);
        } else {
            ir::IndexDescMaskItem pick{static_cast<int8_t>(q - 1), false, false, false, true};
            comp = c.emit("Subtensor", {c.var(idx_input), c.const_i32({j})}, {{"items", std::vector{pick}}});
        }
        out.indices.push_back(comp);
        out.items.push_back(index_item(b + static_cast<size_t>(j)));
    }
    out.onnx_shape = lead;
    out.onnx_shape.insert(out.onnx_shape.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(b) + m, x.shape.end());
    // MegEngine: the broadcast index shape (at least one axis), then the rest.
    out.mge_shape = lead.empty() ? Shape{1} : lead;
    out.mge_shape.insert(out.mge_shape.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(b) + m, x.shape.end());
    return out;
}

void gather_nd(Importer& c) {
    c.check_attrs({"batch_dims"});
    const Value& x = c.input(0);
    NdIndexing nd = nd_indexing(c, 1, c.attr_int("batch_dims", 0));
    std::vector<ir::VarId> inputs{c.var(0)};
    inputs.insert(inputs.end(), nd.indices.begin(), nd.indices.end());
    ir::VarId y = c.emit("IndexingMultiAxisVec", inputs, {{"items", nd.items}});
    if (nd.mge_shape != nd.onnx_shape) y = c.reshape(y, nd.onnx_shape.empty() ? Shape{1} : nd.onnx_shape);
    c.set_output_var(0, y, x.elem_type, nd.onnx_shape);
}

void scatter_nd(Importer& c) {
    c.check_attrs({"reduction"});
    const Value &x = c.input(0), &upd = c.input(2);
    const std::string reduction = c.attr_string("reduction", "none");
    if (reduction != "none" && reduction != "add")
        c.fail(fmt::format("reduction '{}' is not supported (MegEngine writes through indexing by setting or "
                           "adding only)",
                           reduction));
    if (upd.elem_type != x.elem_type) c.fail("updates must have the data's element type");
    NdIndexing nd = nd_indexing(c, 1, 0);
    if (upd.shape != nd.onnx_shape)
        c.fail(fmt::format("updates have shape [{}], the indexing gives [{}]", fmt::join(upd.shape, ","),
                           fmt::join(nd.onnx_shape, ",")));
    ir::VarId value = c.var(2);
    if (nd.mge_shape != nd.onnx_shape) value = c.reshape(value, nd.mge_shape);
    std::vector<ir::VarId> inputs{c.var(0), value};
    inputs.insert(inputs.end(), nd.indices.begin(), nd.indices.end());
    const char* op = reduction == "add" ? "IndexingIncrMultiAxisVec" : "IndexingSetMultiAxisVec";
    c.set_output_var(0, c.emit(op, inputs, {{"items", nd.items}}), x.elem_type, x.shape);
}

constexpr OpHandler kHandlers[] = {
    {"GatherElements", gather_elements},
    {"GatherND", gather_nd},
    {"ScatterND", scatter_nd},
};

}  // namespace

std::span<const OpHandler> gather_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
