// mgedump.dump_graph: MegEngine's signature, defaults, checks and return value.
#include <pybind11/stl.h>

#include "tools/python/bindings.h"
#include "tools/python/dump_call.h"

namespace mgedump::python {

void bind_dump_graph(py::module_& m) {
    bind_dump_result(m);
    const DumpArgs defaults;
    m.def(
        "dump_graph",
        [](py::object output_vars, int keep_var_name, bool keep_opr_name, bool keep_param_name,
           bool keep_opr_priority, bool no_change_graph, py::object strip_info_file, bool append_json,
           py::object metadata, std::optional<std::string> dump_format, int64_t model_version,
           std::optional<std::string> compat_older_version) {
            const DumpArgs args{std::move(output_vars),
                                keep_var_name,
                                keep_opr_name,
                                keep_param_name,
                                keep_opr_priority,
                                no_change_graph,
                                std::move(strip_info_file),
                                append_json,
                                std::move(metadata),
                                std::move(dump_format),
                                model_version,
                                std::move(compat_older_version)};
            const PreparedDump prepared = prepare_dump(args, "");
            // The artifact pass writes straight into the bytes object it returns:
            // each weight is read once, and no second copy follows the dump.
            py::object out = py::none();
            engine::BufferSink into([&out](uint64_t size) { return new_bytes_for_sink(out, size); });
            engine::Dumped dumped;
            {
                py::gil_scoped_release unlocked;
                dumped = jobs::dump_one(prepared.job, &into);
            }
            return finish_dump(dumped, prepared, std::move(out));
        },
        py::arg("output_vars"), py::kw_only(), py::arg("keep_var_name") = defaults.keep_var_name,
        py::arg("keep_opr_name") = defaults.keep_opr_name,
        py::arg("keep_param_name") = defaults.keep_param_name,
        py::arg("keep_opr_priority") = defaults.keep_opr_priority,
        py::arg("no_change_graph") = defaults.no_change_graph,
        py::arg("strip_info_file") = defaults.strip_info_file, py::arg("append_json") = defaults.append_json,
        py::arg("metadata") = defaults.metadata, py::arg("dump_format") = defaults.dump_format,
        py::arg("model_version") = defaults.model_version,
        py::arg("compat_older_version") = defaults.compat_older_version,
        R"(Serialize the computing graph of `output_vars` and get the byte result.

output_vars: Vars that are the graph's end points: a list, or a dict name -> Var (each var is renamed
to its key). keep_var_name: 0 none, 1 (default) output vars, 2 all vars. keep_opr_name,
keep_param_name, keep_opr_priority: keep operator names, param names, operator priorities.
no_change_graph: skip the compatibility rewrites. strip_info_file: a path or a writable file object
for the code-strip JSON; append_json merges into it. metadata: a mgedump.Metadata or a dict of its
fields. dump_format: None or "FBS_V2" (default), or "FBS". model_version: FBS_V2 only, 1 or 2.
compat_older_version: only "8.14" (needs dump_format="FBS").

Returns (bytes, CompGraphDumpResult(nr_opr, tot_bytes, tensor_value_bytes, content_hash, inputs,
outputs, params)). Bad options raise ValueError; graph and format errors mgedump.SerializationError.)");
}

}  // namespace mgedump::python
