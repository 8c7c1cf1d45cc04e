// Kernels of the reducing and ordering operators: Reduce (MegEngine's
// src/opr/impl/basic_arith.cpp Reduce and its KernScheduler over MegDNN's naive
// Reduce), Argmax/Argmin (dnn/src/naive/argmxx), Cumsum (naive/cumsum), Argsort
// (naive/argsort) and TopK (naive/topk, dnn/src/common/topk.cpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/kernels.h"
#include "engine/eval/reduce_naive.h"
#include "engine/eval/reduce_num.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;

// A, B, C of reduce::get_ABC: the dims before `axis`, at it, after it.
struct ABC {
    size_t a = 1, b = 1, c = 1;
};
ABC abc_of(const ir::Shape& s, uint32_t axis) {
    ABC r;
    for (uint32_t i = 0; i < s.ndim; ++i) (i < axis ? r.a : i == axis ? r.b : r.c) *= s[i];
    return r;
}

uint32_t normalized_axis(const KernelContext& ctx, const ir::Shape& s) {
    const int64_t axis = ctx.params().int_field("axis");
    auto a = ir::normalize_axis(axis, s.ndim);
    if (!a) ctx.fail("axis {} is out of range for a {}-dim input", axis, s.ndim);
    return *a;
}

bool has_nan(const Tensor& t) {
    if (!is_float_dtype(t.dtype().type)) return false;
    for (float x : to_floats(t))
        if (std::isnan(x)) return true;
    return false;
}

// ---------------------------------------------------------------- Reduce

bool is_scalar(const ir::Shape& s) { return s.ndim == 1 && s[0] == 1; }

// The output dtype by data_type (Reduce::Reduce).
ir::DType reduce_out_dtype(const KernelContext& ctx, ReduceDataType dt, ir::DType in) {
    switch (dt) {
        case ReduceDataType::Default:
            return in;
        case ReduceDataType::FloatO32xC32:
            return ir::DType::of(E::Float32);
        case ReduceDataType::FloatO16xC32:
            return ir::DType::of(E::Float16);
        case ReduceDataType::QuintI8xO32:
        case ReduceDataType::QintI8xO32: {
            const E need = dt == ReduceDataType::QuintI8xO32 ? E::Quantized8Asymm : E::QuantizedS8;
            if (in.type != need)
                ctx.fail("data_type needs a {} input, not {}", ir::dtype_name(need), ir::dtype_string(in));
            return ir::DType::quantized(E::QuantizedS32, in.scale);
        }
    }
    return in;
}

// Reduce's output shape: the input's with `axis` set to 1, or the target shape
// input's value.
ir::Shape reduce_out_shape(const KernelContext& ctx, const ir::Shape& is) {
    if (ctx.nr_inputs() == 1) {
        ir::Shape os = is;
        os[normalized_axis(ctx, is)] = 1;
        return os;
    }
    const std::vector<double> t = to_doubles(ctx.in(1));
    if (t.empty() || t.size() > ir::kMaxNdim)
        ctx.fail("target shape {} is not a shape", describe_tensor(ctx.in(1)));
    ir::Shape os;
    for (double d : t) {
        if (d < 0) ctx.fail("target shape has a negative dim {}", d);
        os.dim[os.ndim++] = static_cast<uint32_t>(d);
    }
    return os;
}

// x·x elementwise in x's dtype, or through Float32 for a non-DEFAULT data_type:
// the Elemwise MUL (and TypeCvt) MegEngine's KernScheduler applies when no axis
// is actually reduced. A SUM_SQR over an axis of length 1 is exactly that product
// in each ctype's arithmetic, so it is computed as one.
Tensor square_elements(const KernelContext& ctx, const Tensor& x, bool through_f32, ir::DType out) {
    const Tensor w = through_f32 ? convert_dtype(x, ir::DType::of(E::Float32)) : x;
    const uint32_t n = static_cast<uint32_t>(w.elements());
    const Tensor col = Tensor::reshaped(w, ir::Shape::of({n, 1}));
    return convert_dtype(naive_reduce(ctx, col, 1, ReduceMode::SumSqr, ReduceDataType::Default, w.dtype()),
                         out);
}

