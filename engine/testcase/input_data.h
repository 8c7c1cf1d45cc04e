// The input values of test cases, given as MegEngine's trace.dump takes them
// (input_data; imperative/python/megengine/jit/tracing.py, _make_feed): one SPEC
// string per test case,
//   "name:file.npy;name2:file2.npy"   a .npy file per input
//   "file.npy"                         the one input of a one-input model
//   "#rand(min,max)"                   random values for every input
//   "name:#rand(min,max[,d0,d1,...])"  random values for one input ("..." ends a
//                                      shape with the rest of the input's)
// and "@FILE" for a file holding one SPEC per line. The random values come from a
// fixed seed (MegEngine draws them from numpy's unseeded global generator).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/eval/evaluator.h"

namespace mgedump::engine::testcase {

struct RandomValues {
    double min = 0, max = 0;
    std::vector<std::string> shape;  // as written, "..." allowed last; empty: the input's shape
};

struct InputSource {
    std::string input;  // empty when the SPEC names no input
    std::variant<std::filesystem::path, RandomValues> values;
};

struct CaseSpec {
    std::string text;  // as given, for messages
    std::vector<InputSource> sources;
};

// One SPEC. Throws OptionError naming it when it cannot be one (an empty item, a
// "#" source other than #rand(min,max[,shape]), a bound or dim that is no number).
CaseSpec parse_case_spec(std::string_view spec);

// `input_data` with each "@FILE" entry replaced by FILE's non-empty lines (FILE
// relative to `data_dir`). Throws OptionError naming a file that cannot be read.
std::vector<std::string> expand_input_data(const std::vector<std::string>& input_data,
                                           const std::filesystem::path& data_dir);

struct FeedOptions {
    // File data is repeated this many times along axis 0, as numpy.repeat does
    // (each slice `repeat` times in a row); random data is not.
    uint32_t repeat = 1;
    // Random values of test case k for input `name` come from their own
    // SplitMix64 stream, seeded with stream_seed(seed, k, name).
    uint64_t seed = 0;
    // Relative .npy paths are relative to this directory (empty: the current one).
    std::filesystem::path data_dir;
};

// The values of test case `index` (from 0) for a model with `inputs`: every input
// gets one (an input with a default value may be left out and keeps it), each of
// its input's dtype and shape. Throws OptionError naming the test case and the
// input for an input the SPEC leaves out or names twice, a name the model does
// not have, a file that cannot be read as that dtype, and a shape that differs
// from the input's (after `repeat`).
eval::Feeds make_case_feeds(const std::vector<eval::GraphInput>& inputs, const CaseSpec& spec, size_t index,
                            const FeedOptions& options);

// The seed of one random stream: FNV-1a of `name`, started from
// seed ^ SplitMix64(case_index).
uint64_t stream_seed(uint64_t seed, uint64_t case_index, std::string_view name);

// `count` values uniform in [min, max) from the stream `seed` as `dtype` stores
// them, the way numpy's uniform(min, max).astype(dtype) makes them: floats
// rounded to nearest, integers (quantized: their storage integers) truncated
// toward zero and then saturated to the type's range, Bool nonzero.
eval::Tensor random_tensor(ir::DType dtype, const ir::Shape& shape, double min, double max, uint64_t seed);

// The .npy files `input_data` reads (after "@FILE" expansion, resolved against
// `data_dir`), and the "@FILE" lists themselves, in order, without duplicates.
std::vector<std::filesystem::path> files_read(const std::vector<std::string>& input_data,
                                              const std::filesystem::path& data_dir);

}  // namespace mgedump::engine::testcase
