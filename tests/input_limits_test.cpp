// The limits on hostile input (formats/json_depth.h, formats/tensor_limits.h): each
// is refused with an error that names it, where it used to crash, wrap around or
// allocate whatever the input asked for; and JSON numbers no double holds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/dump_options.h"
#include "formats/graph_json.h"
#include "formats/json_depth.h"
#include "formats/npy.h"
#include "formats/strip_info_json.h"
#include "ir/error.h"
#include "jobs/manifest.h"
#include "npy_image.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

// Deep enough to overflow the stack of the recursive walkers these limits protect.
std::string nested_lists(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string graph_with_constant(const std::string& constant) {
    return R"({"format": "mgedump-graph", "version": 1, "constants": [)" + constant + R"(], "outputs": ["w"]})";
}

template <class F>
std::string limit_error_of(F f) {
    try {
        f();
    } catch (const LimitError& e) {
        return e.what();
    }
    return "";
}

TEST(JsonDepth, CountsBracketsOutsideStringsAndComments) {
    EXPECT_EQ(formats::json_too_deep_at("[[]]", false, 2), std::nullopt);
    EXPECT_EQ(formats::json_too_deep_at("[[[]]]", false, 2), 2u);
    EXPECT_EQ(formats::json_too_deep_at(R"([["[[[\"[["]])", false, 2), std::nullopt);
    EXPECT_EQ(formats::json_too_deep_at("[[ // [[[\n ]] /* [[[ */", true, 2), std::nullopt);
    EXPECT_EQ(formats::json_too_deep_at("[[ // [[[\n ]]", false, 2), 6u);
    EXPECT_EQ(formats::json_too_deep_at("[{}]", false, 2), std::nullopt);
}

TEST(GraphJsonLimits, DeeplyNestedValuesAreALimitErrorNotAStackOverflow) {
    const std::string doc = graph_with_constant(R"({"name": "w", "dtype": "Float32", "shape": [1], "values": )" +
                                                nested_lists(1'000'000) + "}");
    const std::string what = limit_error_of([&] { (void)formats::parse_graph_json(doc); });
    EXPECT_NE(what.find("graph.json: JSON nests deeper than 128 levels"), std::string::npos) << what;
}

TEST(GraphJsonLimits, AFillOfMoreThanOneGiBIsRefusedBeforeAllocating) {
    const std::string doc =
        graph_with_constant(R"({"name": "w", "dtype": "Float32", "shape": [65536, 65536, 64], "fill": 0})");
    const std::string what = limit_error_of([&] { (void)formats::parse_graph_json(doc); });
    EXPECT_NE(what.find("\"fill\": Float32 of shape [65536, 65536, 64] is 1099511627776 bytes; values in the JSON "
                        "are limited to 1 GiB"),
              std::string::npos)
        << what;
}

TEST(GraphJsonLimits, AShapeWhoseElementCountWouldWrapIsRefused) {
    // 2^64 elements: the product wraps to 0, and a 0-byte "fill" used to be accepted.
    const std::string doc = graph_with_constant(
        R"({"name": "w", "dtype": "Float32", "shape": [65536, 65536, 65536, 65536], "fill": 0})");
    const std::string what = limit_error_of([&] { (void)formats::parse_graph_json(doc); });
    EXPECT_NE(what.find("shape [65536, 65536, 65536, 65536] holds more than 2^48 elements"), std::string::npos)
        << what;
}

// A .npy header of 2^63 Float32 elements (2^68 bits) and no payload, at a fresh path.
fs::path write_npy_of_wrapping_shape(const std::string& tag) {
    const fs::path p = fs::temp_directory_path() / ("mgedump-limits-" + tag + std::to_string(::getpid()) + ".npy");
    const std::vector<std::byte> image =
        test::npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648, 2), }", "");
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
    return p;
}

TEST(NpyLimits, AShapeWhoseByteSizeWouldWrapIsRefused) {
    // The size check used to compute 0 bytes and accept the file with no payload at all.
    const fs::path p = write_npy_of_wrapping_shape("read");
    const std::string what = limit_error_of([&] { (void)formats::read_npy(p); });
    fs::remove(p);
    EXPECT_NE(what.find("shape [2147483648, 2147483648, 2] holds more than 2^48 elements"), std::string::npos)
        << what;
}

TEST(GraphJsonLimits, AnNpyPastTheLimitsIsALimitErrorThatSaysWhereInTheJson) {
    const fs::path p = write_npy_of_wrapping_shape("json");
    const std::string doc = graph_with_constant(R"({"name": "w", "npy": ")" + p.string() + R"("})");
    const std::string what = limit_error_of([&] { (void)formats::parse_graph_json(doc); });
    fs::remove(p);
    EXPECT_NE(what.find("graph.json: constants[0] (\"w\"): npy \"" + p.string() + "\": "), std::string::npos) << what;
    EXPECT_NE(what.find("holds more than 2^48 elements"), std::string::npos) << what;
}

TEST(StripInfoLimits, AppendingToADeeplyNestedFileIsALimitErrorNotAStackOverflow) {
    const std::string existing = R"({"opr_types": [], "x": )" + nested_lists(1'000'000) + "}";
    const std::string what =
        limit_error_of([&] { (void)formats::merge_strip_info_json(existing, {}, 1, "s.json"); });
    EXPECT_NE(what.find("s.json: cannot append to it: JSON nests deeper than 128 levels"), std::string::npos)
        << what;
}

TEST(ManifestLimits, ADeeplyNestedManifestIsAManifestErrorNotAStackOverflow) {
    const std::string text = R"({"input": )" + nested_lists(1'000'000) + "}";
    try {
        (void)jobs::parse_manifest(text, "", engine::DumpOptions{}, "m.json");
        FAIL() << "no error";
    } catch (const jobs::ManifestError& e) {
        EXPECT_NE(std::string(e.what()).find("m.json: JSON nests deeper than 128 levels (byte 137)"),
                  std::string::npos)
            << e.what();
    }
}

// nlohmann reports a number past a double's range as out_of_range, not as a
// parse_error; each reader used to let it escape (found by fuzz_graph_json,
// fuzz_manifest and fuzz_strip_info, all on "1e309").
TEST(JsonNumbers, ANumberPastADoubleIsAFormatErrorInEveryJsonReader) {
    auto format_error_of = [](auto f) -> std::string {
        try {
            f();
        } catch (const FormatError& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_NE(format_error_of([] { (void)formats::parse_graph_json(graph_with_constant(
                                  R"({"name": "w", "dtype": "Float32", "shape": [1], "values": [1e309]})")); })
                  .find("graph.json: invalid JSON: "),
              std::string::npos);
    EXPECT_NE(format_error_of([] { (void)formats::merge_strip_info_json(R"({"hash": 1e309})", {}, 1, "s.json"); })
                  .find("s.json: cannot append to it: invalid JSON: "),
              std::string::npos);
    EXPECT_NE(format_error_of([] {
                  (void)jobs::parse_manifest(R"({"input": "a.json", "repeat": 1e309})", "", {}, "m.json");
              }).find("m.json: invalid JSON: number overflow"),
              std::string::npos);
    EXPECT_NE(format_error_of([] {
                  (void)jobs::parse_manifest("{\"input\": \"a.json\"}\n{\"input\": \"b.json\", \"repeat\": 1e309}\n",
                                             "", {}, "m.jsonl");
              }).find("m.jsonl:2: invalid JSON: number overflow"),
              std::string::npos);
}

}  // namespace
}  // namespace mgedump
