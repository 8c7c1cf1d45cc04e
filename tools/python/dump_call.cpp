#include "tools/python/dump_call.h"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <cstring>

#include "engine/dump_options.h"
#include "engine/strip_info.h"
#include "formats/strip_info_json.h"
#include "ir/error.h"
#include "tools/python/graph_state.h"
#include "tools/python/metadata.h"
#include "tools/python/py_util.h"

namespace mgedump::python {
namespace py = pybind11;
namespace {

// Made once at import; lives as long as the interpreter (module state is not torn down).
PyObject* dump_result_type = nullptr;

[[noreturn]] void value_error(std::string_view context, std::string_view msg) {
    throw py::value_error(fmt::format("{}{}", context, msg));
}

// (vars, names): names empty for the list form.
std::pair<std::vector<Var>, std::vector<std::string>> output_vars_from_py(py::handle ov,
                                                                          std::string_view context) {
    std::vector<py::handle> items;
    std::vector<std::string> names;
    if (py::isinstance<Var>(ov)) {
        items.push_back(ov);
    } else if (py::isinstance<py::dict>(ov)) {
        for (auto [key, value] : py::reinterpret_borrow<py::dict>(ov)) {
            if (!py::isinstance<py::str>(key))
                value_error(context, fmt::format("output_vars keys must be str, got {}", type_name(key)));
            names.push_back(key.cast<std::string>());
            items.push_back(value);
        }
    } else if (py::isinstance<py::list>(ov) || py::isinstance<py::tuple>(ov)) {
        for (py::handle v : ov) items.push_back(v);
    } else {
        value_error(context,
                    fmt::format("output_vars must be a Var, a list of Vars or a dict name → Var, got {}",
                                type_name(ov)));
    }
    if (items.empty()) value_error(context, "output_vars is empty: nothing to dump");
    std::vector<Var> vars;
    for (size_t i = 0; i < items.size(); ++i) {
        const std::string what = names.empty() ? fmt::format("{}output_vars[{}]", context, i)
                                               : fmt::format("{}output_vars['{}']", context, names[i]);
        if (!py::isinstance<Var>(items[i]))
            throw py::type_error(
                fmt::format("{}: expected a mgedump.Var, got {}", what, type_name(items[i])));
        const Var& first = items[0].cast<const Var&>();
        vars.push_back(Var{first.state, var_of(first.state, items[i], what)});
    }
    return {std::move(vars), std::move(names)};
}

engine::DumpFormat dump_format_from(const std::optional<std::string>& name, std::string_view context) {
    if (!name) return engine::DumpFormat::FBS_V2;  // the open-source MegEngine default
    if (auto f = engine::format_from_name(*name)) return *f;
    value_error(context, fmt::format("dump_format must be None, \"FBS\" or \"FBS_V2\", got \"{}\"", *name));
}

bool is_path(py::handle v) { return py::isinstance<py::str>(v) || py::hasattr(v, "__fspath__"); }

void write_strip_info_object(py::handle file, const formats::StripInfo& info, uint64_t hash, bool append) {
    // As MegEngine: merge only when append_json and the file has content; then
    // rewrite the file from its start.
    std::string text;
    if (append && py::len(file.attr("read")()) != 0) {
        file.attr("seek")(0);
        py::object existing = file.attr("read")();
        const std::string existing_text = existing.cast<std::string>();
        text = formats::merge_strip_info_json(existing_text, info, hash, "strip_info_file");
    } else {
        text = formats::strip_info_json(info, hash);
    }
    file.attr("seek")(0);
    file.attr("truncate")();
    const bool text_mode = py::isinstance(file, py::module_::import("io").attr("TextIOBase"));
    file.attr("write")(text_mode ? py::object(py::str(text)) : py::object(py::bytes(text)));
}

py::bytes to_py_bytes(const formats::Serialized& s) {
    PyObject* o = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(s.size()));
    if (!o) throw py::error_already_set();
    char* out = PyBytes_AS_STRING(o);
    {
        // Nobody else sees the new object yet, so the copy needs no GIL.
        py::gil_scoped_release unlocked;
        for (auto seg : s.segments()) {
            if (!seg.empty()) std::memcpy(out, seg.data(), seg.size());
            out += seg.size();
        }
    }
    return py::reinterpret_steal<py::bytes>(o);
}

}  // namespace

DumpArgs dump_args_from_dict(py::handle job, std::string_view context) {
    if (!py::isinstance<py::dict>(job))
        throw py::type_error(
            fmt::format("{}must be a dict of dump_graph arguments, got {}", context, type_name(job)));
    DumpArgs a;
    for (auto [key, v] : py::reinterpret_borrow<py::dict>(job)) {
        const std::string k = py::str(key);
        try {
            if (k == "output_vars")
                a.output_vars = py::reinterpret_borrow<py::object>(v);
            else if (k == "keep_var_name")
                a.keep_var_name = v.cast<int>();
            else if (k == "keep_opr_name")
                a.keep_opr_name = truthy(v);
            else if (k == "keep_param_name")
                a.keep_param_name = truthy(v);
            else if (k == "keep_opr_priority")
                a.keep_opr_priority = truthy(v);
            else if (k == "no_change_graph")
                a.no_change_graph = truthy(v);
            else if (k == "strip_info_file")
                a.strip_info_file = py::reinterpret_borrow<py::object>(v);
            else if (k == "append_json")
                a.append_json = truthy(v);
            else if (k == "metadata")
                a.metadata = py::reinterpret_borrow<py::object>(v);
            else if (k == "dump_format")
                a.dump_format = v.cast<std::optional<std::string>>();
            else if (k == "model_version")
                a.model_version = v.cast<int64_t>();
            else if (k == "compat_older_version")
                a.compat_older_version = v.cast<std::optional<std::string>>();
            else
                throw py::type_error(fmt::format("{}unknown dump_graph argument '{}'", context, k));
        } catch (const py::cast_error&) {
            throw py::type_error(fmt::format("{}{}: cannot use a {} here", context, k, type_name(v)));
        }
    }
    if (!a.output_vars) value_error(context, "output_vars is required");
    return a;
}

