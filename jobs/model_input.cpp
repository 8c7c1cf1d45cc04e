#include "jobs/model_input.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <string_view>

#include "engine/load.h"
#include "formats/graph_json.h"
#include "formats/model_reader.h"
#include "formats/onnx/import.h"
#include "ir/error.h"
#include "ir/xxh3_dispatch.h"

namespace mgedump::jobs {
namespace {

namespace fs = std::filesystem;

// By magic first (a model named .json is still a model); what has none is graph
// JSON unless it is named .mge, where the model reader's error says more.
bool is_model(ir::Bytes b, const fs::path& path) {
    try {
        formats::detect_format(b);
        return true;
    } catch (const FormatError&) {
        return path.extension() == ".mge";
    }
}

// Every "npy": "<path>" value in a graph JSON text. Only for the estimate: a miss
// makes the estimate low, never the output wrong.
uint64_t npy_bytes(std::string_view text, const fs::path& base) {
    uint64_t total = 0;
    for (size_t at = text.find("\"npy\""); at != std::string_view::npos; at = text.find("\"npy\"", at + 5)) {
        size_t q1 = text.find('"', text.find(':', at + 5));
        size_t q2 = q1 == std::string_view::npos ? q1 : text.find('"', q1 + 1);
        if (q2 == std::string_view::npos) break;
        fs::path p(text.substr(q1 + 1, q2 - q1 - 1));
        std::error_code ec;
        uint64_t n = fs::file_size(p.is_absolute() ? p : base / p, ec);
        if (!ec) total += n;
    }
    return total;
}

// The model file's digest alone, or with side files xxh3-128 over it and each
// side file's name and digest.
std::string onnx_digest(const std::string& model_digest, const std::vector<fs::path>& side_files) {
    if (side_files.empty()) return model_digest;
    ir::Xxh3State state;
    state.update(model_digest.data(), model_digest.size());
    for (const fs::path& p : side_files) {
        std::string name = p.filename().string();
        state.update(name.data(), name.size() + 1);
        const std::string side = engine::file_digest(engine::map_file(p.string()));
        state.update(side.data(), side.size());
    }
    return ir::xxh3_128_hex(state.digest());
}

}  // namespace

bool is_onnx_input(const fs::path& path) { return path.extension() == ".onnx"; }

ModelInput read_model_input(const fs::path& path, engine::ReadBuffers* buffers,
                            const formats::OnnxImportOptions& onnx, const formats::SideFileCheck& check_side_file) {
    engine::MappedFile file = engine::map_file(path.string(), buffers);
    ModelInput in;
    in.file_bytes = file.bytes.size();
    try {
        in.input_digest = engine::file_digest(file);
    } catch (const Error& e) {
        throw Error(fmt::format("{}: {}", path.string(), e.what()));
    }
    // ONNX has no magic number: known by name. Its weights may live in side files,
    // which the digest covers too, so --incremental sees a change to any of them.
    if (is_onnx_input(path)) {
        std::vector<fs::path> side_files;
        formats::OnnxImportOptions import = onnx;
        import.check_side_file = check_side_file;
        in.graph = formats::import_onnx_bytes(file.bytes, path.string(),
                                              path.parent_path().empty() ? fs::path(".") : path.parent_path(),
                                              import, &side_files, file.owner);
        // Inline weights are views into the file: a dump into a file preads them.
        in.graph.blobs.note_file_regions(file.owner, file.bytes, file.device, file.inode, file.fd);
        in.file_digest = onnx_digest(in.input_digest, side_files);
        in.dependencies = std::move(side_files);
        return in;
    }
    in.file_digest = in.input_digest;
    if (!is_model(file.bytes, path)) {
        std::string_view text(reinterpret_cast<const char*>(file.bytes.data()), file.bytes.size());
        formats::GraphJsonReadOptions o;
        o.label = path.string();
        o.base_dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
        o.npy_files_read = &in.dependencies;
        o.check_side_file = check_side_file;
        in.graph = formats::parse_graph_json(text, o);
        return in;
    }
    try {
        formats::LoadedModel m = formats::read_model(file.bytes, file.owner);
        in.graph = std::move(m.graph);
        in.graph.blobs.note_file_regions(file.owner, file.bytes, file.device, file.inode, file.fd);
        in.metadata = m.metadata;
    } catch (const FormatError& e) {
        throw FormatError(fmt::format("{}: {}", path.string(), e.what()));
    }
    return in;
}

uint64_t estimate_footprint(const fs::path& path, size_t variants) {
    constexpr uint64_t kOverhead = 64 << 10;  // tables, names, buffers of a tiny model
    std::error_code ec;
    uint64_t size = fs::file_size(path, ec);
    if (ec) return kOverhead;
    uint64_t values = size;
    if (path.extension() == ".json") {
        try {
            engine::MappedFile f = engine::map_file(path.string());
            values += npy_bytes(std::string_view(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size()),
                                path.parent_path());
        } catch (const Error&) {
        }
    }
    return kOverhead + values * (1 + variants);
}

}  // namespace mgedump::jobs
