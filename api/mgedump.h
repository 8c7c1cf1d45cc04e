// mgedump's C++ API for programs that embed it, in one header (installed as
// <mgedump/mgedump.h>, target mgedump::mgedump): build a graph with GraphBuilder,
// dump it with MegEngine's dump_graph options, read models back, run a batch
// manifest. Its types are the engine's own; none is a FlatBuffers, oneTBB or JSON
// type. Errors are the exceptions of ir/error.h, each naming what it is about.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/dump_options.h"
#include "engine/dump_result.h"
#include "formats/model_reader.h"
#include "ir/builder.h"
#include "ir/error.h"

namespace mgedump {

using engine::DumpFormat;
using engine::DumpOptions;
using engine::DumpResult;
using formats::LoadedModel;
using formats::ModelFormat;
using ir::DType;
using ir::DTypeEnum;
using ir::Graph;
using ir::GraphBuilder;
using ir::Metadata;
using ir::OpOptions;
using ir::ParamArgs;
using ir::VarId;

// The version of the library (and of the engine that stamps batch artifacts).
std::string_view version();

struct DumpedBytes {
    std::vector<std::byte> bytes;  // the whole .mge file
    DumpResult result;             // MegEngine's CompGraphDumpResult, plus the xxh3-128 digest
};

// MegEngine's dump_graph of g.outputs: checks `options` (OptionError), applies the
// compatibility rewrites to a copy, writes the strip-info file the options name.
// Throws OptionError, GraphError or LimitError; writes nothing then.
DumpedBytes dump(const Graph& g, const DumpOptions& options = {});
// The same, straight into `path`: a temporary file renamed into place when
// complete ("-" is standard output), as `mgedump dump -o` writes.
DumpResult dump_to_file(const Graph& g, const DumpOptions& options, const std::filesystem::path& path);

// What `mgedump dump` and `batch` read: graph JSON, an ONNX model (by its .onnx
// name) or a .mge file of either format (by its magic). Throws Error naming the path.
Graph read_model(const std::filesystem::path& path);
// The first graph of a .mge file (FBS v1 or FBS_V2), tensor values viewed in the
// mapped file, which the graph keeps alive; and every graph of a file with several.
LoadedModel load(const std::filesystem::path& path);
std::vector<LoadedModel> load_all(const std::filesystem::path& path);
// The first graph of a .mge file in memory (copied, so `bytes` may go).
LoadedModel load(std::span<const std::byte> bytes);

struct BatchSettings {
    std::filesystem::path out_dir;
    std::filesystem::path report;  // empty: out_dir/report.json
    unsigned threads = 0;          // 0: every core
    uint64_t memory_budget = 0;    // 0: half of physical memory
    bool incremental = false;      // skip artifacts whose stamp still matches
    DumpOptions defaults;          // what manifest entries do not set
};

struct BatchArtifact {
    enum class Status : uint8_t { Written, Skipped, Failed };
    size_t job = 0;      // manifest index
    std::string input;   // as the manifest names it
    std::string path;    // relative to out_dir
    DumpFormat format = DumpFormat::FBS_V2;
    Status status = Status::Failed;
    std::string error;   // names the model, operator and field
    DumpResult result;
};

struct BatchSummary {
    std::vector<BatchArtifact> artifacts;  // job order, then variant order
    uint64_t jobs = 0, written = 0, skipped = 0, failed = 0;
    std::filesystem::path report;          // the JSON report written
    bool ok() const { return failed == 0; }
};

// `mgedump batch INPUT -o out_dir`: INPUT is a manifest (JSON or JSON Lines) or a
// directory of models. A manifest with problems is refused before anything runs:
// OptionError listing every one. Jobs fail alone (in the summary and report).
BatchSummary run_batch(const std::filesystem::path& input, const BatchSettings& settings);

}  // namespace mgedump