void reduce(KernelContext& ctx) {
    const auto mode = reduce_mode_named(ctx.params().enum_field("mode"));
    if (!mode) ctx.fail("mode {} is not a Reduce mode", ctx.params().enum_field("mode"));
    const auto data_type = reduce_data_type_named(ctx.params().enum_field("data_type"));
    if (!data_type) ctx.fail("data_type {} is not implemented", ctx.params().enum_field("data_type"));
    const Tensor& in = ctx.in(0);
    const ir::DType out_dtype = reduce_out_dtype(ctx, *data_type, in.dtype());
    const ir::Shape out_shape = reduce_out_shape(ctx, in.shape());

    // OutTensorShapeExtender: a shorter target gains leading 1s; a scalar
    // target reduces everything, as one flat axis (KernScheduler::init_shapes).
    std::vector<uint32_t> ishp(in.shape().dims().begin(), in.shape().dims().end());
    std::vector<uint32_t> oshp(out_shape.dims().begin(), out_shape.dims().end());
    if (oshp.size() > ishp.size())
        ctx.fail("target shape {} has more dims than the input {}", ir::shape_string(out_shape),
                 ir::shape_string(in.shape()));
    if (is_scalar(out_shape)) {
        ishp = {static_cast<uint32_t>(in.elements())};
    } else {
        oshp.insert(oshp.begin(), ishp.size() - oshp.size(), 1u);
    }
    for (size_t i = 0; i < ishp.size(); ++i)
        if (ishp[i] != oshp[i] && oshp[i] != 1)
            ctx.fail("can not reduce {} to {}", ir::shape_string(in.shape()), ir::shape_string(out_shape));
    // Runs of reduced (1) dims merge into one axis.
    for (size_t i = 0; i < oshp.size(); ++i) {
        size_t end = i;
        while (end < oshp.size() && oshp[end] == 1) ++end;
        if (end > i + 1) {
            for (size_t j = i + 1; j < end; ++j) ishp[i] *= ishp[j];
            ishp.erase(ishp.begin() + static_cast<ptrdiff_t>(i) + 1,
                       ishp.begin() + static_cast<ptrdiff_t>(end));
            oshp.erase(oshp.begin() + static_cast<ptrdiff_t>(i) + 1,
                       oshp.begin() + static_cast<ptrdiff_t>(end));
        }
    }
    // One MegDNN reduction per reduced axis, longest first (a stable sort).
    std::vector<uint32_t> axes;
    for (uint32_t i = 0; i < ishp.size(); ++i)
        if (ishp[i] != oshp[i]) axes.push_back(i);
    std::stable_sort(axes.begin(), axes.end(), [&](uint32_t a, uint32_t b) { return ishp[a] > ishp[b]; });

    const bool convert = *data_type != ReduceDataType::Default;
    if (axes.empty()) {
        // Nothing to reduce: MegEngine forwards the input, squares it for
        // SUM_SQR and converts it for a non-DEFAULT data_type.
        Tensor r = in;
        if (*mode == ReduceMode::SumSqr)
            r = square_elements(ctx, in, convert, out_dtype);
        else if (convert)
            r = convert_dtype(in, out_dtype);
        ctx.out(0) = Tensor::reshaped(r, out_shape);
        return;
    }
    if (in.elements() == 0) {
        // KernScheduler::execute fills the output of an empty input, and returns
        // first when the output is empty too (MIN and MAX included: a [0, 91]
        // reduced along its 91 is a [0, 1], as a softmax of no rows computes).
        float fill = 0;
        if (*mode == ReduceMode::Product)
            fill = 1;
        else if (*mode == ReduceMode::Mean)
            fill = std::numeric_limits<float>::quiet_NaN();
        else if ((*mode == ReduceMode::Min || *mode == ReduceMode::Max) && out_shape.elements() > 0)
            ctx.fail("{} of an empty input ({}) is undefined", reduce_mode_name(*mode), describe_tensor(in));
        const std::vector<float> v(out_shape.elements(), fill);
        ctx.out(0) = from_floats(out_dtype, out_shape, v);
        return;
    }
    // QINT_I8xO32 / QUINT_I8xO32: MegEngine's KernScheduler asserts on them as
    // soon as anything is reduced (setup_kern_params_layout_and_mode takes only
    // DEFAULT and the FLOAT_ types), so there is no graph-level result to match.
    // One axis is computed as MegDNN's Reduce kernel defines it; a chain of
    // reductions would need DEFAULT sums of QuantizedS32, which MegDNN rejects.
    const bool quantized_out =
        *data_type == ReduceDataType::QintI8xO32 || *data_type == ReduceDataType::QuintI8xO32;
    if (quantized_out && axes.size() > 1)
        ctx.fail("data_type {} over {} separate axes is not executable (MegDNN reduces QuantizedS32 sums "
                 "no further)",
                 ctx.params().enum_field("data_type"), axes.size());

    // KernScheduler::setup_kern_params_layout_and_mode: FLOAT_O32xC32 converts
    // in the first reduction, FLOAT_O16xC32 keeps Float32 until the last; the
    // later reductions of SUM_SQR sum the squares.
    Tensor cur = Tensor::reshaped(in, ir::Shape::of(ishp));
    ir::DType prev = in.dtype();
    for (size_t k = 0; k < axes.size(); ++k) {
        const bool last = k + 1 == axes.size();
        ReduceDataType kdt = ReduceDataType::Default;
        ir::DType kout = prev;
        if (k == 0 && *data_type == ReduceDataType::FloatO32xC32) {
            kdt = ReduceDataType::FloatO32xC32;
            kout = ir::DType::of(E::Float32);
        } else if (*data_type == ReduceDataType::FloatO16xC32) {
            kdt = last ? ReduceDataType::FloatO16xC32 : ReduceDataType::FloatO32xC32;
            kout = ir::DType::of(last ? E::Float16 : E::Float32);
        } else if (quantized_out) {
            kdt = *data_type;
            kout = out_dtype;
        }
        const ReduceMode kmode = k > 0 && *mode == ReduceMode::SumSqr ? ReduceMode::Sum : *mode;
        cur = naive_reduce(ctx, cur, axes[k], kmode, kdt, kout);
        prev = kout;
    }
    ctx.out(0) = Tensor::reshaped(cur, out_shape);
}

