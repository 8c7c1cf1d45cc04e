// The one pass over a dumped artifact in file order: its xxh3-128 digest, the
// non-finite float32 count of every tensor value in it, and, when asked, the copy
// into one caller-owned buffer. Large tensor values reach this pass uncopied
// (formats/serialized.h), and each 64 KiB chunk of them is copied, hashed and
// scanned while it is in cache: the weights are read from memory once, which is
// what keeps a weight-heavy dump close to a plain memcpy of its weights.
#pragma once

#include <cstddef>
#include <cstdint>
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

// `into`, when not empty, receives the whole file and must hold s.size() bytes.
ArtifactPass artifact_pass(const formats::Serialized& s, const ir::Graph& g, std::span<std::byte> into = {});

}  // namespace mgedump::engine
