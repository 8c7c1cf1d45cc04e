// One model's comparison: the five ways of producing (or copying) its bytes,
// timed interleaved in one process (each round runs every method once, in a
// shuffled order, so drift, noise and after-effects hit all of them alike), then medians.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/dump_options.h"
#include "ir/graph.h"

namespace mgedump::bench {

struct ModelUnderTest {
    std::string name;
    ir::Graph graph;
    std::optional<std::string> onnx_bytes;  // the .onnx file it came from, if any
    // Makes `graph` again as a user's conversion does: the ONNX import, or the
    // builder calls of a synthetic model. Either infers every operator as it adds it.
    std::function<ir::Graph()> make;
};

struct ComparisonRow {
    std::string model;
    std::string format;
    uint64_t operators = 0;
    uint64_t weight_bytes = 0;
    uint64_t file_bytes = 0;
    // Median seconds; onnx absent for models not read from ONNX. mgedump: the
    // library dump (the Python module's); with_digest: the same plus the file's
    // xxh3-128, as the CLI and batch reports print it.
    double memcpy_s = 0, mgedump_s = 0, naive_s = 0, with_digest_s = 0;
    // The static inference of every operator, alone. A dump does not run it (the
    // builder and the readers infer as they make the graph, and a dump reads their
    // var table); `make` is that: the import or build, inference included.
    double inference_s = 0, make_s = 0;
    // The library dump (as mgedump_s) of the same graph marked never inferred, as
    // a hand-assembled graph reaches it: the dump infers it after validating it,
    // the graph's tables still in the caches. Against mgedump_s, in the same
    // rounds: what inference adds to a dump.
    double dump_inferring_s = 0;
    std::optional<double> onnx_s;
    // The median sample of a method that does nothing: what reading the clock
    // adds to every sample (thread CPU time is a system call on this VM, about
    // 0.7 µs, a tenth of a small model's inference). Measured in the same
    // rounds and taken off every median above.
    double clock_s = 0;
};

enum class Clock { Wall, ThreadCpu };

// Checks first that the naive baseline writes exactly mgedump's bytes (throws if
// not), then runs `rounds` interleaved rounds.
ComparisonRow compare_model(const ModelUnderTest& model, engine::DumpFormat format, int rounds, Clock clock);

}  // namespace mgedump::bench
