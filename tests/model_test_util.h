// Helpers the reader tests share: spec vectors as loadable buffers, generated
// graphs, and dump → load in memory.
#pragma once

#include <cstring>
#include <memory>
#include <vector>

#include "engine/dump.h"
#include "formats/model_reader.h"
#include "ir/error.h"
#include "ir/builder.h"
#include "spec_vectors.h"
#include "tests/never_inferred.h"

namespace mgedump::test {

// Owned bytes that loaded graphs can view.
inline std::shared_ptr<std::vector<std::byte>> owned_bytes(const std::vector<uint8_t>& v) {
    auto p = std::make_shared<std::vector<std::byte>>(v.size());
    if (!v.empty()) std::memcpy(p->data(), v.data(), v.size());
    return p;
}
inline std::shared_ptr<std::vector<std::byte>> owned_bytes(std::vector<std::byte> v) {
    return std::make_shared<std::vector<std::byte>>(std::move(v));
}

inline formats::LoadedModel load_bytes(const std::shared_ptr<std::vector<std::byte>>& b) {
    return formats::read_model(ir::Bytes(*b), b);
}

inline std::vector<uint8_t> as_u8(const std::vector<std::byte>& v) {
    return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                reinterpret_cast<const uint8_t*>(v.data()) + v.size());
}

inline std::vector<uint8_t> appendix_c_v1() { return spec_hex_dump("### C.1 FBS v1"); }
// C.2: FBS_V2 without middle-tensor shapes (a writer that does not infer them);
// kept as an input vector.
inline std::vector<uint8_t> appendix_c_v2() { return spec_hex_dump("### C.2 FBS_V2"); }
// C.3: the same graph in FBS_V2 with every MiddleTensor's inferred shape, as
// MegEngine writes it (760 bytes) — what dumping the Appendix C graph, or
// converting C.2 to FBS_V2, gives.
inline std::vector<uint8_t> appendix_c_v3_shapes() { return spec_hex_dump("### C.3 FBS_V2"); }

}  // namespace mgedump::test
