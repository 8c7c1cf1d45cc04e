// The Python module `mgedump`: MegEngine's dump_graph/load_graph contract backed by
// the C++ engine, plus a small graph-building API and a parallel dump_many.
#include "tools/python/bindings.h"

PYBIND11_MODULE(mgedump, m) {
    using namespace mgedump::python;
    m.doc() = "Serialize computing graphs into MegEngine's .mge formats (FBS, FBS_V2) and read them back.";
    bind_errors(m);
    bind_metadata(m);
    bind_graph(m);
    bind_dump_graph(m);
    bind_dump_many(m);
    bind_load_graph(m);
    bind_run(m);
    bind_testcases(m);
}
