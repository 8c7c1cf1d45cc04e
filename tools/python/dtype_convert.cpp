#include "tools/python/dtype_convert.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "formats/graph_json_detail.h"
#include "ir/error.h"
#include "tools/python/keepalive.h"
#include "tools/python/py_util.h"

namespace mgedump::python {
namespace py = pybind11;
namespace {

// numpy's view of the MegEngine dtypes it can hold (kind and item size).
struct NumpyType {
    ir::DTypeEnum type;
    char kind;
    int itemsize;
    const char* name;
};
constexpr std::array kNumpyTypes{
    NumpyType{ir::DTypeEnum::Float32, 'f', 4, "float32"},
    NumpyType{ir::DTypeEnum::Float16, 'f', 2, "float16"},
    NumpyType{ir::DTypeEnum::Int8, 'i', 1, "int8"},
    NumpyType{ir::DTypeEnum::Int16, 'i', 2, "int16"},
    NumpyType{ir::DTypeEnum::Int32, 'i', 4, "int32"},
    NumpyType{ir::DTypeEnum::Uint8, 'u', 1, "uint8"},
    NumpyType{ir::DTypeEnum::Uint16, 'u', 2, "uint16"},
    NumpyType{ir::DTypeEnum::Bool, 'b', 1, "bool"},
    NumpyType{ir::DTypeEnum::Complex64, 'c', 8, "complex64"},
};
// Quantized values are stored as plain integers; their numpy view uses that storage type.
constexpr std::array<std::pair<ir::DTypeEnum, const char*>, 4> kQuantizedStorage{{
    {ir::DTypeEnum::QuantizedS8, "int8"},
    {ir::DTypeEnum::Quantized8Asymm, "uint8"},
    {ir::DTypeEnum::QuantizedS16, "int16"},
    {ir::DTypeEnum::QuantizedS32, "int32"},
}};

const char* numpy_name(ir::DTypeEnum t) {
    for (const NumpyType& n : kNumpyTypes)
        if (n.type == t) return n.name;
    return nullptr;
}

// The numpy type values of `t` are stored as; nullptr for sub-byte and numpy-less types.
const char* storage_name(ir::DTypeEnum t) {
    for (const auto& [q, s] : kQuantizedStorage)
        if (q == t) return s;
    return numpy_name(t);
}

std::string supported_list() {
    std::string s;
    for (const NumpyType& n : kNumpyTypes) s += fmt::format("{}{}", s.empty() ? "" : ", ", n.name);
    return s;
}

std::optional<ir::DTypeEnum> from_numpy(const py::dtype& d) {
    for (const NumpyType& n : kNumpyTypes)
        if (n.kind == d.kind() && n.itemsize == static_cast<int>(d.itemsize())) return n.type;
    return std::nullopt;
}

// `arr` as numpy type `to`, refusing what the cast would change beyond rounding: an
// integer that does not fit (2**40 as int32 would be 0), a fraction or NaN cast to
// an integer type, a finite value that overflows a float type (1e300 as float32
// would be inf). numpy's own overflow warnings are silenced: this says it as an error.
py::object converted_exactly(const py::module_& np, const py::object& arr, const char* to, std::string_view what) {
    const py::dtype target(to);
    py::object errstate = np.attr("errstate")(py::arg("all") = "ignore");
    errstate.attr("__enter__")();
    py::object out, bad;
    try {
        out = arr.attr("astype")(target);
        const char kind = target.kind();
        if (kind == 'i' || kind == 'u' || kind == 'b')
            bad = np.attr("not_equal")(out, arr);
        else if (kind == 'f' && arr.attr("dtype").attr("kind").cast<std::string>() != "c")
            bad = np.attr("logical_and")(np.attr("isinf")(out), np.attr("isfinite")(arr));
    } catch (py::error_already_set& e) {  // e.g. a Python int beyond 64 bits, held as an object array
        errstate.attr("__exit__")(py::none(), py::none(), py::none());
        throw py::value_error(fmt::format("{}: values cannot be {}: {}", what, to, e.what()));
    }
    errstate.attr("__exit__")(py::none(), py::none(), py::none());
    if (!bad.is_none() && np.attr("any")(bad).cast<bool>()) {
        const py::object at = np.attr("flatnonzero")(bad)[py::int_(0)];
        const py::object value = arr.attr("flat")[at], became = out.attr("flat")[at];
        throw py::value_error(fmt::format("{}: value {} (element {}) does not fit {}: it would become {}", what,
                                          py::repr(value.attr("item")()).cast<std::string>(),
                                          at.cast<long long>(), to,
                                          py::repr(became.attr("item")()).cast<std::string>()));
    }
    return out;
}

}  // namespace

ir::DType dtype_from_py(py::handle value, std::string_view what) {
    if (py::isinstance<py::dict>(
            value)) {  // {"dtype": "QuantizedS8", "scale": s[, "zero_point": z]}, as graph JSON
        const std::string text = py::module_::import("json").attr("dumps")(value).cast<std::string>();
        try {
            return formats::graph_json::parse_dtype(formats::graph_json::Json::parse(text), nullptr, nullptr,
                                                    what);
        } catch (const FormatError& e) {
            throw py::value_error(e.what());
        }
    }
    if (py::isinstance<py::str>(value)) {
        const std::string s = value.cast<std::string>();
        if (auto t = ir::dtype_from_name(s)) {
            if (ir::dtype_is_quantized(*t))
                throw py::value_error(
                    fmt::format("{}: quantized dtype {} needs a scale: give "
                                "{{\"dtype\": \"{}\", \"scale\": s}}",
                                what, s, s));
            return ir::DType::of(*t);
        }
    }
    py::dtype d;
    try {
        d = py::dtype::from_args(py::reinterpret_borrow<py::object>(value));
    } catch (py::error_already_set&) {
        throw py::value_error(
            fmt::format("{}: {} is not a dtype", what, py::repr(value).cast<std::string>()));
    }
    auto t = from_numpy(d);
    if (!t)
        throw py::value_error(fmt::format("{}: numpy dtype {} has no MegEngine equivalent (supported: {})",
                                          what, py::str(d).cast<std::string>(), supported_list()));
    return ir::DType::of(*t);
}

py::object dtype_to_py(const ir::DType& d) {
    if (!d.valid) return py::none();
    if (const char* n = numpy_name(d.type)) return py::dtype(n);
    return py::module_::import("json").attr("loads")(formats::graph_json::dtype_to_json(d).dump());
}

TensorValue tensor_value_from_py(py::handle value, std::string_view what,
                                 const std::optional<ir::DType>& dtype) {
    py::module_ np = py::module_::import("numpy");
    py::object arr = np.attr("asarray")(value);
    py::dtype d = arr.attr("dtype").cast<py::dtype>();
    const char* storage = dtype ? storage_name(dtype->type) : nullptr;
    if (dtype && !storage)
        throw py::value_error(fmt::format("{}: values of dtype {} cannot be given from numpy", what,
                                          ir::dtype_name(dtype->type)));
    if (dtype && ir::dtype_is_quantized(dtype->type)) {
        // Quantized values are the stored integers; converting them would change their meaning.
        if (!d.equal(py::dtype(storage)))
            throw py::value_error(fmt::format("{}: {} values must be a numpy {} array, got {}", what,
                                              ir::dtype_name(dtype->type), storage,
                                              py::str(d).cast<std::string>()));
    } else if (dtype) {
        if (!d.equal(py::dtype(storage))) arr = converted_exactly(np, arr, storage, what);
    } else if (d.kind() == 'f' &&
               d.itemsize() == 8) {  // MegEngine has no 64-bit types; it narrows as its Tensor does
        arr = converted_exactly(np, arr, "float32", what);
    } else if ((d.kind() == 'i' || d.kind() == 'u') && d.itemsize() == 8) {
        arr = converted_exactly(np, arr, "int32", what);
    } else if (!d.attr("isnative").cast<bool>()) {
        arr = arr.attr("astype")(d.attr("newbyteorder")("="));
    }
    if (!arr.attr("flags").attr("c_contiguous").cast<bool>()) arr = np.attr("ascontiguousarray")(arr);
    d = arr.attr("dtype").cast<py::dtype>();

    auto t = from_numpy(d);
    if (!t)
        throw py::value_error(fmt::format("{}: numpy dtype {} has no MegEngine equivalent (supported: {})",
                                          what, py::str(d).cast<std::string>(), supported_list()));
    TensorValue out;
    out.dtype = dtype.value_or(ir::DType::of(*t));
    out.shape = shape_from_py(arr.attr("shape"), what);
    py::array a = py::reinterpret_borrow<py::array>(arr);
    out.bytes = ir::Bytes(static_cast<const std::byte*>(a.data()), static_cast<size_t>(a.nbytes()));
    out.keepalive = keep_alive(std::make_unique<py::object>(std::move(arr)));
    return out;
}

py::array tensor_value_to_py(const ir::DType& d, std::span<const uint32_t> shape, ir::Bytes bytes,
                             const std::shared_ptr<const void>& owner) {
    const char* storage = storage_name(d.type);
    std::vector<py::ssize_t> dims(shape.begin(), shape.end());
    if (!storage) {  // sub-byte and numpy-less types: the raw bytes
        storage = "uint8";
        dims = {static_cast<py::ssize_t>(bytes.size())};
    }
    py::capsule base(new std::shared_ptr<const void>(owner),
                     [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
    py::array a(py::dtype(storage), dims, static_cast<const void*>(bytes.data()), base);
    a.attr("setflags")(py::arg("write") = false);
    return a;
}

std::vector<uint32_t> shape_from_py(py::handle value, std::string_view what) {
    std::vector<uint32_t> shape;
    py::object holder;  // keeps a wrapped single int alive while iterating
    if (py::isinstance<py::int_>(value)) {
        holder = py::make_tuple(py::reinterpret_borrow<py::object>(value));
        value = holder;
    }
    if (!py::isinstance<py::iterable>(value) || py::isinstance<py::str>(value))
        throw py::value_error(
            fmt::format("{}: shape must be a sequence of ints, got {}", what, type_name(value)));
    for (py::handle dim : value) {
        if (!py::isinstance<py::int_>(dim) && !py::hasattr(dim, "__index__"))
            throw py::value_error(
                fmt::format("{}: shape entries must be ints, got {}", what, type_name(dim)));
        const long long v = py::int_(py::reinterpret_borrow<py::object>(dim)).cast<long long>();
        if (v < 0 || v > UINT32_MAX)
            throw py::value_error(
                fmt::format("{}: shape entry {} is out of range [0, {}]", what, v, UINT32_MAX));
        shape.push_back(static_cast<uint32_t>(v));
    }
    return shape;
}

}  // namespace mgedump::python
