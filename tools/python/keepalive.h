// Python objects that C++ tensor views point into (numpy arrays, bytes) are kept
// alive by the blob store's shared keep-alive handles. The last handle may die on
// any thread, so releasing the Python reference takes the GIL first.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

namespace mgedump::python {

template <class T>
std::shared_ptr<const void> keep_alive(std::unique_ptr<T> held) {
    return std::shared_ptr<const void>(held.release(), [](const void* p) {
        // After interpreter shutdown there is nothing left to release.
        if (!Py_IsInitialized()) return;
        pybind11::gil_scoped_acquire gil;
        delete static_cast<const T*>(p);
    });
}

}  // namespace mgedump::python