// ---------------------------------------------------------------- Argmax / Argmin

// The naive kernel compares float(x): the first best wins, a NaN beats
// everything (so the last NaN wins).
template <bool IsMax>
void argmxx(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    const ir::Shape& s = in.shape();
    const int64_t axis = ctx.params().int_field("axis");
    if (axis < 0 || axis >= static_cast<int64_t>(s.ndim))
        ctx.fail("axis {} must be in [0, {}) for a {}-dim input", axis, s.ndim, s.ndim);
    if (!with_computing_num(in.dtype().type, [](auto) {}))
        ctx.fail("does not compute {} inputs (MegDNN's naive kernel takes float and integer dtypes)",
                 ir::dtype_string(in.dtype()));
    const std::vector<float> x = to_floats(in);
    const ABC d = abc_of(s, static_cast<uint32_t>(axis));
    ir::Shape os = s;
    os[static_cast<size_t>(axis)] = 1;
    Tensor out(ir::DType::of(E::Int32), os);
    auto idx = out.mutable_data<int32_t>();
    for_each_slice(d.a * d.c, d.b, [&](size_t ac) {
        const size_t a = ac / d.c, c = ac % d.c;
        float best = IsMax ? std::numeric_limits<float>::lowest() : std::numeric_limits<float>::max();
        size_t arg = 0;
        for (size_t b = 0; b < d.b; ++b) {
            const float v = x[(a * d.b + b) * d.c + c];
            if (std::isnan(v) || (IsMax ? v > best : v < best)) {
                best = v;
                arg = b;
            }
        }
        idx[a * d.c + c] = static_cast<int32_t>(arg);
    });
    ctx.out(0) = std::move(out);
}

