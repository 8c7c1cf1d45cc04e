// Batch manifest text (JSON or JSON Lines, defaults, variants, option objects)
// through parse_manifest, then what `mgedump batch` does with a manifest it
// accepts short of touching files: duplicate-output marking, the report's option
// record, and each valid variant's options dumping a small graph (test cases
// included, since a manifest can ask for random input data).
#include <filesystem>
#include <string_view>

#include "../targets.h"
#include "engine/testcase/testcase_dump.h"
#include "exercise.h"
#include "formats/graph_json.h"
#include "jobs/manifest.h"
#include "jobs/options_json.h"

namespace mgedump::fuzz {
namespace {

const ir::Graph& small_graph() {
    static const ir::Graph g = formats::parse_graph_json(R"({"format": "mgedump-graph", "version": 1,
        "inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 4]}],
        "constants": [{"name": "w", "dtype": "Float32", "shape": [4, 4], "fill": 0.5}],
        "operators": [{"op": "MatrixMul", "name": "y", "inputs": ["x", "w"]},
                      {"op": "Elemwise", "name": "z", "inputs": ["y"], "params": {"mode": "RELU"}}],
        "outputs": ["z"]})");
    return g;
}

void dump_with(const engine::DumpOptions& options) {
    if (!options.testcases) return try_dump(small_graph(), options);
    try {
        engine::testcase::AppendSink sink;
        // One thread, as a batch worker runs it; .npy data resolves in the examples'
        // directory, so "x:weights/w_4x4_f32.npy" reads a real file.
        engine::DumpOptions o = options;
        o.testcases->data_dir = std::filesystem::path(__FILE__).parent_path() / "../../../examples";
        (void)engine::testcase::write_testcase_file(small_graph(), o, sink, {.threads = 1});
    } catch (const Error&) {
    }
}

}  // namespace

int fuzz_manifest(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    jobs::Manifest m;
    try {
        m = jobs::parse_manifest(text, "/nonexistent/mgedump-fuzz", engine::DumpOptions{}, "fuzz.jsonl");
    } catch (const Error&) {
        return 0;
    }
    jobs::mark_duplicate_outputs(m);
    for (const jobs::Job& job : m.jobs) {
        if (!job.ok()) continue;
        for (const jobs::Variant& v : job.variants) {
            (void)jobs::options_to_json(v.options);
            dump_with(v.options);
        }
    }
    return 0;
}

}  // namespace mgedump::fuzz
