// mgedump.Graph, Var and Operator: building graphs from Python (inputs, constants
// and params from numpy without copying, operators by registry name with keyword
// params) and looking into loaded ones.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "ir/describe.h"
#include "ir/error.h"
#include "ir/op_outputs.h"
#include "ir/op_registry.h"
#include "tools/python/bindings.h"
#include "tools/python/dtype_convert.h"
#include "tools/python/graph_state.h"
#include "tools/python/param_args.h"
#include "tools/python/py_util.h"

namespace mgedump::python {
namespace {

using StatePtr = std::shared_ptr<GraphState>;

// ImmutableTensor (constant) or SharedDeviceTensor (param) holding `value` in place.
Var add_value_holder(const StatePtr& s, std::string_view op, ir::TensorMethod method, std::string_view name,
                     py::handle value, py::handle dtype = py::none()) {
    const std::string what = fmt::format("{} '{}'", op, name);
    std::optional<ir::DType> as;
    if (!dtype.is_none()) as = dtype_from_py(dtype, what);
    TensorValue t = tensor_value_from_py(value, what, as);
    ir::Graph& g = s->graph();
    ir::OpOptions options;
    options.name = std::string(name);
    const ir::OprId o = s->builder.add_op(ir::find_op(op), {}, {}, options);
    const ir::BlobId blob = g.blobs.add_view(t.bytes, std::move(t.keepalive));
    const std::string_view tensor_name = method == ir::TensorMethod::ValueShared ? name : std::string_view{};
    s->builder.add_tensor(o, tensor_name, method, t.dtype, t.shape, s->comp_node, blob);
    const ir::VarId v = g.output_var(o, 0);
    g.vars.dtype[v.value] = t.dtype;
    g.vars.shape[v.value] = g.tensors.shape.back();
    return Var{s, v};
}

template <class T>
T pop_keyword(py::kwargs& kw, const char* key, T fallback) {
    if (!kw.contains(key)) return fallback;
    py::object v = kw[key];
    PyDict_DelItemString(kw.ptr(), key);
    return v.is_none() ? fallback : v.cast<T>();
}

py::object op(const StatePtr& s, const std::string& type_name_arg, const py::args& inputs, py::kwargs kw) {
    ir::Graph& g = s->graph();
    ir::OpOptions options;
    options.name = pop_keyword<std::string>(kw, "name", "");
    options.priority = pop_keyword<int32_t>(kw, "priority", 0);
    if (auto cn = pop_keyword<std::string>(kw, "comp_node", ""); !cn.empty()) options.comp_nodes = {cn};
    const py::object output_dtype = pop_keyword<py::object>(kw, "output_dtype", py::none());
    const int64_t outputs = pop_keyword<int64_t>(kw, "outputs", 0);

    const std::string label = fmt::format("operator #{} ({}{})", g.oprs.size(), type_name_arg,
                                          options.name.empty() ? "" : " '" + options.name + "'");
    const ir::OpTypeId type = ir::find_op(type_name_arg);
    if (!type.valid()) throw py::value_error(fmt::format("{}: unknown operator '{}'", label, type_name_arg));
    const ir::OpDef& def = ir::op_def(type);
    if (!output_dtype.is_none()) options.output_dtype = dtype_from_py(output_dtype, label + ": output_dtype");

    std::vector<ir::VarId> in;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const std::string what = fmt::format("{}: input {}", label, i);
        // Anything that is not a Var becomes a constant, as MegEngine's apply() does.
        in.push_back(
            py::isinstance<Var>(inputs[i])
                ? var_of(s, inputs[i], what)
                : add_value_holder(s, "ImmutableTensor", ir::TensorMethod::ValueAnonymous, "", inputs[i]).id);
    }
    if (in.size() < def.min_inputs || (def.max_inputs != ir::kAnyCount && in.size() > def.max_inputs))
        throw py::value_error(fmt::format("{}: takes {} inputs, got {}", label,
                                          def.min_inputs == def.max_inputs ? fmt::format("{}", def.min_inputs)
                                          : def.max_inputs == ir::kAnyCount
                                              ? fmt::format("at least {}", def.min_inputs)
                                              : fmt::format("{} to {}", def.min_inputs, def.max_inputs),
                                          in.size()));