// ---------------------------------------------------------------- Cumsum

void cumsum(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    const uint32_t axis = normalized_axis(ctx, in.shape());
    const bool exclusive = ctx.params().int_field("exclusive") != 0;
    const bool reverse = ctx.params().int_field("reverse") != 0;
    const ABC d = abc_of(in.shape(), axis);
    Tensor out(in.dtype(), in.shape());
    const bool ok = with_computing_num(in.dtype().type, [&](auto num) {
        using Num = decltype(num);
        using S = typename Num::S;
        auto src = in.data<S>();
        auto dst = out.mutable_data<S>();
        for_each_slice(d.a * d.c, d.b, [&](size_t ac) {
            const size_t a = ac / d.c, c = ac % d.c;
            // The sum is a ctype, rounded (or wrapped) after every addition.
            typename Num::V sum = 0;
            for (size_t i = 0; i < d.b; ++i) {
                const size_t b = reverse ? d.b - 1 - i : i;
                const size_t at = (a * d.b + b) * d.c + c;
                if (exclusive) dst[at] = Num::store(sum);
                sum = Num::add(sum, Num::load(src[at]));
                if (!exclusive) dst[at] = Num::store(sum);
            }
        });
    });
    if (!ok)
        ctx.fail("does not compute {} inputs (MegDNN's naive kernel takes float and integer dtypes)",
                 ir::dtype_string(in.dtype()));
    ctx.out(0) = std::move(out);
}

// ---------------------------------------------------------------- Argsort / TopK

// A row element and its index, ordered as std::pair<ctype, index> (value, then
// index): equal values keep index order ascending and reverse it descending.
struct Keyed {
    double key;
    uint32_t index;
};
bool keyed_less(const Keyed& a, const Keyed& b) {
    return a.key < b.key || (a.key == b.key && a.index < b.index);
}
bool keyed_greater(const Keyed& a, const Keyed& b) { return keyed_less(b, a); }

// The rows of a 2-dim input as keys. The naive kernels' std::sort, nth_element
// and partial_sort on NaN break the strict weak order those need, so their
// result is the standard library's accident: refused.
std::vector<double> row_keys(const KernelContext& ctx, const Tensor& in) {
    if (in.shape().ndim != 2) ctx.fail("needs a 2-dim input, got {}", describe_tensor(in));
    if (!with_computing_num(in.dtype().type, [](auto) {}))
        ctx.fail("does not compute {} inputs (MegDNN's naive kernel takes float and integer dtypes)",
                 ir::dtype_string(in.dtype()));
    if (has_nan(in)) ctx.fail("the input holds NaN, whose order MegDNN's sort leaves undefined");
    return to_doubles(in);
}

// dst[r, j] = src[r, index[r, j]] for a [rows, width] index, element bits as stored.
Tensor gather_rows(const Tensor& src, const std::vector<uint32_t>& index, uint32_t rows, uint32_t width) {
    Tensor out(src.dtype(), ir::Shape::of({rows, width}));
    const size_t esize = ir::dtype_storage_bytes(src.dtype().type, 1);
    const size_t n = src.shape()[1];
    const std::byte* from = src.bytes().data();
    std::byte* to = out.mutable_bytes().data();
    for (size_t r = 0; r < rows; ++r)
        for (size_t j = 0; j < width; ++j)
            std::memcpy(to + (r * width + j) * esize, from + (r * n + index[r * width + j]) * esize, esize);
    return out;
}

Tensor int32_tensor(const std::vector<uint32_t>& v, uint32_t rows, uint32_t width) {
    Tensor out(ir::DType::of(E::Int32), ir::Shape::of({rows, width}));
    auto o = out.mutable_data<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<int32_t>(v[i]);
    return out;
}

