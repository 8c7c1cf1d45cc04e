// Loading .mge files (FBS v1 with MGBC or MGBS header, FBS_V2) into the IR. Every
// byte from outside passes the schema verifier (formats/fbs_verify.h) with
// MegEngine's limits before it is read, then the loader's own checks (§10): sizes
// and offsets inside the file, tensor byte counts, ids defined before use, known
// operators and matching param tables. Anything wrong is a FormatError naming what
// and where (byte offset or operator index); nothing crashes, hangs or allocates
// more than the file's size justifies.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/blobs.h"
#include "ir/graph.h"
#include "ir/metadata.h"

namespace mgedump::formats {

enum class ModelFormat : uint8_t {
    FbsMGBC,  // FBS v1, 24-byte header, full operator ids (MegEngine ≥ 1.8)
    FbsMGBS,  // FBS v1, 16-byte header, unversioned ids (≤ 1.7, or 8.14 compatibility)
    FbsV2,
};
std::string_view model_format_name(ModelFormat f);

// Dump options a file's contents reveal (what a faithful re-dump should use).
struct FileSettings {
    int keep_var_name = 0;  // v1: 2 if every operator names its outputs, 1 if some do; v2: 1 if middle_tensors
    bool keep_opr_name = false;
    bool keep_param_name = false;
    bool keep_opr_priority = false;
};

struct LoadedModel {
    // Operators in file order (a valid dump order), params, tensors (values viewed
    // in place), var names, outputs with their original_id, comp nodes, priorities,
    // output dtypes.
    ir::Graph graph;
    std::optional<ir::Metadata> metadata;  // absent in files before MegEngine 1.5
    ModelFormat format = ModelFormat::FbsV2;
    uint32_t mgb_version = 0;    // v1 Graph.mgb_version / v2 Model.mge_version
    uint64_t hash = 0;           // v1 only
    uint32_t model_version = 0;  // v2 only
    uint32_t nr_shared_tensor = 0;
    FileSettings settings;
    uint64_t bytes_consumed = 0;  // where an appended next graph starts (§11.3)
};

// §2.3, at the start of `bytes`. Throws FormatError for anything else.
ModelFormat detect_format(ir::Bytes bytes);

// The first graph in `bytes`. `keepalive` owns the memory; tensor values of the
// result view it (zero-copy), so it is held by the graph's blob store. Of a
// test-case file ("mgbtest0", §11.4: formats/testcase_file.h) the model, its
// bytes_consumed counting the 12-byte header.
LoadedModel read_model(ir::Bytes bytes, std::shared_ptr<const void> keepalive);
// Every graph in `bytes`, read back to back until the end (§11.3); of a test-case
// file the model, then its test-case graphs.
std::vector<LoadedModel> read_models(ir::Bytes bytes, std::shared_ptr<const void> keepalive);

}  // namespace mgedump::formats
