// MultiHeadAttn's inference rule (see ir/infer/nn_norm.h). MegEngine:
// src/opr/impl/rand.cpp (MultiHeadAttnForward), rand.sereg.h (input counts);
// MegDNN: dnn/src/common/multi_head_attn.cpp (check_exec) and
// multi_head_attn/proxy_forward_base.cpp (deduce_layout, reserve spaces).
#include "ir/infer/nn_common.h"
#include "ir/infer/nn_norm.h"

namespace mgedump::ir::nn {
namespace {

struct MhaParam {
    uint64_t heads, embed, ksize, vsize, qproj, kproj, vproj, oproj;
    bool qbias, kbias, vbias, obias, training, add_zero_attn;
};

MhaParam read_param(const InferContext& ctx) {
    auto u = [&](FieldName f) { return static_cast<uint64_t>(ctx.int_field(f)); };
    auto b = [&](FieldName f) { return ctx.int_field(f) != 0; };
    return {u("num_heads"), u("embeding_size"), u("k_size"),  u("v_size"),      u("qproj_size"),
            u("kproj_size"), u("vproj_size"),   u("oproj_size"), b("qbias"),      b("kbias"),
            b("vbias"),      b("obias"),        b("training"),  b("add_zero_attn")};
}

// A WorkspaceBundle's size (dnn/src/common/utils.cpp:188): chunks rounded up to
// `align`, plus one `align` of slack when anything is there.
uint64_t bundle_bytes(std::initializer_list<uint64_t> sizes, uint64_t align) {
    uint64_t total = 0;
    for (uint64_t s : sizes) total += (s + align - 1) / align * align;
    return total ? total + align : 0;
}

// The weights and biases check_exec expects in the packed qkvo_weight_bias input.
uint64_t weight_len(const MhaParam& p) {
    uint64_t n = 0;
    if (p.qproj) n += p.embed * p.qproj + (p.qbias ? p.qproj : 0);
    if (p.kproj) n += p.ksize * p.kproj + (p.kbias ? p.kproj : 0);
    if (p.vproj) n += p.vsize * p.vproj + (p.vbias ? p.vproj : 0);
    if (p.oproj) n += (p.vproj ? p.vproj : p.heads * p.vsize) * p.oproj + (p.obias ? p.oproj : 0);
    return n;
}

void check_param(const InferContext& ctx, const MhaParam& p) {
    if (p.heads == 0) ctx.fail("num_heads must be positive");
    if (!p.qproj && !p.kproj && p.embed != p.ksize)
        ctx.fail("without q/k projections embeding_size ({}) must equal k_size ({})", p.embed, p.ksize);
    if (!p.qproj && p.kproj && p.embed * p.heads != p.kproj)
        ctx.fail("embeding_size ({}) * num_heads ({}) must equal kproj_size ({})", p.embed, p.heads, p.kproj);
    if (p.qproj && !p.kproj && p.qproj != p.ksize * p.heads)
        ctx.fail("qproj_size ({}) must equal k_size ({}) * num_heads ({})", p.qproj, p.ksize, p.heads);
    if (p.qproj && p.kproj && p.qproj != p.kproj)
        ctx.fail("qproj_size ({}) must equal kproj_size ({})", p.qproj, p.kproj);
    if ((p.qbias && !p.qproj) || (p.kbias && !p.kproj) || (p.vbias && !p.vproj) || (p.obias && !p.oproj))
        ctx.fail("a q/k/v/o bias needs the matching projection size to be positive");
}

}  // namespace

void multi_head_attn(InferContext& ctx) {
    // rand.sereg.h:36 OprMaker<MultiHeadAttn>: the input count fixes tensor_combination_type.
    static constexpr std::string_view kTypeFor[] = {"NONE", "ONLY_MASK", "ONLY_BIASKV", "ALL"};
    const size_t n = ctx.nr_inputs();
    ctx.expect_inputs(4, 7);
    const std::string_view type = ctx.enum_field("tensor_combination_type");
    if (type != kTypeFor[n - 4])
        ctx.fail("with {} inputs tensor_combination_type must be {}, got {}", n, kTypeFor[n - 4], type);
    const bool have_mask = type == "ONLY_MASK" || type == "ALL";
    const bool have_biaskv = type == "ONLY_BIASKV" || type == "ALL";
    const MhaParam p = read_param(ctx);
    check_param(ctx, p);

    // rand.cpp:520: out, attn_weight and othr_reservespace take the queries'
    // dtype, mask_reservespace is Byte.
    const DType qd = ctx.dtype(0);
    if (qd.valid && !dtype_is_float(qd.type)) ctx.fail("needs float queries, input 0 is {}", dtype_string(qd));
    Shape out, attn, mask_rs, othr_rs;
    if (all_shapes_known(ctx) && qd.valid) {
        const Shape &q = ctx.shape(0), &k = ctx.shape(1), &v = ctx.shape(2);
        if (q.ndim != 3 || k.ndim != 3 || v.ndim != 3)
            ctx.fail("needs 3-dim queries, keys and values, got {}, {}, {}", shape_string(q), shape_string(k),
                     shape_string(v));
        if (q[0] != k[0] || k[0] != v[0])
            ctx.fail("the batch of queries ({}), keys ({}) and values ({}) must match", q[0], k[0], v[0]);
        if (k[1] != v[1])
            ctx.fail("the sequence length of keys ({}) must equal that of values ({})", k[1], v[1]);
        if (q[2] != p.embed) ctx.fail("queries have {} features, embeding_size is {}", q[2], p.embed);
        if (k[2] != p.ksize) ctx.fail("keys have {} features, k_size is {}", k[2], p.ksize);
        if (v[2] != p.vsize) ctx.fail("values have {} features, v_size is {}", v[2], p.vsize);
        const uint64_t wl = weight_len(p);
        if (ctx.shape(3).elements() != wl)
            ctx.fail("qkvo_weight_bias must hold {} elements for these sizes, has {}", wl, ctx.shape(3).elements());
        const uint64_t attn_add = (have_biaskv ? 1 : 0) + (p.add_zero_attn ? 1 : 0);
        if (have_biaskv) {
            const Shape &bk = ctx.shape(n == 7 ? 5 : 4), &bv = ctx.shape(n == 7 ? 6 : 5);
            const uint64_t ek = p.kproj ? p.kproj : p.ksize, ev = p.vproj ? p.vproj : p.vsize;
            if (!(bk == Shape::of({1, 1, static_cast<uint32_t>(ek)})))
                ctx.fail("bias_k must be [1,1,{}], got {}", ek, shape_string(bk));
            if (!(bv == Shape::of({1, 1, static_cast<uint32_t>(ev)})))
                ctx.fail("bias_v must be [1,1,{}], got {}", ev, shape_string(bv));
        }
        if (have_mask) {
            const Shape& m = ctx.shape(4);
            const bool ok = m.ndim == 3   ? m[0] == q[0] * p.heads && m[1] == q[1] && m[2] == k[1] + attn_add
                            : m.ndim == 2 ? m[0] == q[1] && m[1] == k[1] + attn_add
                                          : true;
            if (!ok) ctx.fail("attn_mask {} does not fit queries {} and keys {}", shape_string(m), shape_string(q),
                              shape_string(k));
        }
        // proxy_forward_base.cpp layout_refill: project (or repeat per head),
        // split into heads, nx = nq @ nk^T, nz = nx @ nv, merge heads, project out.
        const uint64_t h = p.heads, nb = q[0] * h;
        const uint64_t dq = p.qproj ? p.qproj / h : q[2];
        const uint64_t dk = p.kproj ? p.kproj / h : k[2];
        const uint64_t dv = p.vproj ? p.vproj / h : v[2];
        if (dq != dk)
            ctx.fail("per-head query size {} must equal per-head key size {} for queries @ keys^T", dq, dk);
        const uint64_t nq = nb * q[1] * dq, nk = nb * k[1] * dk, nv = nb * v[1] * dv;
        const uint64_t nx = nb * q[1] * k[1];
        const uint64_t z = q[0] * q[1] * dv * h;
        attn = Shape::of({static_cast<uint32_t>(nb), q[1], k[1]});
        out = p.oproj ? Shape::of({q[0], q[1], static_cast<uint32_t>(p.oproj)})
                      : Shape::of({q[0], q[1], static_cast<uint32_t>(dv * h)});
        // Dropout masks (naive: one byte per element), only kept when training.
        const uint64_t mask = bundle_bytes({p.training ? nx : 0, p.training ? out.elements() : 0}, 4);
        mask_rs = Shape::of({static_cast<uint32_t>(mask)});
        const uint64_t es = dtype_bits(qd.type) / 8;
        const bool multi = h > 1;
        const uint64_t othr = bundle_bytes({multi || p.qproj ? nq * es : 0, multi || p.kproj ? nk * es : 0,
                                            multi || p.vproj ? nv * es : 0, p.training ? nx * es : 0,
                                            p.training || p.oproj ? z * es : 0},
                                           es);
        othr_rs = Shape::of({static_cast<uint32_t>(othr / es)});
    }
    ctx.set_output(0, qd, out);
    ctx.set_output(1, qd, attn);
    ctx.set_output(2, DType::of(DTypeEnum::Byte), mask_rs);
    ctx.set_output(3, qd, othr_rs);
}

}  // namespace mgedump::ir::nn
