// One model's comparison: the five ways of producing (or copying) its bytes,
// timed interleaved in one process (each round runs every method once, in a
// shuffled order, so drift, noise and after-effects hit all of them alike), then medians.
#pragma once

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
    // The static inference alone (part of every mgedump dump).
    double inference_s = 0;
    std::optional<double> onnx_s;
};

enum class Clock { Wall, ThreadCpu };

// Checks first that the naive baseline writes exactly mgedump's bytes (throws if
// not), then runs `rounds` interleaved rounds.
ComparisonRow compare_model(const ModelUnderTest& model, engine::DumpFormat format, int rounds, Clock clock);

}  // namespace mgedump::bench
