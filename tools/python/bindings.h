// The pieces of the Python module `mgedump`, each registered by its own file.
#pragma once

#include <pybind11/pybind11.h>

namespace mgedump::python {

namespace py = pybind11;

void bind_errors(py::module_& m);      // errors.cpp: SerializationError, exception translation
void bind_metadata(py::module_& m);    // metadata.cpp: Metadata
void bind_graph(py::module_& m);       // graph_api.cpp: Graph, Var, Operator
void bind_dump_graph(py::module_& m);  // dump_graph.cpp: dump_graph, CompGraphDumpResult
void bind_dump_many(py::module_& m);   // dump_many.cpp: dump_many
void bind_load_graph(py::module_& m);  // load_graph.cpp: load_graph, CompGraphLoadResult
void bind_run(py::module_& m);         // run.cpp: run (the reference evaluator)
void bind_testcases(py::module_& m);   // testcases.cpp: dump_with_testcases, load_testcases

}  // namespace mgedump::python