    ir::ParamArgs args;
    for (auto [key, value] : kw) {
        const std::string field = py::str(key);
        args.emplace_back(field, param_arg_from_py(value, label, field));
    }
    std::vector<ir::ParamValue> params;
    try {
        params = ir::make_params(def, args, label);
    } catch (const GraphError& e) {
        throw py::value_error(e.what());  // a bad keyword argument, not a bad graph
    }
    if (outputs < 0 || outputs > 255) throw py::value_error(fmt::format("{}: outputs must be 1..255", label));
    if (outputs) {
        options.outputs = static_cast<uint32_t>(outputs);
    } else if (auto n = ir::derived_output_count(def, static_cast<uint32_t>(in.size()), params, 0)) {
        options.outputs = *n;
    } else {
        throw py::value_error(fmt::format("{}: the output count cannot be derived; give outputs=N", label));
    }
    const ir::OprId o = s->builder.add_op(type, in, std::move(params), options);
    const ir::Range r = g.oprs.outputs[o.value];
    if (r.count == 1) return py::cast(Var{s, ir::VarId(r.begin)});
    py::tuple out(r.count);
    for (uint32_t k = 0; k < r.count; ++k) out[k] = py::cast(Var{s, ir::VarId(r.begin + k)});
    return out;
}

std::optional<std::pair<ir::TensorId, ir::OprId>> tensor_of(const ir::Graph& g, ir::VarId v) {
    const ir::OprId o = g.vars.owner[v.value];
    const uint32_t k = v.value - g.oprs.outputs[o.value].begin;
    const ir::Range t = g.oprs.tensors[o.value];
    if (k >= t.count) return std::nullopt;
    return std::pair{ir::TensorId(t.begin + k), o};
}

void bind_var(py::module_& m) {
    py::class_<Var>(m, "Var", "A variable of a mgedump.Graph: an operator output.")
        .def_property(
            "name",
            [](const Var& v) {
                return std::string(v.state->graph().str(v.state->graph().vars.name[v.id.value]));
            },
            [](const Var& v, const std::string& name) {
                ir::Graph& g = v.state->graph();
                g.vars.name[v.id.value] = g.strings.intern(name);
            })
        .def_property_readonly(
            "shape",
            [](const Var& v) -> py::object {
                const ir::Graph& g = v.state->graph();
                const bool known = g.vars.shape[v.id.value].count > 0 || tensor_of(g, v.id);
                if (!known) return py::none();
                return py::tuple(
                    py::cast(std::vector<uint32_t>(g.var_shape(v.id).begin(), g.var_shape(v.id).end())));
            })
        .def_property_readonly(
            "dtype", [](const Var& v) { return dtype_to_py(v.state->graph().vars.dtype[v.id.value]); })
        .def_property_readonly("owner",
                               [](const Var& v) {
                                   return Operator{v.state, v.state->graph().vars.owner[v.id.value]};
                               })
        .def_property_readonly("graph", [](const Var& v) { return v.state; })
        .def_property_readonly(
            "value",
            [](const Var& v) -> py::object {
                const ir::Graph& g = v.state->graph();
                auto t = tensor_of(g, v.id);
                if (!t || !g.tensors.blob[t->first.value].valid()) return py::none();
                const ir::BlobId b = g.tensors.blob[t->first.value];
                return tensor_value_to_py(g.tensors.dtype[t->first.value], g.tensor_shape(t->first),
                                          g.blobs.bytes(b), g.blobs.owner(b));
            },
            "The tensor value of an input with a default, a constant or a param (read-only, not copied); "
            "else None.")
        .def("__eq__", [](const Var& a, const Var& b) { return a.state == b.state && a.id == b.id; })
        .def("__hash__", [](const Var& v) { return std::hash<const void*>{}(v.state.get()) ^ v.id.value; })
        // <mgedump.Var var 2 'y': float32 (1, 3), from operator #2 'y' (Elemwise)>
        .def("__repr__", [](py::object self) {
            const Var& v = self.cast<const Var&>();
            const ir::Graph& g = v.state->graph();
            const py::object dtype = self.attr("dtype"), shape = self.attr("shape");
            return fmt::format("<mgedump.Var {}: {} {}, from {}>", ir::describe_var(g, v.id),
                               dtype.is_none() ? "unknown dtype" : py::str(dtype).cast<std::string>(),
                               shape.is_none() ? "unknown shape" : py::repr(shape).cast<std::string>(),
                               ir::describe_opr(g, g.vars.owner[v.id.value]));
        });
}

void bind_operator(py::module_& m) {
    py::class_<Operator>(m, "Operator", "An operator of a mgedump.Graph.")
        .def_property_readonly(
            "type",
            [](const Operator& o) {
                return std::string(ir::op_def(o.state->graph().oprs.type[o.id.value]).name);
            })
        .def_property_readonly(
            "typeinfo",
            [](const Operator& o) {
                return std::string(ir::op_def(o.state->graph().oprs.type[o.id.value]).typeinfo);
            })
        .def_property_readonly(
            "name",
            [](const Operator& o) {
                return std::string(o.state->graph().str(o.state->graph().oprs.name[o.id.value]));
            })
        .def_property_readonly("priority",
                               [](const Operator& o) { return o.state->graph().oprs.priority[o.id.value]; })
        .def_property_readonly("inputs",
                               [](const Operator& o) {
                                   std::vector<Var> out;
                                   for (ir::VarId v : o.state->graph().inputs_of(o.id))
                                       out.push_back({o.state, v});
                                   return out;
                               })
        .def_property_readonly("outputs",
                               [](const Operator& o) {
                                   std::vector<Var> out;
                                   const ir::Range r = o.state->graph().oprs.outputs[o.id.value];
                                   for (uint32_t k = 0; k < r.count; ++k)
                                       out.push_back({o.state, ir::VarId(r.begin + k)});
                                   return out;
                               })
        .def_property_readonly("params",
                               [](const Operator& o) { return params_to_py(o.state->graph(), o.id); })
        .def_property_readonly(
            "tensor_names",
            [](const Operator& o) {
                const ir::Graph& g = o.state->graph();
                py::list out;
                const ir::Range t = g.oprs.tensors[o.id.value];
                for (uint32_t i = t.begin; i < t.end(); ++i)
                    out.append(g.tensors.name[i].valid() ? py::cast(std::string(g.str(g.tensors.name[i])))
                                                         : py::none());
                return out;
            },
            "Names of the operator's own tensors (None where anonymous).")
        .def("__eq__",
             [](const Operator& a, const Operator& b) { return a.state == b.state && a.id == b.id; })
        .def("__hash__",
             [](const Operator& o) { return std::hash<const void*>{}(o.state.get()) ^ o.id.value; })
        .def("__repr__", [](const Operator& o) {
            return fmt::format("<mgedump.Operator {}>", ir::describe_opr(o.state->graph(), o.id));
        });
}

template <class T>
py::object loaded_field(const StatePtr& s, T LoadedFrom::*field) {
    return s->loaded ? py::cast((*s->loaded).*field) : py::none();
}

}  // namespace

