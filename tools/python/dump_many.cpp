// mgedump.dump_many: many dump_graph calls at once on the batch engine, GIL released.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "tools/python/bindings.h"
#include "tools/python/dump_call.h"
#include "tools/python/errors.h"

namespace mgedump::python {

void bind_dump_many(py::module_& m) {
    m.def(
        "dump_many",
        [](py::iterable jobs, py::object threads_arg) {
            unsigned threads = 0;  // every core
            if (!threads_arg.is_none()) {
                const long long n = threads_arg.cast<long long>();
                if (n < 1 || n > 4096)
                    throw py::value_error(fmt::format("threads must be None or 1..4096, got {}", n));
                threads = static_cast<unsigned>(n);
            }
            std::vector<PreparedDump> prepared;
            for (py::handle job : jobs) {
                const std::string context = fmt::format("job {}: ", prepared.size());
                prepared.push_back(prepare_dump(dump_args_from_dict(job, context), context));
            }
            std::vector<jobs::DumpJob> engine_jobs;
            engine_jobs.reserve(prepared.size());
            for (PreparedDump& p : prepared) engine_jobs.push_back(std::move(p.job));

            std::vector<jobs::DumpOutcome> outcomes;
            {
                py::gil_scoped_release unlocked;
                outcomes = jobs::dump_many(engine_jobs, threads);
            }
            for (size_t i = 0; i < prepared.size(); ++i) prepared[i].job = std::move(engine_jobs[i]);

            py::list results;
            for (size_t i = 0; i < outcomes.size(); ++i) {
                if (outcomes[i].error) rethrow_with_prefix(outcomes[i].error, fmt::format("job {}: ", i));
                results.append(finish_dump(*outcomes[i].dumped, prepared[i]));
            }
            return results;
        },
        py::arg("jobs"), py::arg("threads") = py::none(),
        R"(Run many dump_graph calls in parallel on the C++ batch engine, with the GIL released.

jobs: an iterable of dicts, each holding dump_graph's arguments by name ("output_vars" required).
threads: worker threads (None: every core). Returns a list of (bytes, CompGraphDumpResult) in job
order, byte for byte what dump_graph returns for each job, whatever the thread count. Strip-info
files are written in job order after the dumps. If a job fails, the error of the first failing job
(in job order) is raised, with "job <index>: " before its message.)");
}

}  // namespace mgedump::python
