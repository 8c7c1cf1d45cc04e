#include "tools/python/metadata.h"

#include <fmt/format.h>
#include <pybind11/operators.h>

#include <string>

#include "tools/python/bindings.h"
#include "tools/python/py_util.h"

namespace mgedump::python {
namespace {

std::string user_info_from_py(py::handle v, std::string_view what) {
    if (py::isinstance<py::bytes>(v)) return v.cast<std::string>();
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();  // UTF-8, as MegEngine encodes str
    if (PyByteArray_Check(v.ptr()))
        return py::bytes(py::reinterpret_borrow<py::object>(v)).cast<std::string>();
    throw py::value_error(fmt::format("{}: user_info must be bytes or str, got {}", what, type_name(v)));
}

uint64_t optimize_options_from_py(py::handle v, std::string_view what) {
    if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v))
        throw py::value_error(fmt::format("{}: optimize_options must be an int", what));
    py::int_ i = py::reinterpret_borrow<py::int_>(v);
    if (i < py::int_(0) || i > py::int_(UINT64_MAX))
        throw py::value_error(fmt::format("{}: optimize_options must fit in 64 unsigned bits, got {}", what,
                                          py::str(i).cast<std::string>()));
    return i.cast<uint64_t>();
}

}  // namespace

std::optional<ir::Metadata> metadata_from_py(py::handle value, std::string_view what) {
    if (value.is_none()) return std::nullopt;
    if (py::isinstance<ir::Metadata>(value)) return value.cast<ir::Metadata>();
    if (!py::isinstance<py::dict>(value))
        throw py::value_error(
            fmt::format("{} must be None, a mgedump.Metadata or a dict, got {}", what, type_name(value)));
    ir::Metadata m;
    for (auto [key, v] : py::reinterpret_borrow<py::dict>(value)) {
        const std::string k = py::str(key);
        const std::string field = fmt::format("{}['{}']", what, k);
        if (k == "is_valid")
            m.is_valid = truthy(v);
        else if (k == "graph_modified")
            m.graph_modified = truthy(v);
        else if (k == "user_info")
            m.user_info = user_info_from_py(v, field);
        else if (k == "optimize_options")
            m.optimize_options = optimize_options_from_py(v, field);
        else
            throw py::value_error(
                fmt::format("{}: unknown metadata field '{}' (known: is_valid, graph_modified, "
                            "user_info, optimize_options)",
                            what, k));
    }
    return m;
}

void bind_metadata(py::module_& m) {
    py::class_<ir::Metadata>(
        m, "Metadata", "MegEngine's SerializationMetadata: written with every dump, read back by load_graph.")
        .def(py::init(
                 [](bool is_valid, bool graph_modified, py::object user_info, py::object optimize_options) {
                     ir::Metadata md;
                     md.is_valid = is_valid;
                     md.graph_modified = graph_modified;
                     md.user_info = user_info_from_py(user_info, "Metadata");
                     md.optimize_options = optimize_options_from_py(optimize_options, "Metadata");
                     return md;
                 }),
             py::kw_only(), py::arg("is_valid") = false, py::arg("graph_modified") = false,
             py::arg("user_info") = py::bytes(), py::arg("optimize_options") = 0)
        .def_readwrite("is_valid", &ir::Metadata::is_valid)
        .def_readwrite("graph_modified", &ir::Metadata::graph_modified)
        .def_property(
            "user_info", [](const ir::Metadata& md) { return py::bytes(md.user_info); },
            [](ir::Metadata& md, py::handle v) { md.user_info = user_info_from_py(v, "Metadata.user_info"); })
        .def_property(
            "optimize_options", [](const ir::Metadata& md) { return md.optimize_options; },
            [](ir::Metadata& md, py::handle v) {
                md.optimize_options = optimize_options_from_py(v, "Metadata.optimize_options");
            })
        // What MegEngine's loader reports (spec §6.9).
        .def_property_readonly("optimized_for_inference",
                               [](const ir::Metadata& md) { return md.optimize_options != 0; })
        .def(py::self == py::self)
        .def("__repr__", [](const ir::Metadata& md) {
            return fmt::format("Metadata(is_valid={}, graph_modified={}, user_info={}, optimize_options={})",
                               md.is_valid ? "True" : "False", md.graph_modified ? "True" : "False",
                               py::repr(py::bytes(md.user_info)).cast<std::string>(), md.optimize_options);
        });
}

}  // namespace mgedump::python
