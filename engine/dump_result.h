// What a dump reports: MegEngine's CompGraphDumpResult (spec §7) plus a digest
// of the whole artifact so CI can compare artifacts of either format by one value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mgedump::engine {

struct DumpResult {
    uint64_t nr_opr = 0;
    uint64_t tot_bytes = 0;
    uint64_t tensor_value_bytes = 0;
    uint64_t content_hash = 0;         // v1 Graph.hash; 0 for FBS_V2, as MegEngine
    std::vector<std::string> inputs;   // sorted
    std::vector<std::string> outputs;  // "unnamed<i>" when var names are not kept
    std::vector<std::string> params;   // VALUE_SHARED names in dump order, with keep_param_name
    std::string xxh3_128;              // hex digest of the written bytes
    std::vector<std::string> warnings; // e.g. non-finite float32 parameter values
    // With DumpOptions::dedup_params: holder operators merged away and value bytes not written.
    uint64_t dedup_tensors_saved = 0;
    uint64_t dedup_bytes_saved = 0;
    // Of tot_bytes, how many the artifact pass preread from input files instead of
    // copying from their mapping (engine/artifact_pass.h).
    uint64_t bytes_read_from_files = 0;
};

}  // namespace mgedump::engine
