#include "jobs/dump_many.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <utility>

#include "engine/strip_info.h"
#include "formats/strip_info_json.h"

namespace mgedump::jobs {
namespace {

engine::Dumped dump_with(const DumpJob& job, const engine::DumpOptions& options, engine::ArtifactSink* into) {
    if (job.output_names.empty()) return engine::dump_graph(job.graph, options, nullptr, into, job.digest);
    std::vector<std::pair<std::string, ir::VarId>> named;
    named.reserve(job.output_names.size());
    for (size_t i = 0; i < job.output_names.size() && i < job.graph.outputs.size(); ++i)
        named.emplace_back(job.output_names[i], job.graph.outputs[i]);
    return engine::dump_graph(job.graph, named, options, into, job.digest);
}

}  // namespace

engine::Dumped dump_one(const DumpJob& job, engine::ArtifactSink* into) { return dump_with(job, job.options, into); }

std::vector<DumpOutcome> dump_many(std::span<const DumpJob> jobs, unsigned threads) {
    std::vector<DumpOutcome> outcomes(jobs.size());
    tbb::task_arena arena(threads ? static_cast<int>(threads) : tbb::task_arena::automatic);
    arena.execute([&] {
        tbb::parallel_for(size_t(0), jobs.size(), [&](size_t i) {
            // Several jobs may name one strip-info file (append_json), so the files
            // are written below, serially and in job order.
            engine::DumpOptions options = jobs[i].options;
            options.strip_info_file.reset();
            options.append_json = false;
            try {
                engine::check_options(jobs[i].options);
                outcomes[i].dumped = dump_with(jobs[i], options, nullptr);
            } catch (...) {
                outcomes[i].error = std::current_exception();
            }
        });
    });
    for (size_t i = 0; i < jobs.size(); ++i) {
        const engine::DumpOptions& o = jobs[i].options;
        if (!o.strip_info_file || !outcomes[i].dumped) continue;
        try {
            formats::write_strip_info_file(*o.strip_info_file, engine::compute_strip_info(jobs[i].graph),
                                           outcomes[i].dumped->result.content_hash, o.append_json);
        } catch (...) {
            outcomes[i].dumped.reset();
            outcomes[i].error = std::current_exception();
        }
    }
    return outcomes;
}

}  // namespace mgedump::jobs
