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

#include "engine/value_scan.h"
#include "formats/serialized.h"
#include "ir/graph.h"

namespace mgedump::engine {

// The whole-file digest is mgedump's own (CLI output, batch reports); MegEngine's
// result has no such field, so callers that never show it (the Python module)
// skip it and the pass only copies and scans.
enum class Digest : uint8_t { Compute, Skip };

struct ArtifactPass {
    std::string xxh3_128;  // 32 hex digits, of the whole file; empty with Digest::Skip
    uint64_t bytes_read_from_files = 0;  // of them, preread from input files (ArtifactSink::reads_input_files)
    // (tensor, non-finite count) for every float32 value the pass read, by tensor.
    std::vector<std::pair<uint32_t, uint64_t>> non_finite;
};

// Where the pass puts the bytes it reads, chunk by chunk in file order: one
// contiguous buffer, or a file being written (engine/artifact_file.h). The pass
// copies each chunk into the room it is given and then hashes the source chunk,
// which the copy has just brought into cache.
class ArtifactSink {
  public:
    virtual ~ArtifactSink() = default;
    // Once, before any bytes: the artifact's size.
    virtual void begin(uint64_t size) = 0;
    // Room for the next `n` bytes (n ≤ 64 KiB), valid until `filled(n)`.
    virtual std::span<std::byte> next(size_t n) = 0;
    virtual void filled(size_t n) = 0;
    // How to store into the room: see Stores (engine/value_scan.h).
    virtual Stores stores() const { return Stores::Cached; }
    // Whether values a blob has in an open file (ir::BlobStore::file_descriptor)
    // are read into the room with pread(2) rather than copied from their mapping:
    // `cp`'s pattern, right for a small cached buffer on its way to a file.
    virtual bool reads_input_files() const { return false; }
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
    // A buffer this large is past any cache by the time anyone reads it.
    Stores stores() const override { return size_ >= kStreamFrom ? Stores::Streaming : Stores::Cached; }
    static constexpr size_t kStreamFrom = size_t{8} << 20;

  private:
    Allocate allocate_;
    std::span<std::byte> buffer_;
    uint64_t size_ = 0;
    size_t at_ = 0;
};

// Without a sink the pass only reads (a gather write follows it).
ArtifactPass artifact_pass(const formats::Serialized& s, const ir::Graph& g, ArtifactSink* sink = nullptr,
                           Digest digest = Digest::Compute);

}  // namespace mgedump::engine
