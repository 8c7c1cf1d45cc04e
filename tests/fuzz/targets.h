// The bodies of the libFuzzer targets, one function per reader of untrusted input.
// Each takes the fuzzer's bytes and returns 0; an input the reader refuses with one
// of our errors (ir/error.h) is fine, anything else (a crash, a sanitizer report,
// another exception escaping, a hang) is a bug. The libFuzzer entry points
// (tests/fuzz/fuzz_<name>.cpp) call them, and tests/fuzz_regression_test.cpp
// replays tests/fuzz/regressions/fuzz_<name>/ through them without clang.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mgedump::fuzz {

// FBS v1 (MGBC/MGBS): a byte choosing the magic, then the file after it.
int fuzz_read_v1(const uint8_t* data, size_t size);
// FBS_V2: a whole file (its identifier forced to "mgv2").
int fuzz_read_v2(const uint8_t* data, size_t size);
// An ONNX ModelProto image through import_onnx_bytes, then dumped.
int fuzz_onnx(const uint8_t* data, size_t size);
// A graph JSON document through parse_graph_json, then dumped and written back as JSON.
int fuzz_graph_json(const uint8_t* data, size_t size);
// A .npy file through parse_npy_header, read_npy and a graph JSON constant naming it.
int fuzz_npy(const uint8_t* data, size_t size);
// A batch manifest (JSON or JSON Lines) through parse_manifest; each valid
// variant's options then dump a small graph.
int fuzz_manifest(const uint8_t* data, size_t size);
// An existing strip-info file's text through merge_strip_info_json (--append-json).
int fuzz_strip_info(const uint8_t* data, size_t size);
// An mgbtest0 test-case file (magic forced) through read_testcase_file, then re-dumped.
int fuzz_testcase(const uint8_t* data, size_t size);

}  // namespace mgedump::fuzz
