// Malformed files must be rejected with a FormatError that says what and where —
// never a crash, a hang, another exception type or an unbounded allocation. The
// corpus (tools/make_malformed_corpus.py) holds hand-broken files; the sweeps below
// truncate and corrupt the Appendix C files at every byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "formats/model_reader.h"
#include "model_test_util.h"
#include "test_paths.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

// Loads every graph; returns "" on success, the FormatError's message otherwise.
// Any other exception escapes and fails the test.
std::string try_read(const std::vector<uint8_t>& data) {
    auto bytes = test::owned_bytes(data);
    try {
        formats::read_models(ir::Bytes(*bytes), bytes);
        return "";
    } catch (const FormatError& e) {
        return e.what();
    }
}

TEST(MalformedInput, EveryCorpusFileIsAFormatErrorWithContext) {
    const fs::path dir = fs::path(test::source_dir()) / "tests" / "corpus" / "malformed";
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), {});
        SCOPED_TRACE(entry.path().filename().string());
        const std::string msg = try_read(data);
        EXPECT_FALSE(msg.empty()) << "accepted";
        // Every message says where: a byte offset or an operator.
        EXPECT_TRUE(msg.find("byte") != std::string::npos || msg.find("operator #") != std::string::npos) << msg;
        ++files;
    }
    EXPECT_GE(files, 100u);
}

TEST(MalformedInput, EveryTruncationOfTheAppendixCFilesIsRejected) {
    for (const auto& spec : {test::appendix_c_v1(), test::appendix_c_v2()})
        for (size_t n = 0; n < spec.size(); ++n) {
            std::vector<uint8_t> cut(spec.begin(), spec.begin() + n);
            EXPECT_FALSE(try_read(cut).empty()) << "prefix of " << n << " bytes accepted";
        }
}

TEST(MalformedInput, CorruptingAnySingleByteNeverCrashes) {
    // Many single-byte changes are harmless (names, values); the point is that none
    // escapes as anything but success or FormatError.
    size_t rejected = 0, total = 0;
    for (const auto& spec : {test::appendix_c_v1(), test::appendix_c_v2()})
        for (size_t i = 0; i < spec.size(); ++i)
            for (uint8_t v : {uint8_t(0x00), uint8_t(0xff), uint8_t(spec[i] ^ 0x01), uint8_t(spec[i] + 0x40)}) {
                if (v == spec[i]) continue;
                std::vector<uint8_t> bad = spec;
                bad[i] = v;
                rejected += !try_read(bad).empty();
                ++total;
            }
    EXPECT_GT(rejected, total / 4);
}

TEST(MalformedInput, ErrorsNameTheOperatorAndTheUnknownId) {
    // Corrupt C.1's Elemwise type id (bytes 0xa4..0xab hold 16984089995691734746).
    std::vector<uint8_t> v1 = test::appendix_c_v1();
    ASSERT_EQ(v1[0xa4], 0xda);
    v1[0xa4] = 0xdb;
    const std::string msg = try_read(v1);
    EXPECT_NE(msg.find("operator #2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("unknown operator type id 16984089995691734747"), std::string::npos) << msg;
}

}  // namespace
}  // namespace mgedump
