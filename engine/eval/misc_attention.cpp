#include "engine/eval/misc_attention.h"

#include <algorithm>
#include <cmath>

#include "engine/eval/elements.h"
#include "engine/eval/misc_random.h"
#include "ir/infer/indexing_slices.h"

namespace mgedump::engine::eval {
namespace {

// A row-major float array with its dims, [batch, rows, cols].
struct Mat3 {
    uint64_t batch = 0, rows = 0, cols = 0;
    std::vector<float> v;
    Mat3() = default;
    Mat3(uint64_t b, uint64_t r, uint64_t c) : batch(b), rows(r), cols(c), v(b * r * c, 0.0f) {}
    float& at(uint64_t b, uint64_t r, uint64_t c) { return v[(b * rows + r) * cols + c]; }
    float at(uint64_t b, uint64_t r, uint64_t c) const { return v[(b * rows + r) * cols + c]; }
};

Mat3 as_mat3(const Tensor& t) {
    const ir::Shape& s = t.shape();
    Mat3 m;
    m.batch = s.dim[0];
    m.rows = s.dim[1];
    m.cols = s.dim[2];
    m.v = to_floats(t);
    return m;
}

// x [B, S, in] @ w [in, out] (+ bias [out]): MegDNN's MatrixMul per batch,
// then AddUpdate for the bias.
Mat3 project(const Mat3& x, const float* w, uint64_t out, const float* bias) {
    Mat3 y(x.batch, x.rows, out);
    for (uint64_t b = 0; b < x.batch; ++b)
        for (uint64_t r = 0; r < x.rows; ++r)
            for (uint64_t o = 0; o < out; ++o) {
                float acc = 0;
                for (uint64_t i = 0; i < x.cols; ++i) acc += x.at(b, r, i) * w[i * out + o];
                y.at(b, r, o) = bias ? acc + bias[o] : acc;
            }
    return y;
}

// [B, S, H·d] → [B·H, S, d] (relayout_to_multihead), or, unprojected, the
// input repeated per head (repeat_to_multihead).
Mat3 to_heads(const Mat3& x, uint64_t heads, bool projected) {
    const uint64_t d = projected ? x.cols / heads : x.cols;
    Mat3 n(x.batch * heads, x.rows, d);
    for (uint64_t b = 0; b < x.batch; ++b)
        for (uint64_t h = 0; h < heads; ++h)
            for (uint64_t s = 0; s < x.rows; ++s)
                for (uint64_t k = 0; k < d; ++k)
                    n.at(b * heads + h, s, k) = x.at(b, s, projected ? h * d + k : k);
    return n;
}

// [B·H, S, d] → [B, S, H·d] (relayout_from_multihead).
Mat3 from_heads(const Mat3& n, uint64_t heads) {
    Mat3 z(n.batch / heads, n.rows, n.cols * heads);
    for (uint64_t b = 0; b < z.batch; ++b)
        for (uint64_t h = 0; h < heads; ++h)
            for (uint64_t s = 0; s < n.rows; ++s)
                for (uint64_t k = 0; k < n.cols; ++k) z.at(b, s, h * n.cols + k) = n.at(b * heads + h, s, k);
    return z;
}

// Batched a @ bᵀ or a @ b.
Mat3 batched_matmul(const Mat3& a, const Mat3& b, bool transpose_b) {
    const uint64_t n = transpose_b ? b.rows : b.cols, inner = a.cols;
    Mat3 c(a.batch, a.rows, n);
    for (uint64_t p = 0; p < a.batch; ++p)
        for (uint64_t i = 0; i < a.rows; ++i)
            for (uint64_t j = 0; j < n; ++j) {
                float acc = 0;
                for (uint64_t k = 0; k < inner; ++k)
                    acc += a.at(p, i, k) * (transpose_b ? b.at(p, j, k) : b.at(p, k, j));
                c.at(p, i, j) = acc;
            }
    return c;
}

// MegDNN's naive Softmax on the last axis: max, subtract, exp, sum, divide.
void softmax_rows(Mat3& x) {
    for (uint64_t p = 0; p < x.batch; ++p)
        for (uint64_t i = 0; i < x.rows; ++i) {
            float* row = &x.v[(p * x.rows + i) * x.cols];
            const float mx = *std::max_element(row, row + x.cols);
            float sum = 0;
            for (uint64_t j = 0; j < x.cols; ++j) {
                row[j] = std::exp(row[j] - mx);
                sum += row[j];
            }
            for (uint64_t j = 0; j < x.cols; ++j) row[j] /= sum;
        }
}

// nx += mask, the mask broadcast to nx's shape (Elemwise ADD).
void add_mask(const KernelContext& ctx, Mat3& nx, const Tensor& mask) {
    const ir::Shape target = ir::Shape::of(
        {static_cast<uint32_t>(nx.batch), static_cast<uint32_t>(nx.rows), static_cast<uint32_t>(nx.cols)});
    const ir::Shape& ms = mask.shape();
    if (ms.ndim > 3)
        ctx.fail("attn_mask {} does not broadcast to the attention {}", ir::shape_string(ms),
                 ir::shape_string(target));
    const std::vector<int64_t> cs = ir::indexing::contiguous_strides(ms);
    std::vector<int64_t> strides(3, 0);
    for (uint32_t k = 0; k < 3; ++k) {
        const int64_t mk = static_cast<int64_t>(k) + ms.ndim - 3;
        if (mk < 0 || ms.dim[mk] == 1) continue;
        if (ms.dim[mk] != target.dim[k])
            ctx.fail("attn_mask {} does not broadcast to the attention {}", ir::shape_string(ms),
                     ir::shape_string(target));
        strides[k] = cs[mk];
    }
    const std::vector<float> m = to_floats(mask);
    const std::vector<int64_t> offs = ir::indexing::view_offsets(target, strides, 0);
    for (size_t i = 0; i < offs.size(); ++i) nx.v[i] += m[static_cast<size_t>(offs[i])];
}

// Writes `part` into `dst` from element `at` on (clipped to dst), returns the
// next position: the reserve spaces are WorkspaceBundles of such parts.
uint64_t put(std::span<float> dst, uint64_t at, const std::vector<float>& part) {
    for (uint64_t i = 0; i < part.size() && at + i < dst.size(); ++i) dst[at + i] = part[i];
    return at + part.size();
}

}  // namespace

void multi_head_attn(KernelContext& ctx) {
    const ir::InferContext& p = ctx.params();
    auto u = [&](ir::FieldName f) { return static_cast<uint64_t>(p.int_field(f)); };
    auto flag = [&](ir::FieldName f) { return p.int_field(f) != 0; };
    const uint64_t heads = u("num_heads"), qproj = u("qproj_size"), kproj = u("kproj_size"),
                   vproj = u("vproj_size"), oproj = u("oproj_size");
    const bool training = flag("training");
    const std::string_view mask_type = p.enum_field("attn_mask_type");
    const std::string_view inputs = p.enum_field("tensor_combination_type");
    // MegDNN's naive kernel reads neither of these; refused rather than ignored.
    if (inputs == "ONLY_BIASKV" || inputs == "ALL") ctx.fail("bias_k/bias_v inputs are not implemented");
    if (flag("add_zero_attn")) ctx.fail("add_zero_attn is not implemented");
    if (flag("reslink")) ctx.fail("reslink is not implemented");
    if (u("input_order") != 0)
        ctx.fail("input_order {} is not implemented; [batch, seq, feature] only", u("input_order"));
    if (mask_type == "CUDNN_STYLE_MASK") ctx.fail("attn_mask_type CUDNN_STYLE_MASK is not implemented");
    const bool add_attn_mask = mask_type == "DEFAULT_MASK" || mask_type == "USER_DEFINED_MASK";
    if (add_attn_mask && inputs != "ONLY_MASK")
        ctx.fail("attn_mask_type {} needs the attn_mask input (tensor_combination_type ONLY_MASK)",
                 mask_type);
    const ir::DType dtype = ctx.in(0).dtype();
    if (!is_float_dtype(dtype.type)) ctx.fail("needs float queries, not {}", ir::dtype_name(dtype.type));

    const Mat3 queries = as_mat3(ctx.in(0)), keys = as_mat3(ctx.in(1)), values = as_mat3(ctx.in(2));
    const std::vector<float> wb = to_floats(ctx.in(3));
    // The packed weights, then the biases (layout_refill's offsets).
    uint64_t end = 0;
    auto take = [&](bool present, uint64_t n) -> const float* {
        if (!present) return nullptr;
        if (end + n > wb.size())
            ctx.fail("qkvo_weight_bias holds {} elements, the sizes need more", wb.size());
        const float* at = wb.data() + end;
        end += n;
        return at;
    };
    const uint64_t o_in = vproj ? vproj : heads * values.cols;
    const float* wq = take(qproj != 0, queries.cols * qproj);
    const float* wk = take(kproj != 0, keys.cols * kproj);
    const float* wv = take(vproj != 0, values.cols * vproj);
    const float* wo = take(oproj != 0, o_in * oproj);
    const float* bq = take(qproj && flag("qbias"), qproj);
    const float* bk = take(kproj && flag("kbias"), kproj);
    const float* bv = take(vproj && flag("vbias"), vproj);
    const float* bo = take(oproj && flag("obias"), oproj);

    const Mat3 q = qproj ? project(queries, wq, qproj, bq) : queries;
    const Mat3 k = kproj ? project(keys, wk, kproj, bk) : keys;
    const Mat3 v = vproj ? project(values, wv, vproj, bv) : values;
    const Mat3 nq = heads > 1 ? to_heads(q, heads, qproj != 0) : q;
    const Mat3 nk = heads > 1 ? to_heads(k, heads, kproj != 0) : k;
    const Mat3 nv = heads > 1 ? to_heads(v, heads, vproj != 0) : v;

    Mat3 nx = batched_matmul(nq, nk, true);
    // The scale is a ctype scalar (MUL by a {1} tensor of the queries' dtype).
    const float scaler = to_floats(from_floats(
        dtype, ir::Shape::of({1}), std::vector<float>{static_cast<float>(p.float_field("sm_scaler"))}))[0];
    for (float& x : nx.v) x *= scaler;
    if (add_attn_mask) add_mask(ctx, nx, ctx.in(4));
    softmax_rows(nx);
    const std::vector<float> ny = nx.v;  // before dropout: othr_reservespace keeps it when training

    // Training: dropout on the attention weights, then on the output, from one
    // generator (MegDNN's proxy holds one Dropout operator with the param's seed).
    Xoroshiro128plus rng(u("seed"));
    std::vector<uint8_t> mask1, mask2;
    if (training) {
        mask1.resize(nx.v.size());
        dropout(rng, static_cast<float>(p.float_field("attn_prob")), nx.v, mask1);
    }
    const Mat3 nz = batched_matmul(nx, nv, false);
    const Mat3 z = heads > 1 ? from_heads(nz, heads) : nz;
    Mat3 out = oproj ? project(z, wo, oproj, bo) : z;
    if (training) {
        mask2.resize(out.v.size());
        dropout(rng, static_cast<float>(p.float_field("out_prob")), out.v, mask2);
    }

    auto result = [&](size_t i, const Mat3& m) {
        const ir::Shape want = ir::Shape::of(
            {static_cast<uint32_t>(m.batch), static_cast<uint32_t>(m.rows), static_cast<uint32_t>(m.cols)});
        if (!ctx.out(i).empty() && !(ctx.out(i).shape() == want))
            ctx.fail("output {} computes as {}, inference gave {}", i, ir::shape_string(want),
                     ir::shape_string(ctx.out(i).shape()));
        ctx.out(i) = from_floats(dtype, want, m.v);
    };
    result(0, out);
    result(1, nx);
    // The reserve spaces, as the backward operator would read them.
    if (ctx.nr_outputs() > 2 && !ctx.out(2).empty() && training) {
        std::span<uint8_t> m = ctx.out(2).mutable_data<uint8_t>();
        const uint64_t second = (mask1.size() + 3) / 4 * 4;
        for (uint64_t i = 0; i < mask1.size() && i < m.size(); ++i) m[i] = mask1[i];
        for (uint64_t i = 0; i < mask2.size() && second + i < m.size(); ++i) m[second + i] = mask2[i];
    }
    if (ctx.nr_outputs() > 3 && !ctx.out(3).empty()) {
        std::vector<float> othr(ctx.out(3).elements(), 0.0f);
        uint64_t at = 0;
        if (heads > 1 || qproj) at = put(othr, at, nq.v);
        if (heads > 1 || kproj) at = put(othr, at, nk.v);
        if (heads > 1 || vproj) at = put(othr, at, nv.v);
        if (training) at = put(othr, at, ny);
        if (training || oproj) put(othr, at, z.v);
        ctx.out(3) = from_floats(ctx.out(3).dtype(), ctx.out(3).shape(), othr);
    }
}

}  // namespace mgedump::engine::eval
