#include "formats/model_reader.h"

#include <fmt/format.h>

#include <cstring>

#include "formats/fbs_readers.h"
#include "formats/testcase_file.h"
#include "ir/error.h"
#include "ir/infer.h"

namespace mgedump::formats {

std::string_view model_format_name(ModelFormat f) {
    switch (f) {
        case ModelFormat::FbsMGBC: return "FBS (MGBC)";
        case ModelFormat::FbsMGBS: return "FBS (MGBS)";
        case ModelFormat::FbsV2: return "FBS_V2";
    }
    return "?";
}

ModelFormat detect_format(ir::Bytes bytes) {
    // §2.3: the first 8 bytes as a little-endian uint64 equal to a bare magic → v1.
    if (bytes.size() >= 8) {
        uint64_t head = 0;
        for (int i = 0; i < 8; ++i) head |= uint64_t(std::to_integer<uint8_t>(bytes[i])) << (8 * i);
        if (head == 0x4342474D) return ModelFormat::FbsMGBC;
        if (head == 0x5342474D) return ModelFormat::FbsMGBS;
    }
    if (bytes.size() >= 12 && std::memcmp(bytes.data() + 8, "mgv2", 4) == 0) return ModelFormat::FbsV2;
    throw FormatError(fmt::format("invalid format: neither an FBS (MGBC/MGBS magic) nor an FBS_V2 (\"mgv2\" at "
                                  "byte 8) model ({} bytes)",
                                  bytes.size()));
}

namespace {

// MegEngine's loader rebuilds every operator with its make function, which infers
// the outputs and refuses what breaks a rule; the graph read gets the same
// dtypes and shapes. A shape the file records stays (FBS_V2 MiddleTensor).
// What MegEngine refuses only when it runs the graph is read, as its loader
// does; such a graph stays marked not inferred, so that a dump of it infers it
// again and refuses it with the rule (nothing written is a graph that fails).
void infer_loaded(ir::Graph& g) {
    ir::InferState state;
    try {
        state = ir::infer_graph(g, /*refuse_run_time_failures=*/false);
    } catch (const GraphError& e) {
        throw FormatError(fmt::format("{} (the file's graph breaks this rule; MegEngine's loader refuses it too)",
                                      e.what()));
    }
    for (uint32_t v = 0; v < g.vars.size(); ++v) {
        if (state.dtypes[v].valid) g.vars.dtype[v] = state.dtypes[v];
        if (state.shapes[v].known() && g.vars.shape[v].empty()) g.vars.shape[v] = g.add_dims(state.shapes[v].dims());
    }
    g.inferred = state.run_time_failures == 0;
}

LoadedModel read_at(ir::Bytes bytes, uint64_t base, const std::shared_ptr<const void>& keepalive) {
    ir::Bytes rest = bytes.subspan(base);
    ModelFormat f;
    try {
        f = detect_format(rest);
    } catch (const FormatError& e) {
        throw FormatError(fmt::format("at byte {}: {}", base, e.what()));
    }
    LoadedModel m = f == ModelFormat::FbsV2 ? read_fbs_v2(rest, base, keepalive) : read_fbs_v1(rest, base, keepalive);
    infer_loaded(m.graph);
    return m;
}

// A test-case file (formats/testcase_file.h) reads as its model followed by its
// test-case graphs; its 12-byte header counts towards the model's bytes.
uint64_t wrapper_bytes(ir::Bytes bytes) {
    if (testcase_count(bytes)) return kTestcaseHeaderBytes;
    if (bytes.size() >= kTestcaseMagic.size() &&
        std::memcmp(bytes.data(), kTestcaseMagic.data(), kTestcaseMagic.size()) == 0)
        throw FormatError(fmt::format("a test-case file (\"{}\") of {} bytes: too short for its test-case count",
                                      kTestcaseMagic, bytes.size()));
    return 0;
}

}  // namespace

LoadedModel read_model(ir::Bytes bytes, std::shared_ptr<const void> keepalive) {
    const uint64_t header = wrapper_bytes(bytes);
    LoadedModel m = read_at(bytes, header, keepalive);
    m.bytes_consumed += header;
    return m;
}

std::vector<LoadedModel> read_models(ir::Bytes bytes, std::shared_ptr<const void> keepalive) {
    std::vector<LoadedModel> out;
    const uint64_t header = wrapper_bytes(bytes);
    uint64_t pos = 0;
    do {
        out.push_back(read_at(bytes, pos == 0 ? header : pos, keepalive));
        if (pos == 0) out.back().bytes_consumed += header;
        pos += out.back().bytes_consumed;  // always > 0: every format has a non-empty header
    } while (pos < bytes.size());
    return out;
}

}  // namespace mgedump::formats
