// One dump_graph call, shared by dump_graph and dump_many: the Python arguments
// (with MegEngine's defaults), turned into an engine job, and the engine's answer
// turned back into (bytes, CompGraphDumpResult).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/dump.h"
#include "jobs/dump_many.h"
#include "tools/python/graph_state.h"

namespace mgedump::python {

// dump_graph's parameters and defaults (../shared/seed/dump_graph-docstring.txt).
struct DumpArgs {
    pybind11::object output_vars;
    int keep_var_name = 1;
    bool keep_opr_name = false;
    bool keep_param_name = false;
    bool keep_opr_priority = false;
    bool no_change_graph = false;
    pybind11::object strip_info_file = pybind11::none();
    bool append_json = false;
    pybind11::object metadata = pybind11::none();
    std::optional<std::string> dump_format;
    int64_t model_version = 2;
    std::optional<std::string> compat_older_version;
};

// dump_many's job dicts: every key a dump_graph parameter name. Throws TypeError
// for unknown keys and ValueError when output_vars is missing, naming `context`.
DumpArgs dump_args_from_dict(pybind11::handle job, std::string_view context);

struct PreparedDump {
    jobs::DumpJob job;
    // A writable file object for the strip info; paths go into job.options.
    pybind11::object strip_info_object = pybind11::none();
    bool append_to_object = false;
    // The caller's graph: the dict form renames its vars, as MegEngine's does.
    std::shared_ptr<GraphState> source;
};

// Checks every argument as MegEngine does (ValueError with the reason, prefixed by
// `context`) and copies the graph with the requested outputs.
PreparedDump prepare_dump(const DumpArgs& args, std::string_view context);

// (bytes, CompGraphDumpResult); writes the strip info to a file object, renames the
// caller's vars for the dict form and turns the engine's warnings into Python
// RuntimeWarnings. `bytes`: the bytes object a sink filled (new_bytes_for_sink);
// None: the bytes are copied from `dumped`.
pybind11::tuple finish_dump(const engine::Dumped& dumped, const PreparedDump& prepared,
                            pybind11::object bytes = pybind11::none());

// For an engine::BufferSink run without the GIL: takes the GIL, makes a bytes
// object of `size` into `holder` and returns its buffer, which nobody else sees
// until the dump returns.
std::span<std::byte> new_bytes_for_sink(pybind11::object& holder, uint64_t size);

// The namedtuple type, made once at import.
void bind_dump_result(pybind11::module_& m);

}  // namespace mgedump::python
