#include "engine/value_scan.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MGEDUMP_HAVE_AVX2_PATH 1
#endif

namespace mgedump::engine {
namespace {

// (bits & 0x7fffffff) >= 0x7f800000 exactly when the exponent is all ones; adding
// 0x00800000 carries that into bit 31, so the test is branch-free arithmetic.
inline uint32_t non_finite_bit(uint32_t bits) { return ((bits & 0x7fffffffu) + 0x00800000u) >> 31; }

uint64_t count_portable(const std::byte* p, size_t n_values) {
    uint64_t bad = 0;
    for (size_t i = 0; i < n_values; ++i) {
        uint32_t v;
        std::memcpy(&v, p + i * 4, 4);
        bad += non_finite_bit(v);
    }
    return bad;
}

#ifdef MGEDUMP_HAVE_AVX2_PATH
constexpr size_t kLanes = 8;             // float32 per 256-bit register
constexpr size_t kStep = 4 * kLanes;     // four registers per iteration
constexpr size_t kFlush = size_t{1} << 24;  // values per lane counter before it could overflow

// 1 in each lane holding a non-finite value (non_finite_bit, eight at a time).
__attribute__((target("avx2"))) inline __m256i non_finite_lanes(__m256i v, __m256i mask, __m256i bias) {
    return _mm256_srli_epi32(_mm256_add_epi32(_mm256_and_si256(v, mask), bias), 31);
}

// kStream: `dst` is 32-byte aligned, so every store of the loop can stream.
template <bool kCopy, bool kStream = false>
__attribute__((target("avx2"))) uint64_t count_avx2(std::byte* dst, const std::byte* src, size_t n_values) {
    const __m256i mask = _mm256_set1_epi32(0x7fffffff);
    const __m256i bias = _mm256_set1_epi32(0x00800000);
    uint64_t bad = 0;
    size_t i = 0;
    while (i + kStep <= n_values) {
        const size_t stop = std::min(n_values - kStep + 1, i + kFlush);
        __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
        for (; i < stop; i += kStep) {
            const auto* q = reinterpret_cast<const __m256i*>(src + i * 4);
            const __m256i v0 = _mm256_loadu_si256(q), v1 = _mm256_loadu_si256(q + 1);
            const __m256i v2 = _mm256_loadu_si256(q + 2), v3 = _mm256_loadu_si256(q + 3);
            if constexpr (kCopy) {
                auto* d = reinterpret_cast<__m256i*>(dst + i * 4);
                if constexpr (kStream) {
                    _mm256_stream_si256(d, v0);
                    _mm256_stream_si256(d + 1, v1);
                    _mm256_stream_si256(d + 2, v2);
                    _mm256_stream_si256(d + 3, v3);
                } else {
                    _mm256_storeu_si256(d, v0);
                    _mm256_storeu_si256(d + 1, v1);
                    _mm256_storeu_si256(d + 2, v2);
                    _mm256_storeu_si256(d + 3, v3);
                }
            }
            a0 = _mm256_add_epi32(a0, non_finite_lanes(v0, mask, bias));
            a1 = _mm256_add_epi32(a1, non_finite_lanes(v1, mask, bias));
            a2 = _mm256_add_epi32(a2, non_finite_lanes(v2, mask, bias));
            a3 = _mm256_add_epi32(a3, non_finite_lanes(v3, mask, bias));
        }
        alignas(32) uint32_t lanes[kLanes];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes),
                           _mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3)));
        for (uint32_t l : lanes) bad += l;
    }
    const size_t tail = n_values - i;
    if constexpr (kCopy) std::memcpy(dst + i * 4, src + i * 4, tail * 4);
    return bad + count_portable(src + i * 4, tail);
}

bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}

// Bytes before `dst` reaches a 32-byte boundary (stream stores need one).
size_t head_to_alignment(const std::byte* dst, size_t n) {
    return std::min(n, (32 - (reinterpret_cast<uintptr_t>(dst) & 31)) & 31);
}

__attribute__((target("avx2"))) void stream_copy_avx2(std::byte* dst, const std::byte* src, size_t n) {
    size_t i = head_to_alignment(dst, n);
    std::memcpy(dst, src, i);
    for (; i + 128 <= n; i += 128) {
        const auto* q = reinterpret_cast<const __m256i*>(src + i);
        const __m256i v0 = _mm256_loadu_si256(q), v1 = _mm256_loadu_si256(q + 1);
        const __m256i v2 = _mm256_loadu_si256(q + 2), v3 = _mm256_loadu_si256(q + 3);
        auto* d = reinterpret_cast<__m256i*>(dst + i);
        _mm256_stream_si256(d, v0);
        _mm256_stream_si256(d + 1, v1);
        _mm256_stream_si256(d + 2, v2);
        _mm256_stream_si256(d + 3, v3);
    }
    std::memcpy(dst + i, src + i, n - i);
}
#endif

}  // namespace

uint64_t count_non_finite_f32(std::span<const std::byte> bytes) {
    const size_t n = bytes.size() / 4;
#ifdef MGEDUMP_HAVE_AVX2_PATH
    if (has_avx2()) return count_avx2<false>(nullptr, bytes.data(), n);
#endif
    return count_portable(bytes.data(), n);
}

uint64_t copy_count_non_finite_f32(std::byte* dst, std::span<const std::byte> src, Stores stores) {
    const size_t n = src.size() / 4;
#ifdef MGEDUMP_HAVE_AVX2_PATH
    if (has_avx2() && stores == Stores::Streaming) {
        const size_t head = head_to_alignment(dst, src.size());
        if (head % 4 != 0) {  // values and destination lines never line up: copy, then count the source in cache
            stream_copy_avx2(dst, src.data(), src.size());
            return count_avx2<false>(nullptr, src.data(), n);
        }
        std::memcpy(dst, src.data(), head);
        uint64_t bad = count_portable(src.data(), head / 4);
        bad += count_avx2<true, true>(dst + head, src.data() + head, n - head / 4);
        std::memcpy(dst + n * 4, src.data() + n * 4, src.size() - n * 4);
        return bad;
    }
    if (has_avx2()) {
        const uint64_t bad = count_avx2<true>(dst, src.data(), n);
        std::memcpy(dst + n * 4, src.data() + n * 4, src.size() - n * 4);
        return bad;
    }
#endif
    if (!src.empty()) std::memcpy(dst, src.data(), src.size());
    return count_portable(dst, n);  // the copy is in cache
}

void copy_bytes(std::byte* dst, std::span<const std::byte> src, Stores stores) {
#ifdef MGEDUMP_HAVE_AVX2_PATH
    if (stores == Stores::Streaming && has_avx2()) return stream_copy_avx2(dst, src.data(), src.size());
#endif
    if (!src.empty()) std::memcpy(dst, src.data(), src.size());
}

void finish_streaming_stores() {
#ifdef MGEDUMP_HAVE_AVX2_PATH
    _mm_sfence();
#endif
}

}  // namespace mgedump::engine
