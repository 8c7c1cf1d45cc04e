// What a format writer is told: the graph, which operators in which order, the
// var numbering, and every naming decision already taken by the engine. Writers
// only turn a plan into bytes; they never change the graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/serialized.h"
#include "ir/graph.h"
#include "ir/infer.h"
#include "ir/metadata.h"
#include "ir/order.h"

namespace mgedump::formats {

struct WritePlan {
    const ir::Graph& graph;
    std::vector<ir::OprId> order;
    ir::VarNumbering numbering;
    int keep_var_name = 1;
    bool keep_opr_name = false;
    bool keep_param_name = false;
    bool keep_opr_priority = false;
    bool compat_8_14 = false;    // FBS v1: MGBS header, unversioned ids, Empty CheckNonFinite param
    uint32_t model_version = 2;  // FBS_V2: registry entry selection
    uint32_t mgb_version = 0;
    ir::Metadata metadata;
    // What inference found (ir/infer.h): FBS_V2 MiddleTensors carry each var's
    // static shape, as MegEngine's dumper writes them (§6.5). Null: the shapes
    // the graph records.
    const ir::InferState* inferred = nullptr;
    // true: build as MegEngine's dumper does — FlatBuffers' default initial size,
    // regrown as it fills, default allocator, FlatBuffers' own shared-string pool
    // (the benchmarks' naive baseline). Same bytes.
    bool megengine_builder = false;
};

struct WriteStats {
    uint64_t nr_opr = 0;
    uint64_t tensor_value_bytes = 0;
    uint64_t content_hash = 0;        // v1 only
    std::vector<std::string> inputs;  // in dump order
    std::vector<std::string> params;  // VALUE_SHARED names kept, in dump order
};

// MegEngine's verifier refuses buffers with more tables than this.
inline constexpr uint64_t kMaxTables = 1'000'000;

class WriteScratch;
// With `scratch`, the FlatBuffer is built in its recycled memory and the returned
// Serialized must be destroyed before the scratch (formats/write_scratch.h).
Serialized write_fbs_v1(const WritePlan& plan, WriteStats& stats, WriteScratch* scratch = nullptr);
Serialized write_fbs_v2(const WritePlan& plan, WriteStats& stats, WriteScratch* scratch = nullptr);

}  // namespace mgedump::formats
