// libFuzzer target: the graph JSON reader (parse, build, validate), then a dump and graph_to_json.
// Anything but success or an mgedump::Error is a bug. The body is
// targets/graph_json.cpp, included rather than linked: each fuzz executable is built from
// its one entry file (CMakeLists.txt, MGEDUMP_FUZZ), while mgedump_tests compiles
// the body on its own to replay tests/fuzz/regressions/fuzz_graph_json/.
#include <cstddef>
#include <cstdint>

#include "targets/graph_json.cpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return mgedump::fuzz::fuzz_graph_json(data, size);
}
