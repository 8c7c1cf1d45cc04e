// Self-checking artifacts: the test-case file MegEngine's trace.dump(input_data=...)
// writes and load_and_run checks (spec §11.4; tracing.py _make_feed and dump).
// The model gets, for every output v, an input "<v>:expect" and the output
// AssertEqual(expect, v); each test case holds the values of every input of that
// model, the expected outputs (computed by the reference evaluator on the graph as
// given) among them. Layout: formats/testcase_file.h.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/artifact_pass.h"
#include "engine/dump_options.h"
#include "engine/dump_result.h"
#include "engine/eval/evaluator.h"
#include "engine/testcase/testcase_options.h"
#include "formats/strip_info_json.h"
#include "ir/graph.h"

namespace mgedump::engine::testcase {

// The model MegEngine dumps when asserting: `g` with one Host2DeviceCopy
// "<name>:expect" (the output's dtype, `expect_shapes[i]`, comp node xpux) per
// output, and as outputs AssertEqual(expect, v, err) named "assert_eq(<name>:expect,<name>)",
// err being what AssertEqual::make builds from two inputs (utility.cpp):
// Reduce MAX of |expect − v| / max(min(|expect|, |v|), 1) to shape [1]. Throws
// OptionError for an output without a name, one listed twice, a name whose
// ":expect" input the model already has, and a non-float output (MegDNN's
// TRUE_DIV, which the err needs, takes float dtypes only: MegEngine cannot
// assert it either).
ir::Graph with_asserts(const ir::Graph& g, std::span<const ir::Shape> expect_shapes, double maxerr,
                       bool verbose);

// Every test case's values, made and checked before a byte is written.
struct Testcases {
    ir::Graph model;                 // the graph dumped: with_asserts(g), or g itself with no_assert
    std::vector<std::string> names;  // the model's input names, sorted: the order of each case's values
    std::vector<std::vector<eval::Tensor>> values;  // per test case, per name
};

// Reads or draws each SPEC's inputs, runs `g` on them unless no_assert, and builds
// the model. Throws OptionError for options and SPECs that do not fit the model
// (engine/testcase/input_data.h), EvalError when the evaluator cannot run it
// (with no_assert nothing is run).
Testcases make_testcases(const ir::Graph& g, const TestcaseOptions& o, const eval::EvalOptions& eval = {});

// Test case `k` as MegEngine writes it: one SharedDeviceTensor on comp node
// "cpux:0" per value, in `names` order. MegEngine leaves their vars unnamed
// (load_and_run goes by position); here each is named after the input it feeds.
ir::Graph testcase_graph(const Testcases& t, size_t k);

struct TestcaseDumped {
    // The model's CompGraphDumpResult (what trace.dump returns); xxh3_128 is the
    // digest of the whole file.
    DumpResult model;
    std::vector<DumpResult> cases;
    uint64_t file_bytes = 0;
    std::vector<std::string> input_names;  // what each test case holds, in order
    // Of everything written (the model with its asserts, the test-case graphs):
    // what a stripped runtime needs to load the file.
    formats::StripInfo strip_info;
};

// Writes the file into `into`, piece by piece: the header, the model dumped with
// `options` (their test-case options aside), then each test case dumped with MegEngine's defaults (FBS_V2,
// same mgb_version; with `options.strip_info_file` their strip info is appended to it, as trace.dump does).
// `into` gets begin() once per piece. Throws as make_testcases and dump_graph do; `into` may have received
// bytes then (an AtomicFile is not committed).
TestcaseDumped dump_with_testcases(const Testcases& t, const DumpOptions& options, ArtifactSink& into,
                                   Digest digest = Digest::Compute);

// make_testcases with options.testcases, then dump_with_testcases: the whole
// file from the graph as given.
TestcaseDumped write_testcase_file(const ir::Graph& g, const DumpOptions& options, ArtifactSink& into,
                                   const eval::EvalOptions& eval = {}, Digest digest = Digest::Compute);

// A sink that appends every piece to a growing buffer (tests, the Python module).
class AppendSink : public ArtifactSink {
  public:
    void begin(uint64_t size) override { bytes.reserve(bytes.size() + size); }
    std::span<std::byte> next(size_t n) override;
    void filled(size_t n) override { bytes.resize(at_ = at_ + n); }
    std::vector<std::byte> bytes;

  private:
    size_t at_ = 0;
};

}  // namespace mgedump::engine::testcase
