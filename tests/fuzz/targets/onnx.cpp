// ONNX ModelProto bytes through import_onnx_bytes (the protobuf wire walker of
// formats/onnx/model_file.cpp, then the importer), and a graph that imports
// through both writers.
#include <cstring>
#include <memory>
#include <vector>

#include "../targets.h"
#include "exercise.h"
#include "formats/onnx/import.h"

namespace mgedump::fuzz {

int fuzz_onnx(const uint8_t* data, size_t size) {
    // Owned like a mapped file (inline weights are viewed, not copied), as `mgedump dump m.onnx` does.
    auto image = std::make_shared<std::vector<std::byte>>(size);
    if (size) std::memcpy(image->data(), data, size);
    // Both import modes without a prefix byte the seeds would need: the length's parity picks.
    formats::OnnxImportOptions options;
    options.params_as_shared_device_tensor = size & 1;
    options.fold_batch_norm = !(size & 2);
    ir::Graph g;
    try {
        // External data must stay under base_dir; a directory that does not exist finds none.
        g = formats::import_onnx_bytes(ir::Bytes(*image), "fuzz.onnx", "/nonexistent/mgedump-fuzz", options,
                                       nullptr, image);
    } catch (const Error&) {
        return 0;
    }
    try_dump_both_formats(g);
    return 0;
}

}  // namespace mgedump::fuzz
