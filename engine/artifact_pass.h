// The one pass over a dumped artifact in file order: its xxh3-128 digest, the
// non-finite float32 count of every tensor value in it, and, when asked, the copy
// into a sink: one caller-owned buffer, or a file being written. Large tensor values reach this pass uncopied
// (formats/serialized.h), and each 64 KiB chunk of them is copied, hashed and
// scanned while it is in cache: the weights are read from memory once, which is
// what keeps a weight-heavy dump close to a plain memcpy of its weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/serialized.h"
#include "ir/graph.h"

namespace mgedump::engine {

struct ArtifactPass {
    std::string xxh3_128;  // 32 hex digits, of the whole file
    // (tensor, non-finite count) for every float32 value the pass read, by tensor.
    std::vector<std::pair<uint32_t, uint64_t>> non_finite;
};

// Where the pass puts the bytes it reads, chunk by chunk in file order: one
// contiguous buffer, or a file being written (engine/artifact_file.h). The pass
// copies each chunk into the room it is given and then hashes it there, while
// it is in cache.
class ArtifactSink {
  public:
    virtual ~ArtifactSink() = default;
    // Once, before any bytes: the artifact's size.
    virtual void begin(uint64_t size) = 0;
    // Room for the next `n` bytes (n ≤ 64 KiB), valid until `filled(n)`.
    virtual std::span<std::byte> next(size_t n) = 0;
    virtual void filled(size_t n) = 0;
};

// A sink filling one buffer, which `allocate` returns for the size asked (at
// least that many bytes).
class BufferSink : public ArtifactSink {
  public:
    using Allocate = std::function<std::span<std::byte>(uint64_t size)>;
    explicit BufferSink(Allocate allocate) : allocate_(std::move(allocate)) {}
    void begin(uint64_t size) override;
    std::span<std::byte> next(size_t n) override { return buffer_.subspan(at_, n); }
    void filled(size_t n) override { at_ += n; }

  private:
    Allocate allocate_;
    std::span<std::byte> buffer_;
    size_t at_ = 0;
};

// Without a sink the pass only reads (a gather write follows it).
ArtifactPass artifact_pass(const formats::Serialized& s, const ir::Graph& g, ArtifactSink* sink = nullptr);

}  // namespace mgedump::engine
