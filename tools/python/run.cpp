// mgedump.run: execute a model with the reference evaluator (engine/eval) and
// get its outputs as numpy arrays, as `mgedump run` writes them to .npy files.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "engine/eval/evaluator.h"
#include "formats/model_reader.h"
#include "ir/infer/shape_util.h"
#include "jobs/model_input.h"
#include "tools/python/bindings.h"
#include "tools/python/dtype_convert.h"
#include "tools/python/graph_state.h"
#include "tools/python/keepalive.h"
#include "tools/python/py_util.h"

namespace mgedump::python {
namespace {

// The graph to run and, for vars of a Python graph, the outputs asked for.
ir::Graph graph_from_py(py::handle model) {
    if (py::isinstance<py::str>(model) || py::hasattr(model, "__fspath__")) {
        const std::string path = py::module_::import("os").attr("fsdecode")(model).cast<std::string>();
        py::gil_scoped_release unlocked;
        return jobs::read_model_input(path).graph;  // .mge by its magic, else graph JSON or ONNX
    }
    std::vector<Var> vars;
    if (py::isinstance<Var>(model)) vars.push_back(model.cast<Var>());
    else if (py::hasattr(model, "output_vars_list")) vars = model.attr("output_vars_list").cast<std::vector<Var>>();
    else if (py::isinstance<py::list>(model) || py::isinstance<py::tuple>(model)) {
        for (py::handle h : model) {
            if (!py::isinstance<Var>(h))
                throw py::type_error(fmt::format("run: a list of outputs must hold mgedump.Var, got {}", type_name(h)));
            vars.push_back(h.cast<Var>());
        }
    } else if (PyObject_CheckBuffer(model.ptr())) {
        py::buffer_info view = py::reinterpret_borrow<py::buffer>(model).request();
        auto copy = std::make_shared<std::vector<std::byte>>(static_cast<const std::byte*>(view.ptr),
                                                              static_cast<const std::byte*>(view.ptr) + view.size * view.itemsize);
        return formats::read_model(*copy, copy).graph;
    } else {
        throw py::type_error(fmt::format(
            "run takes a path, the bytes of a .mge file, a load_graph result, or output Vars; got {}", type_name(model)));
    }
    if (vars.empty()) throw py::value_error("run: no outputs given");
    for (const Var& v : vars)
        if (v.state != vars.front().state) throw py::value_error("run: every output must belong to the same graph");
    ir::Graph g = vars.front().state->graph();
    g.outputs.clear();
    for (const Var& v : vars) g.outputs.push_back(v.id);
    return g;
}

engine::eval::Feeds feeds_from_py(const ir::Graph& g, py::handle inputs, std::optional<uint64_t> seed) {
    engine::eval::Feeds feeds;
    if (seed) feeds = engine::eval::random_feeds(g, *seed);
    if (inputs.is_none()) return feeds;
    if (!py::isinstance<py::dict>(inputs))
        throw py::type_error(fmt::format("run: inputs must be a dict of name to array, got {}", type_name(inputs)));
    const auto graph_inputs = engine::eval::graph_inputs(g);
    for (auto [key, value] : inputs.cast<py::dict>()) {
        const std::string name = py::str(key);
        auto it = std::find_if(graph_inputs.begin(), graph_inputs.end(), [&](const auto& in) { return in.name == name; });
        if (it == graph_inputs.end()) {
            std::string names;
            for (const auto& in : graph_inputs) names += (names.empty() ? "" : ", ") + in.name;
            throw py::value_error(fmt::format("run: the model has no input '{}' (its inputs: {})", name,
                                              names.empty() ? "none" : names));
        }
        TensorValue v = tensor_value_from_py(value, fmt::format("input '{}'", name), it->dtype);
        ir::Shape shape = v.shape.empty() ? ir::Shape::of({1}) : ir::Shape::of(v.shape);
        if (it->shape.known() && !(shape == it->shape))
            throw py::value_error(fmt::format("run: input '{}' is {} {}, the array is {}", name,
                                              ir::dtype_string(it->dtype), ir::shape_string(it->shape),
                                              ir::shape_string(shape)));
        feeds.insert_or_assign(name, engine::eval::Tensor::copy_of(it->dtype, shape, v.bytes));
    }
    return feeds;
}

}  // namespace

void bind_run(py::module_& m) {
    m.def(
        "run",
        [](py::object model, py::object inputs, std::optional<uint64_t> random_seed, int threads) {
            if (threads < 0) throw py::value_error("run: threads must be >= 0");
            ir::Graph g = graph_from_py(model);
            engine::eval::Feeds feeds = feeds_from_py(g, inputs, random_seed);
            std::vector<engine::eval::EvalOutput> outputs;
            {
                py::gil_scoped_release unlocked;
                outputs = engine::eval::evaluate(g, feeds, engine::eval::EvalOptions{.threads = threads});
            }
            py::dict result;
            for (auto& o : outputs) {
                auto owner = std::make_shared<engine::eval::Tensor>(o.value);
                result[py::str(o.name)] =
                    tensor_value_to_py(owner->dtype(), owner->shape().dims(), owner->bytes(), owner);
            }
            return result;
        },
        py::arg("model"), py::arg("inputs") = py::none(), py::kw_only(), py::arg("random_seed") = py::none(),
        py::arg("threads") = 0,
        R"(Execute a model with mgedump's reference evaluator (MegEngine's semantics, on the CPU).

model: a path (.mge of either format, graph JSON or .onnx), the bytes of a .mge file, a
load_graph()/import_onnx() result, or the output Var(s) of a mgedump.Graph.
inputs: {input name: numpy array}; each must have the input's dtype and shape (quantized inputs
as their storage integers). random_seed: deterministic values for every input not given.
Returns {output name: numpy array} in output order (an output without a name is "output<i>").
An operator without a kernel, or an input missing or of the wrong shape, raises an error naming it.)");
}

}  // namespace mgedump::python
