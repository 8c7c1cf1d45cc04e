#include "tools/python/param_args.h"

#include <fmt/format.h>

#include <map>

#include "formats/graph_json_detail.h"
#include "ir/op_registry.h"
#include "tools/python/dtype_convert.h"
#include "tools/python/py_util.h"

namespace mgedump::python {
namespace py = pybind11;
namespace {

[[noreturn]] void bad(std::string_view label, std::string_view field, std::string_view msg) {
    throw py::value_error(fmt::format("{}: param {}: {}", label, field, msg));
}

int64_t int_item(py::handle v, int64_t lo, int64_t hi, std::string_view label, std::string_view field) {
    if (py::isinstance<py::bool_>(v) || !py::hasattr(v, "__index__"))
        bad(label, field, "expected a list of ints");
    const long long x = py::int_(py::reinterpret_borrow<py::object>(v)).cast<long long>();
    if (x < lo || x > hi) bad(label, field, fmt::format("{} is out of range [{}, {}]", x, lo, hi));
    return x;
}

bool flag(const py::dict& d, const char* key) { return d.contains(key) && truthy(d[key]); }

ir::ParamArg list_arg(const py::sequence& items, std::string_view label, std::string_view field) {
    if (items.size() > 0 && py::isinstance<py::dict>(items[0])) {
        const bool axis_desc = py::reinterpret_borrow<py::dict>(items[0]).contains("method");
        std::vector<ir::AxisDesc> axes;
        std::vector<ir::IndexDescMaskItem> masks;
        for (py::handle item : items) {
            if (!py::isinstance<py::dict>(item)) bad(label, field, "expected a list of dicts");
            py::dict d = py::reinterpret_borrow<py::dict>(item);
            if (!d.contains("axis")) bad(label, field, "every item needs \"axis\"");
            if (axis_desc) {
                const std::string method = py::str(d["method"]);
                if (method != "ADD_1" && method != "REMOVE")
                    bad(label, field,
                        fmt::format("method must be \"ADD_1\" or \"REMOVE\", got \"{}\"", method));
                axes.push_back(
                    {method == "ADD_1" ? ir::AxisDescMethod::ADD_1 : ir::AxisDescMethod::REMOVE,
                     static_cast<int32_t>(int_item(d["axis"], INT32_MIN, INT32_MAX, label, field))});
            } else {
                masks.push_back({static_cast<int8_t>(int_item(d["axis"], INT8_MIN, INT8_MAX, label, field)),
                                 flag(d, "begin"), flag(d, "end"), flag(d, "step"), flag(d, "idx")});
            }
        }
        if (axis_desc) return axes;
        return masks;
    }
    std::vector<int32_t> ints;
    for (py::handle item : items)
        ints.push_back(static_cast<int32_t>(int_item(item, INT32_MIN, INT32_MAX, label, field)));
    return ints;
}

}  // namespace

ir::ParamArg param_arg_from_py(py::handle v, std::string_view label, std::string_view field) {
    if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();
    if (py::isinstance<py::int_>(v) || (py::hasattr(v, "__index__") && !py::isinstance<py::type>(v))) {
        py::int_ i(py::reinterpret_borrow<py::object>(v));
        if (i >= py::int_(0)) {
            const auto u = i.cast<unsigned long long>();
            if (u > static_cast<unsigned long long>(INT64_MAX)) return uint64_t{u};
            return static_cast<int64_t>(u);
        }
        return static_cast<int64_t>(i.cast<long long>());
    }
    const bool is_type = py::isinstance<py::type>(v);  // np.float32 names a dtype, not a number
    if (!is_type && (py::isinstance<py::float_>(v) || py::hasattr(v, "__float__")))
        return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
    if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v))
        return list_arg(py::reinterpret_borrow<py::sequence>(v), label, field);
    if (py::isinstance<py::dict>(v))
        return dtype_from_py(v, fmt::format("{}: param {}", label, field));  // quantized
    // numpy dtypes and scalar types (np.float32) name a dtype.
    try {
        return std::string(ir::dtype_name(dtype_from_py(v, label).type));
    } catch (py::value_error&) {
        bad(label, field, fmt::format("cannot use a {} as a param value", type_name(v)));
    }
}

py::dict params_to_py(const ir::Graph& g, ir::OprId o) {
    auto params = g.params_of(o);
    std::map<std::string_view, int> uses;  // field name → how many of the operator's tables have it
    for (const ir::ParamValue& p : params)
        for (const ir::FieldDesc& f : ir::param_table(p.table).fields) ++uses[f.name];
    py::module_ json = py::module_::import("json");
    py::dict out;
    for (const ir::ParamValue& p : params) {
        const ir::ParamTableDesc& t = ir::param_table(p.table);
        for (size_t i = 0; i < t.fields.size() && i < p.fields.size(); ++i) {
            const ir::FieldDesc& f = t.fields[i];
            const std::string key =
                uses[f.name] > 1 ? fmt::format("{}.{}", t.name, f.name) : std::string(f.name);
            out[py::str(key)] = json.attr("loads")(formats::graph_json::param_to_json(p.fields[i], f).dump());
        }
    }
    return out;
}

}  // namespace mgedump::python
