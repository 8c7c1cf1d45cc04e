#include "tools/python/errors.h"

#include <fmt/format.h>

#include <string>

#include "engine/eval/kernel.h"
#include "ir/error.h"
#include "tools/python/bindings.h"

namespace mgedump::python {
namespace {

// Created once at import and never destroyed: exception types outlive the module
// object during interpreter shutdown.
PyObject* serialization_error = nullptr;
PyObject* evaluation_error = nullptr;

}  // namespace

void bind_errors(py::module_& m) {
    serialization_error = PyErr_NewExceptionWithDoc("mgedump.SerializationError",
                                                    "A graph or model file mgedump cannot serialize or read: "
                                                    "the message names the model, operator and field.",
                                                    PyExc_RuntimeError, nullptr);
    if (!serialization_error) throw py::error_already_set();
    m.attr("SerializationError") = py::handle(serialization_error);
    evaluation_error = PyErr_NewExceptionWithDoc(
        "mgedump.EvaluationError",
        "A graph the reference evaluator cannot execute as asked: an operator without a kernel, a param "
        "its kernel does not implement, an input that does not fit. The message names the operator or input.",
        PyExc_RuntimeError, nullptr);
    if (!evaluation_error) throw py::error_already_set();
    m.attr("EvaluationError") = py::handle(evaluation_error);

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const OptionError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const engine::eval::EvalError& e) {
            PyErr_SetString(evaluation_error, e.what());
        } catch (const Error& e) {
            PyErr_SetString(serialization_error, e.what());
        }
    });
}

void rethrow_with_prefix(std::exception_ptr error, std::string_view prefix) {
    try {
        std::rethrow_exception(error);
    } catch (const OptionError& e) {
        throw OptionError(fmt::format("{}{}", prefix, e.what()));
    } catch (const Error& e) {
        throw Error(fmt::format("{}{}", prefix, e.what()));
    } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("{}{}", prefix, e.what()));
    }
}

}  // namespace mgedump::python