void argsort(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    const std::vector<double> keys = row_keys(ctx, in);
    const bool ascending = ctx.params().enum_field("order") == "ASCENDING";
    const uint32_t m = in.shape()[0], n = in.shape()[1];
    std::vector<uint32_t> index(keys.size());
    std::vector<Keyed> row(n);
    for (size_t r = 0; r < m; ++r) {
        for (uint32_t j = 0; j < n; ++j) row[j] = {keys[r * n + j], j};
        std::sort(row.begin(), row.end(), ascending ? keyed_less : keyed_greater);
        for (uint32_t j = 0; j < n; ++j) index[r * n + j] = row[j].index;
    }
    ctx.out(0) = gather_rows(in, index, m, n);
    ctx.out(1) = int32_tensor(index, m, n);
}

void top_k(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    const std::vector<double> keys = row_keys(ctx, in);
    const std::string_view mode = ctx.params().enum_field("mode");
    if (ctx.in(1).elements() != 1) ctx.fail("k must be a scalar, got {}", describe_tensor(ctx.in(1)));
    int64_t k = static_cast<int64_t>(to_doubles(ctx.in(1))[0]);
    if (k == 0) ctx.fail("k must not be 0");
    const uint32_t m = in.shape()[0], n = in.shape()[1];
    // TopK::exec: |k| beyond the row length takes the whole row. k > 0 asks for
    // the smallest, k < 0 for the largest.
    if (std::abs(k) > static_cast<int64_t>(n)) k = k > 0 ? n : -static_cast<int64_t>(n);
    if (n == 0) ctx.fail("cannot take the top-k of an empty row");

    if (mode == "KTH_ONLY") {
        const size_t kth = k < 0 ? static_cast<size_t>(n + k) : static_cast<size_t>(k - 1);
        std::vector<uint32_t> index(m);
        std::vector<Keyed> row(n);
        for (size_t r = 0; r < m; ++r) {
            for (uint32_t j = 0; j < n; ++j) row[j] = {keys[r * n + j], j};
            // Values alone, as the naive kernel orders them, so that of equal
            // elements (±0) the same one is picked.
            std::nth_element(row.begin(), row.begin() + static_cast<ptrdiff_t>(kth), row.end(),
                             [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
            index[r] = row[kth].index;
        }
        ctx.out(0) = Tensor::reshaped(gather_rows(in, index, m, 1), ir::Shape::of({m}));
        return;
    }
    if (mode != "VALUE_IDX_NOSORT" && mode != "VALUE_IDX_SORTED")
        ctx.fail("mode {} is not a TopK mode", mode);
    const uint32_t w = static_cast<uint32_t>(std::abs(k));
    const auto cmp = k < 0 ? keyed_greater : keyed_less;
    std::vector<uint32_t> index(static_cast<size_t>(m) * w);
    std::vector<Keyed> row(n);
    for (size_t r = 0; r < m; ++r) {
        for (uint32_t j = 0; j < n; ++j) row[j] = {keys[r * n + j], j};
        // The same standard algorithms on the same order as the naive kernel:
        // NOSORT's first |k| come out in nth_element's own arrangement.
        if (mode == "VALUE_IDX_SORTED")
            std::partial_sort(row.begin(), row.begin() + w, row.end(), cmp);
        else
            std::nth_element(row.begin(), row.begin() + (w - 1), row.end(), cmp);
        for (uint32_t j = 0; j < w; ++j) index[r * w + j] = row[j].index;
    }
    ctx.out(0) = gather_rows(in, index, m, w);
    if (ctx.nr_outputs() > 1) ctx.out(1) = int32_tensor(index, m, w);
}

}  // namespace

std::span<const KernelEntry> reduce_kernels() {
    static const KernelEntry kKernels[] = {
        {"Reduce", reduce}, {"Argmax", argmxx<true>}, {"Argmin", argmxx<false>},
        {"Cumsum", cumsum}, {"Argsort", argsort},     {"TopK", top_k},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
