// MegEngine's test-case file (spec §11.4), what trace.dump(input_data=...) writes
// and load_and_run checks: ASCII "mgbtest0", a little-endian uint32 count T, the
// model's dump, then T dumps of graphs whose outputs are the values of one test
// case, one per model input in the order of the sorted input names.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "formats/model_reader.h"

namespace mgedump::formats {

inline constexpr std::string_view kTestcaseMagic = "mgbtest0";
inline constexpr size_t kTestcaseHeaderBytes = 12;  // magic + uint32 count

// The count T when `bytes` starts with the magic (and holds the count); nullopt otherwise.
std::optional<uint32_t> testcase_count(ir::Bytes bytes);
// The 12 bytes a test-case file starts with.
std::array<std::byte, kTestcaseHeaderBytes> testcase_header(uint32_t count);

struct TestcaseFile {
    LoadedModel model;               // bytes_consumed counts the header too
    std::vector<LoadedModel> cases;  // one graph per test case, as the header counts them
};

// Reads a whole test-case file. Throws FormatError when `bytes` is not one, or
// when the graphs after the model (read to the end) are not as many as the
// header counts.
TestcaseFile read_testcase_file(ir::Bytes bytes, std::shared_ptr<const void> keepalive);

}  // namespace mgedump::formats
