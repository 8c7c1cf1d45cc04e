// mgedump.load_graph: MegEngine's load_graph (spec §11.5) for files of either format,
// load_graphs for files holding several graphs back to back (§11.3), and
// import_onnx, which gives an ONNX model the same shape of result.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>

#include "engine/load.h"
#include "formats/model_reader.h"
#include "formats/onnx/import.h"
#include "tools/python/bindings.h"
#include "tools/python/graph_state.h"
#include "tools/python/keepalive.h"
#include "tools/python/py_util.h"

namespace mgedump::python {
namespace {

PyObject* load_result_type = nullptr;

// Every graph in the source, or only the first. Paths are mapped; bytes-like objects
// are viewed in place, their export pinning them (a bytearray cannot resize).
std::vector<formats::LoadedModel> load_from_py(py::handle source, bool every_graph) {
    if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__")) {
        const std::string path = py::module_::import("os").attr("fsdecode")(source).cast<std::string>();
        py::gil_scoped_release unlocked;
        if (every_graph) return engine::load_files(path);
        std::vector<formats::LoadedModel> one;
        one.push_back(engine::load_file(path));
        return one;
    }
    py::object data =
        py::hasattr(source, "read") ? source.attr("read")() : py::reinterpret_borrow<py::object>(source);
    if (!PyObject_CheckBuffer(data.ptr()))
        throw py::type_error(fmt::format(
            "load_graph takes a path, a bytes-like object or a binary file, got {}", type_name(data)));
    auto view = std::make_unique<py::buffer_info>(py::reinterpret_borrow<py::buffer>(data).request());
    const ir::Bytes bytes(static_cast<const std::byte*>(view->ptr),
                          static_cast<size_t>(view->size * view->itemsize));
    std::shared_ptr<const void> keepalive = keep_alive(std::move(view));
    py::gil_scoped_release unlocked;
    if (every_graph) return formats::read_models(bytes, std::move(keepalive));
    std::vector<formats::LoadedModel> one;
    one.push_back(formats::read_model(bytes, std::move(keepalive)));
    return one;
}

py::object to_load_result(std::shared_ptr<GraphState> state, const ir::Metadata& metadata) {
    const ir::Graph& g = state->graph();
    py::dict by_name;
    py::list in_order;
    for (ir::VarId v : g.outputs) {
        py::object var = py::cast(Var{state, v});
        by_name[py::str(std::string(g.str(g.vars.name[v.value])))] = var;
        in_order.append(var);
    }
    return py::reinterpret_borrow<py::object>(load_result_type)(py::cast(state), by_name, in_order,
                                                                 py::cast(metadata));
}

py::object to_load_result(formats::LoadedModel& model) {
    auto state = std::make_shared<GraphState>("xpux:0");
    state->loaded = LoadedFrom{std::string(formats::model_format_name(model.format)), model.mgb_version,
                               model.hash, model.model_version};
    state->graph() = std::move(model.graph);
    // A file without metadata (MegEngine before 1.5) reads as the default metadata, as MegEngine's does.
    return to_load_result(std::move(state), model.metadata.value_or(ir::Metadata{}));
}

}  // namespace

void bind_load_graph(py::module_& m) {
    py::object type =
        py::module_::import("collections")
            .attr("namedtuple")("CompGraphLoadResult",
                                py::make_tuple("graph", "output_vars_dict", "output_vars_list", "metadata"));
    type.attr("__module__") = "mgedump";
    load_result_type = type.release().ptr();
    m.attr("CompGraphLoadResult") = py::handle(load_result_type);

    m.def(
        "load_graph", [](py::object source) { return to_load_result(load_from_py(source, false).front()); },
        py::arg("fpath"),
        R"(Load the first graph of a .mge file (FBS with MGBC or MGBS header, or FBS_V2).

fpath: a path, a bytes-like object (viewed in place, not copied) or a binary file object.
Returns CompGraphLoadResult(graph, output_vars_dict, output_vars_list, metadata), as MegEngine's
load_graph: a mgedump.Graph, the output Vars by name and in order, and a mgedump.Metadata.
Malformed files raise mgedump.SerializationError naming the byte offset or operator.)");
    m.def(
        "load_graphs",
        [](py::object source) {
            py::list out;
            for (formats::LoadedModel& model : load_from_py(source, true)) out.append(to_load_result(model));
            return out;
        },
        py::arg("fpath"),
        "Every graph of a file that holds several dumps back to back (trace.dump(append=True)), each a\n"
        "CompGraphLoadResult as load_graph returns it.");
    m.def(
        "import_onnx",
        [](py::object path, bool params_as_shared, bool fold_batch_norm,
           std::optional<std::map<std::string, std::vector<int64_t>>> input_shapes) {
            const std::string p = py::module_::import("os").attr("fsdecode")(path).cast<std::string>();
            auto state = std::make_shared<GraphState>("xpux:0");
            {
                py::gil_scoped_release unlocked;
                state->graph() = formats::import_onnx(
                    p,
                    {.params_as_shared_device_tensor = params_as_shared,
                     .fold_batch_norm = fold_batch_norm,
                     .input_shapes = input_shapes.value_or(std::map<std::string, std::vector<int64_t>>{})});
            }
            return to_load_result(std::move(state), ir::Metadata{});
        },
        py::arg("path"), py::kw_only(), py::arg("params_as_shared") = false,
        py::arg("fold_batch_norm") = true, py::arg("input_shapes") = py::none(),
        R"(Import an ONNX model (as `mgedump dump model.onnx` does) into a mgedump.Graph.

params_as_shared: initializers become named params (SharedDeviceTensor), so keep_param_name has
names to keep; otherwise anonymous constants. fold_batch_norm: fold BatchNormalization into the Conv
before it. input_shapes: {input name: [dims]} fixes those inputs' shapes (the symbolic dimensions
of a torch.onnx.export with dynamic_axes), as `mgedump dump --input-shape NAME=1x3x224x224`. Returns CompGraphLoadResult(graph, output_vars_dict, output_vars_list, metadata), ready
for dump_graph(output_vars_list). Unsupported operators raise mgedump.SerializationError naming the
node and op type.)");
}

}  // namespace mgedump::python
