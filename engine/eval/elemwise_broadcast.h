// The loop of every elementwise kernel: out[i] = op(in_0[j_0], ..., in_{N-1}[j_{N-1}])
// for each output position i, where j_k is the position of input k that
// broadcasts to i (numpy rules, right-aligned; a [1] operand is a scalar), as
// MegDNN's ElemwiseLayoutHelper broadcasts Elemwise's inputs to the output.
//
// Equal shapes and scalar operands take a plain loop over the flat index; other
// broadcasts walk the output's dims after merging those every operand reads
// contiguously. Outputs above kParallelElements elements are split over oneTBB.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "ir/error.h"
#include "ir/infer.h"

namespace mgedump::engine::eval::elemwise {

inline constexpr uint64_t kParallelElements = 64 * 1024;

// One input of the loop: its elements (row-major) and its shape, which must
// broadcast to the output's.
template <class T>
struct Operand {
    const T* data;
    ir::Shape shape;
};

namespace detail {

// Element strides of each operand over the output's dims, 0 where it is
// broadcast; adjacent dims that every operand reads as one are merged.
template <size_t N>
struct Plan {
    uint32_t ndim = 0;
    std::array<uint64_t, ir::kMaxNdim> dim{};
    std::array<std::array<uint64_t, ir::kMaxNdim>, N> stride{};
};

template <size_t N>
Plan<N> make_plan(const ir::Shape& out, const std::array<const ir::Shape*, N>& in) {
    Plan<N> p;
    const uint32_t nd = out.ndim;
    std::array<std::array<uint64_t, ir::kMaxNdim>, N> stride{};
    for (size_t k = 0; k < N; ++k) {
        const ir::Shape& s = *in[k];
        uint64_t step = 1;
        for (int d = static_cast<int>(nd) - 1, e = static_cast<int>(s.ndim) - 1; d >= 0; --d, --e) {
            const uint64_t len = e >= 0 ? s.dim[e] : 1;
            stride[k][d] = len == 1 ? 0 : step;
            step *= len;
        }
    }
    // Merge dim d into the dim before it when every operand steps through both
    // as through one.
    for (uint32_t d = 0; d < nd; ++d) {
        if (out.dim[d] == 1) continue;  // contributes nothing
        bool merge = p.ndim > 0;
        for (size_t k = 0; merge && k < N; ++k) merge = p.stride[k][p.ndim - 1] == stride[k][d] * out.dim[d];
        if (merge) {
            p.dim[p.ndim - 1] *= out.dim[d];
            for (size_t k = 0; k < N; ++k) p.stride[k][p.ndim - 1] = stride[k][d];
        } else {
            p.dim[p.ndim] = out.dim[d];
            for (size_t k = 0; k < N; ++k) p.stride[k][p.ndim] = stride[k][d];
            ++p.ndim;
        }
    }
    if (p.ndim == 0) {  // every dim is 1
        p.ndim = 1;
        p.dim[0] = 1;
    }
    return p;
}

template <class R, class T, size_t N, class Op, size_t... K>
void strided_range(const Plan<N>& p, uint64_t begin, uint64_t end, R* out, const std::array<const T*, N>& in,
                   Op& op, std::index_sequence<K...>) {
    const uint32_t last = p.ndim - 1;
    std::array<uint64_t, ir::kMaxNdim> idx{};
    std::array<uint64_t, N> off{};
    uint64_t rest = begin;
    for (int d = static_cast<int>(last); d >= 0; --d) {
        idx[d] = rest % p.dim[d];
        rest /= p.dim[d];
        for (size_t k = 0; k < N; ++k) off[k] += idx[d] * p.stride[k][d];
    }
    uint64_t i = begin;
    while (i < end) {
        const uint64_t run = std::min(p.dim[last] - idx[last], end - i);
        for (uint64_t j = 0; j < run; ++j) out[i + j] = op(in[K][off[K] + j * p.stride[K][last]]...);
        i += run;
        for (size_t k = 0; k < N; ++k) off[k] += run * p.stride[k][last];
        idx[last] += run;
        // Carry into the outer dims.
        for (uint32_t d = last; d > 0 && idx[d] == p.dim[d]; --d) {
            idx[d] = 0;
            ++idx[d - 1];
            for (size_t k = 0; k < N; ++k) off[k] += p.stride[k][d - 1] - p.dim[d] * p.stride[k][d];
        }
    }
}

template <class R, class T, size_t N, class Op, size_t... K>
void full_range(uint64_t b, uint64_t e, R* out, const std::array<const T*, N>& in, Op& op,
                std::index_sequence<K...>) {
    for (uint64_t i = b; i < e; ++i) out[i] = op(in[K][i]...);
}

// Operand k read at i · step[k]: step 1 for the output's shape, 0 for a scalar.
template <class R, class T, size_t N, class Op, size_t... K>
void stepped_range(uint64_t b, uint64_t e, R* out, const std::array<const T*, N>& in,
                   const std::array<uint64_t, N>& step, Op& op, std::index_sequence<K...>) {
    for (uint64_t i = b; i < e; ++i) out[i] = op(in[K][i * step[K]]...);
}

template <class F>
void split(uint64_t n, F&& body) {
    if (n < kParallelElements) {
        body(uint64_t{0}, n);
        return;
    }
    tbb::parallel_for(tbb::blocked_range<uint64_t>(0, n, kParallelElements / 4),
                      [&](const tbb::blocked_range<uint64_t>& r) { body(r.begin(), r.end()); });
}

}  // namespace detail

template <class R, class T, size_t N, class Op>
void broadcast_map(R* out, const ir::Shape& out_shape, const std::array<Operand<T>, N>& in, Op op) {
    const uint64_t n = out_shape.elements();
    if (n == 0) return;
    constexpr auto ks = std::make_index_sequence<N>{};
    bool all_full = true, simple = true;
    std::array<const T*, N> ptr{};
    std::array<uint64_t, N> step{};  // 1: read at i; 0: the one element
    for (size_t k = 0; k < N; ++k) {
        ptr[k] = in[k].data;
        const uint64_t e = in[k].shape.elements();
        // A broadcast only repeats elements, so an operand with the output's
        // element count is read in the output's order.
        step[k] = e == n ? 1 : 0;
        all_full = all_full && e == n;
        simple = simple && (e == n || e == 1);
    }
    if (all_full) {
        detail::split(n, [&](uint64_t b, uint64_t e) { detail::full_range(b, e, out, ptr, op, ks); });
        return;
    }
    if (simple) {
        detail::split(n,
                      [&](uint64_t b, uint64_t e) { detail::stepped_range(b, e, out, ptr, step, op, ks); });
        return;
    }
    std::array<const ir::Shape*, N> shapes{};
    for (size_t k = 0; k < N; ++k) shapes[k] = &in[k].shape;
    const detail::Plan<N> plan = detail::make_plan(out_shape, shapes);
    detail::split(n, [&](uint64_t b, uint64_t e) { detail::strided_range(plan, b, e, out, ptr, op, ks); });
}

namespace detail {
template <class T, size_t>
using Repeat = T;
template <class Op, class T, size_t N>
constexpr bool takes() {
    return []<size_t... K>(std::index_sequence<K...>) { return std::is_invocable_v<Op, Repeat<T, K>...>; }
    (std::make_index_sequence<N>{});
}
// The number of T arguments `Op` takes (1 to 6), 0 when none fits.
template <class Op, class T>
constexpr size_t arity() {
    if constexpr (takes<Op, T, 1>())
        return 1;
    else if constexpr (takes<Op, T, 2>())
        return 2;
    else if constexpr (takes<Op, T, 3>())
        return 3;
    else if constexpr (takes<Op, T, 4>())
        return 4;
    else if constexpr (takes<Op, T, 5>())
        return 5;
    else if constexpr (takes<Op, T, 6>())
        return 6;
    else
        return 0;
}
}  // namespace detail

// broadcast_map over as many of `in` as `op` takes arguments; `in` must hold
// exactly that many.
template <class R, class T, class Op>
void map_operands(R* out, const ir::Shape& out_shape, std::span<const Operand<T>> in, Op op) {
    constexpr size_t n = detail::arity<Op, T>();
    static_assert(n > 0, "an elemwise kernel takes 1 to 6 operands of the compute type");
    if (in.size() != n)
        throw Error("evaluator: an elemwise kernel of " + std::to_string(n) + " operands was given " +
                    std::to_string(in.size()));
    std::array<Operand<T>, n> a{};
    std::copy(in.begin(), in.end(), a.begin());
    broadcast_map(out, out_shape, a, op);
}

}  // namespace mgedump::engine::eval::elemwise