ir::VarId var_of(const StatePtr& state, py::handle value, std::string_view what) {
    if (!py::isinstance<Var>(value))
        throw py::type_error(fmt::format("{}: expected a mgedump.Var, got {}", what, type_name(value)));
    const Var& v = value.cast<const Var&>();
    if (v.state != state)
        throw py::value_error(
            fmt::format("{}: {} belongs to another graph", what, ir::describe_var(v.state->graph(), v.id)));
    return v.id;
}

void bind_graph(py::module_& m) {
    bind_var(m);
    bind_operator(m);
    py::class_<GraphState, StatePtr>(m, "Graph",
                                     "A computing graph: build it here, or get one from load_graph.")
        .def(py::init<std::string>(), py::arg("comp_node") = "xpux:0")
        .def(
            "input",
            [](const StatePtr& s, const std::string& name, py::handle shape, py::handle dtype) {
                const std::string what = fmt::format("input '{}'", name);
                return Var{s, s->builder.input(name, dtype_from_py(dtype, what), shape_from_py(shape, what))};
            },
            py::arg("name"), py::arg("shape"), py::arg("dtype") = "float32",
            "A graph input (Host2DeviceCopy): shape and dtype, no value.")
        .def(
            "const",
            [](const StatePtr& s, py::handle value, std::optional<std::string> name, py::handle dtype) {
                return add_value_holder(s, "ImmutableTensor", ir::TensorMethod::ValueAnonymous,
                                        name.value_or(""), value, dtype);
            },
            py::arg("value"), py::arg("name") = py::none(), py::arg("dtype") = py::none(),
            "A constant (ImmutableTensor) viewing `value` in place; keep the array unchanged until dumped.")
        .def(
            "param",
            [](const StatePtr& s, py::handle value, const std::string& name, py::handle dtype) {
                return add_value_holder(s, "SharedDeviceTensor", ir::TensorMethod::ValueShared, name, value,
                                        dtype);
            },
            py::arg("value"), py::arg("name"), py::arg("dtype") = py::none(),
            "A parameter (SharedDeviceTensor) viewing `value` in place; its name is kept with "
            "keep_param_name.")
        .def("op", &op, py::arg("type"),
             "op(type, *inputs, name=None, priority=0, comp_node=None, output_dtype=None, outputs=None, "
             "**params)\n\n"
             "An operator by registry name (\"Convolution\", \"Elemwise\", ...) with its params as keywords\n"
             "(enum members by name; a field two param tables share as **{\"Table.field\": v}). Inputs that "
             "are\n"
             "not Vars become constants. Returns the output Var, or a tuple of them for several outputs.")
        .def_property_readonly("operators",
                               [](const StatePtr& s) {
                                   std::vector<Operator> out;
                                   for (uint32_t i = 0; i < s->graph().oprs.size(); ++i)
                                       out.push_back({s, ir::OprId(i)});
                                   return out;
                               })
        .def_property_readonly(
            "format", [](const StatePtr& s) { return loaded_field(s, &LoadedFrom::format); },
            "For a loaded graph: \"FBS (MGBC)\", \"FBS (MGBS)\" or \"FBS_V2\"; else None.")
        .def_property_readonly("mgb_version",
                               [](const StatePtr& s) { return loaded_field(s, &LoadedFrom::mgb_version); })
        .def_property_readonly("content_hash",
                               [](const StatePtr& s) { return loaded_field(s, &LoadedFrom::content_hash); })
        .def_property_readonly("model_version",
                               [](const StatePtr& s) { return loaded_field(s, &LoadedFrom::model_version); })
        .def("__repr__", [](const StatePtr& s) {
            return fmt::format("<mgedump.Graph with {} operators{}>", s->graph().oprs.size(),
                               s->loaded ? ", loaded from " + s->loaded->format : "");
        });
}

}  // namespace mgedump::python
