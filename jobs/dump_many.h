// Many graphs dumped into memory at once (the Python module's dump_many): the dumps
// run in parallel on oneTBB; strip-info files are written afterwards, in job order,
// so outcomes and files are the same for any thread count.
#pragma once

#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/dump.h"
#include "ir/graph.h"

namespace mgedump::jobs {

struct DumpJob {
    ir::Graph graph;  // graph.outputs: the requested outputs, in order
    // MegEngine's dict form: one name per output, each var renamed to it before
    // dumping. Empty: the list form, vars keep their names.
    std::vector<std::string> output_names;
    engine::DumpOptions options;
    engine::Digest digest = engine::Digest::Compute;
};

struct DumpOutcome {
    std::optional<engine::Dumped> dumped;
    std::exception_ptr error;  // set when `dumped` is not
};

// One job, strip-info file included; throws what engine::dump_graph throws.
// With `into`, the artifact goes there (engine::dump_graph's sink form).
engine::Dumped dump_one(const DumpJob& job, engine::ArtifactSink* into = nullptr);

// Outcomes in job order. `threads` 0: every core. A failing job leaves the others
// untouched; its strip-info file is not written.
std::vector<DumpOutcome> dump_many(std::span<const DumpJob> jobs, unsigned threads);

}  // namespace mgedump::jobs
