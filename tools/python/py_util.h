// Small helpers every binding file uses to read Python values and name them in errors.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace mgedump::python {

// "int", "list", ... for "expected X, got Y" messages.
inline std::string type_name(pybind11::handle v) {
    return pybind11::str(pybind11::type::of(v).attr("__name__")).cast<std::string>();
}

// Python truthiness, as MegEngine reads its flag arguments.
inline bool truthy(pybind11::handle v) {
    const int r = PyObject_IsTrue(v.ptr());
    if (r < 0) throw pybind11::error_already_set();
    return r != 0;
}

}  // namespace mgedump::python