PreparedDump prepare_dump(const DumpArgs& a, std::string_view context) {
    auto [vars, names] = output_vars_from_py(a.output_vars, context);

    PreparedDump p;
    engine::DumpOptions& opt = p.job.options;
    opt.keep_var_name = a.keep_var_name;
    opt.keep_opr_name = a.keep_opr_name;
    opt.keep_param_name = a.keep_param_name;
    opt.keep_opr_priority = a.keep_opr_priority;
    opt.no_change_graph = a.no_change_graph;
    opt.dump_format = dump_format_from(a.dump_format, context);
    if (a.model_version < 0 || a.model_version > UINT32_MAX)
        value_error(context, fmt::format("model_version must be 1 or 2 for FBS_V2, got {}", a.model_version));
    opt.model_version = static_cast<uint32_t>(a.model_version);
    opt.compat_older_version = a.compat_older_version;
    opt.metadata = metadata_from_py(a.metadata, fmt::format("{}metadata", context));
    // MegEngine ignores append_json without strip_info_file; like the command line, refuse it.
    if (a.append_json && a.strip_info_file.is_none())
        value_error(context, "append_json needs strip_info_file (the file to merge the strip info into)");
    if (!a.strip_info_file.is_none()) {
        if (is_path(a.strip_info_file)) {
            opt.strip_info_file =
                py::module_::import("os").attr("fsdecode")(a.strip_info_file).cast<std::string>();
            opt.append_json = a.append_json;
        } else if (py::hasattr(a.strip_info_file, "write") && py::hasattr(a.strip_info_file, "seek")) {
            p.strip_info_object = a.strip_info_file;
            p.append_to_object = a.append_json;
        } else {
            value_error(context,
                        fmt::format("strip_info_file must be a path or a writable file object, got {}",
                                    type_name(a.strip_info_file)));
        }
    }
    try {
        engine::check_options(opt);
    } catch (const OptionError& e) {
        value_error(context, e.what());
    }

    p.job.graph = vars.front().state->graph();
    p.job.graph.outputs.clear();
    for (const Var& v : vars) p.job.graph.outputs.push_back(v.id);
    p.job.output_names = std::move(names);
    p.job.digest = engine::Digest::Skip;  // CompGraphDumpResult has no field for it
    p.source = vars.front().state;
    return p;
}

std::span<std::byte> new_bytes_for_sink(py::object& holder, uint64_t size) {
    py::gil_scoped_acquire locked;
    PyObject* o = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
    if (!o) {
        PyErr_Clear();
        throw std::bad_alloc();
    }
    holder = py::reinterpret_steal<py::object>(o);
    return {reinterpret_cast<std::byte*>(PyBytes_AS_STRING(o)), static_cast<size_t>(size)};
}

py::tuple finish_dump(const engine::Dumped& d, const PreparedDump& p, py::object bytes) {
    const engine::DumpResult& r = d.result;
    if (!p.strip_info_object.is_none())
        write_strip_info_object(p.strip_info_object, engine::compute_strip_info(p.job.graph), r.content_hash,
                                p.append_to_object);
    // After the dump, which rejects one var under two names, so a failed call renames nothing.
    ir::Graph& source = p.source->graph();
    for (size_t i = 0; i < p.job.output_names.size(); ++i)
        source.vars.name[p.job.graph.outputs[i].value] = source.strings.intern(p.job.output_names[i]);
    for (const std::string& w : r.warnings)
        if (PyErr_WarnEx(PyExc_RuntimeWarning, w.c_str(), 1) != 0) throw py::error_already_set();
    py::object result = py::reinterpret_borrow<py::object>(dump_result_type)(
        r.nr_opr, r.tot_bytes, r.tensor_value_bytes, r.content_hash, py::cast(r.inputs), py::cast(r.outputs),
        py::cast(r.params));
    if (bytes.is_none()) bytes = to_py_bytes(d.bytes);
    return py::make_tuple(std::move(bytes), result);
}

void bind_dump_result(py::module_& m) {
    py::object type = py::module_::import("collections")
                          .attr("namedtuple")("CompGraphDumpResult",
                                              py::make_tuple("nr_opr", "tot_bytes", "tensor_value_bytes",
                                                             "content_hash", "inputs", "outputs", "params"));
    type.attr("__module__") = "mgedump";
    dump_result_type = type.release().ptr();
    m.attr("CompGraphDumpResult") = py::handle(dump_result_type);
}

}  // namespace mgedump::python
