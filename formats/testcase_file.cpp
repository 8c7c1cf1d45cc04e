#include "formats/testcase_file.h"

#include <fmt/format.h>

#include <cstring>

#include "ir/error.h"

namespace mgedump::formats {

std::optional<uint32_t> testcase_count(ir::Bytes bytes) {
    if (bytes.size() < kTestcaseHeaderBytes ||
        std::memcmp(bytes.data(), kTestcaseMagic.data(), kTestcaseMagic.size()) != 0)
        return std::nullopt;
    // load_and_run reads the count with fread into a uint32_t: native order, little-endian on every target.
    uint32_t count = 0;
    for (int i = 0; i < 4; ++i) count |= uint32_t(std::to_integer<uint8_t>(bytes[8 + i])) << (8 * i);
    return count;
}

std::array<std::byte, kTestcaseHeaderBytes> testcase_header(uint32_t count) {
    std::array<std::byte, kTestcaseHeaderBytes> h{};
    std::memcpy(h.data(), kTestcaseMagic.data(), kTestcaseMagic.size());
    for (int i = 0; i < 4; ++i) h[8 + i] = std::byte((count >> (8 * i)) & 0xff);
    return h;
}

TestcaseFile read_testcase_file(ir::Bytes bytes, std::shared_ptr<const void> keepalive) {
    const std::optional<uint32_t> count = testcase_count(bytes);
    if (!count)
        throw FormatError(
            fmt::format("not a test-case file: it does not start with \"{}\" and a count", kTestcaseMagic));
    // Offsets in errors are the file's: the graphs are read where they lie.
    std::vector<LoadedModel> graphs = read_models(bytes, std::move(keepalive));
    const size_t cases = graphs.size() - 1;
    if (cases != *count)
        throw FormatError(
            fmt::format("the header counts {} test case(s), {} graph(s) follow the model", *count, cases));
    TestcaseFile f;
    f.model = std::move(graphs[0]);
    for (size_t k = 1; k < graphs.size(); ++k) f.cases.push_back(std::move(graphs[k]));
    return f;
}

}  // namespace mgedump::formats
