#include "engine/artifact_pass.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>

#include "engine/load.h"
#include "engine/value_scan.h"
#include "ir/describe.h"
#include "ir/error.h"
#include "ir/xxh3_dispatch.h"

namespace mgedump::engine {
namespace {

// Small enough to stay in L2 between the copy and the two reads after it.
constexpr size_t kChunk = size_t{64} << 10;

// Where a piece's bytes can be pread from: the descriptor and offset of the
// blob it views, when that blob's bytes are a region of an open input file.
struct FileSpan {
    int fd = -1;
    uint64_t offset = 0;
};

FileSpan file_span(const formats::Serialized::Piece& piece, const ir::Graph& g) {
    if (piece.tensor < 0) return {};
    const ir::BlobId blob = g.tensors.blob[piece.tensor];
    if (!blob.valid()) return {};
    const int fd = g.blobs.file_descriptor(blob);
    const auto& region = g.blobs.region(blob);
    const ir::Bytes bytes = g.blobs.bytes(blob);
    const std::less_equal<const std::byte*> at_or_before;
    if (fd < 0 || !region || !at_or_before(bytes.data(), piece.bytes.data()) ||
        !at_or_before(piece.bytes.data() + piece.bytes.size(), bytes.data() + bytes.size()))
        return {};
    return {fd, region->offset + static_cast<uint64_t>(piece.bytes.data() - bytes.data())};
}

// For errors only: the operator holding the tensor (a linear search).
std::string describe_tensor_owner(const ir::Graph& g, int32_t tensor) {
    const auto t = static_cast<uint32_t>(tensor);
    for (uint32_t o = 0; o < g.oprs.size(); ++o) {
        const ir::Range r = g.oprs.tensors[o];
        if (t >= r.begin && t < r.end()) return ir::describe_opr(g, ir::OprId(o));
    }
    return fmt::format("tensor {}", tensor);
}

void pread_value(int fd, std::span<std::byte> into, uint64_t offset, const ir::Graph& g, int32_t tensor) {
    try {
        pread_exactly(fd, into, offset);
    } catch (const Error& e) {
        throw Error(fmt::format("{}: reading its value back failed: {}", describe_tensor_owner(g, tensor), e.what()));
    }
}

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
    std::optional<ir::Xxh3State> state;
    if (digest == Digest::Compute) state.emplace();

    ArtifactPass out;
    for (const formats::Serialized::Piece& piece : s.pieces()) {
        const bool scan = piece.tensor >= 0 && g.tensors.dtype[piece.tensor].type == ir::DTypeEnum::Float32;
        const FileSpan file = sink && sink->reads_input_files() ? file_span(piece, g) : FileSpan{};
        uint64_t bad = 0;
        for (size_t at = 0; at < piece.bytes.size(); at += kChunk) {
            std::span<const std::byte> chunk = piece.bytes.subspan(at, std::min(kChunk, piece.bytes.size() - at));
            if (file.fd >= 0) {
                // The mapping is never touched: the kernel copies from its page cache
                // into the room, where the scan and the hash read it in cache.
                std::span<std::byte> room = sink->next(chunk.size()).first(chunk.size());
                pread_value(file.fd, room, file.offset + at, g, piece.tensor);
                if (scan) bad += count_non_finite_f32(room);
                if (state) state->update(room.data(), room.size());
                sink->filled(room.size());
                out.bytes_read_from_files += room.size();
                continue;
            }
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
            if (state) state->update(chunk.data(), chunk.size());
        }
        if (scan) out.non_finite.emplace_back(static_cast<uint32_t>(piece.tensor), bad);
    }
    if (stores == Stores::Streaming) finish_streaming_stores();
    std::ranges::sort(out.non_finite);
    if (state) {
        out.xxh3_128 = ir::xxh3_128_hex(state->digest());
    }
    return out;
}

}  // namespace mgedump::engine
