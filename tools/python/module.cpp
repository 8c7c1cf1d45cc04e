// The compiled core of the Python package `mgedump` (python/mgedump), imported as
// mgedump._core: MegEngine's dump_graph/load_graph contract backed by the C++
// engine, plus a small graph-building API and a parallel dump_many. The package
// re-exports it with MegEngine's signatures; nothing imports _core directly.
#include "tools/python/bindings.h"

PYBIND11_MODULE(_core, m) {
    using namespace mgedump::python;
    m.doc() = "mgedump's compiled core; use the package mgedump.";
    m.attr("__version__") = MGEDUMP_VERSION;
    bind_errors(m);
    bind_metadata(m);
    bind_graph(m);
    bind_dump_graph(m);
    bind_dump_many(m);
    bind_load_graph(m);
    bind_run(m);
    bind_testcases(m);
}
