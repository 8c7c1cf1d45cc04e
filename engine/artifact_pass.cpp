#include "engine/artifact_pass.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "engine/value_scan.h"
#include "ir/xxh3_dispatch.h"

namespace mgedump::engine {
namespace {

// Small enough to stay in L2 between the copy and the two reads after it.
constexpr size_t kChunk = size_t{64} << 10;

struct StateDeleter {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};

}  // namespace

void BufferSink::begin(uint64_t size) {
    buffer_ = allocate_(size);
    if (buffer_.size() < size)
        throw std::logic_error(
            fmt::format("artifact pass: the output buffer holds {} bytes, the artifact needs {}", buffer_.size(), size));
    size_ = size;
    at_ = 0;
}

ArtifactPass artifact_pass(const formats::Serialized& s, const ir::Graph& g, ArtifactSink* sink, Digest digest) {
    if (sink) sink->begin(s.size());
    const Stores stores = sink ? sink->stores() : Stores::Cached;
    std::unique_ptr<XXH3_state_t, StateDeleter> state;
    if (digest == Digest::Compute) {
        state.reset(XXH3_createState());
        if (!state) throw std::bad_alloc();
        XXH3_128bits_reset(state.get());
    }

    ArtifactPass out;
    for (const formats::Serialized::Piece& piece : s.pieces()) {
        const bool scan = piece.tensor >= 0 && g.tensors.dtype[piece.tensor].type == ir::DTypeEnum::Float32;
        uint64_t bad = 0;
        for (size_t at = 0; at < piece.bytes.size(); at += kChunk) {
            std::span<const std::byte> chunk = piece.bytes.subspan(at, std::min(kChunk, piece.bytes.size() - at));
            if (sink) {
                std::byte* dst = sink->next(chunk.size()).data();
                if (scan)
                    bad += copy_count_non_finite_f32(dst, chunk, stores);
                else
                    copy_bytes(dst, chunk, stores);
                sink->filled(chunk.size());
            } else if (scan) {
                bad += count_non_finite_f32(chunk);
            }
            // The source chunk was just read, so it is in cache (a streamed copy is not).
            if (state) XXH3_128bits_update(state.get(), chunk.data(), chunk.size());
        }
        if (scan) out.non_finite.emplace_back(static_cast<uint32_t>(piece.tensor), bad);
    }
    if (stores == Stores::Streaming) finish_streaming_stores();
    std::ranges::sort(out.non_finite);
    if (state) {
        XXH128_hash_t h = XXH3_128bits_digest(state.get());
        out.xxh3_128 = fmt::format("{:016x}{:016x}", h.high64, h.low64);
    }
    return out;
}

}  // namespace mgedump::engine
