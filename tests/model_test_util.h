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

// `g` as tables written directly would give it: marked never inferred, with
// neither a shape nor a dtype recorded for a var an operator computes (the vars
// that hold a tensor, an input or a constant, keep the tensor's). The dump
// infers such a graph itself (engine/dump.cpp), and must write what it writes
// for `g`.
inline ir::Graph as_never_inferred(ir::Graph g) {
    g.inferred = false;
    for (uint32_t v = 0; v < g.vars.size(); ++v) {
        if (g.oprs.tensors[g.vars.owner[v].value].count != 0) continue;
        g.vars.shape[v] = ir::Range{};
        g.vars.dtype[v] = ir::DType::none();
    }
    return g;
}

}  // namespace mgedump::test
