#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/dump.h"
#include "engine/strip_info.h"
#include "formats/strip_info_json.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "tests/model_test_util.h"

namespace mgedump::engine {
namespace {

namespace fs = std::filesystem;
using ir::DType;
using ir::DTypeEnum;
using ir::VarId;
using Strings = std::vector<std::string>;

const DType kF32 = DType::of(DTypeEnum::Float32);

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("mgedump-strip-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(StripInfo, AConvolutionGraphListsItsTypeinfoNamesAndTheWorkspaceByte) {
    ir::GraphBuilder b;
    VarId x = b.input("data", kF32, {1, 3, 8, 8});
    VarId w = b.constant(kF32, {4, 3, 3, 3}, std::vector<std::byte>(4 * 3 * 3 * 3 * 4));
    b.output(b.op("Convolution", {x, w}), "out");
    formats::StripInfo s = compute_strip_info(b.finish());
    EXPECT_EQ(s.opr_types, (Strings{"ConvolutionForward", "Host2DeviceCopy", "ImmutableTensor"}));
    EXPECT_EQ(s.dtypes, (Strings{"Byte", "Float32"}));
    EXPECT_TRUE(s.elemwise_modes.empty());
}

TEST(StripInfo, ElemwiseModesAreSortedWithoutTheSchemaUnderscoreAndOnlyFromReachableOperators) {
    ir::GraphBuilder b;
    VarId x = b.input("x", kF32, {1, 1, 2, 2});  // 4-D: Pooling (NCHW) takes it
    VarId m = b.op("Elemwise", {x, x}, {{"mode", "MAX"}});
    VarId a = b.op("Elemwise", {m, x}, {{"mode", "ADD"}});
    b.op("Elemwise", {x}, {{"mode", "EXP"}});          // not reached from the output
    b.op("Pooling", {x});                              // not reached either
    b.output(a, "y");
    formats::StripInfo s = compute_strip_info(b.finish());
    EXPECT_EQ(s.elemwise_modes, (Strings{"ADD", "MAX"}));
    EXPECT_EQ(s.opr_types, (Strings{"Elemwise", "Host2DeviceCopy"}));
    EXPECT_EQ(s.dtypes, (Strings{"Float32"}));  // Elemwise has no workspace
}

TEST(StripInfo, OutputDtypesAreTheOnesMegEngineGivesNotTheFirstInputs) {
    ir::GraphBuilder b;
    VarId x = b.input("x", kF32, {4});
    VarId q = b.op("TypeCvt", {x}, {{"dtype", DType::quantized(DTypeEnum::QuantizedS8, 0.5f)}});
    VarId lt = b.op("Elemwise", {x, x}, {{"mode", "LT"}});
    VarId shape = b.op("GetVarShape", {x});
    b.output(q, "q");
    b.output(lt, "lt");
    b.output(shape, "shape");
    formats::StripInfo s = compute_strip_info(b.finish());
    EXPECT_EQ(s.dtypes, (Strings{"Bool", "Float32", "Int32", "QuantizedS8"}));
    EXPECT_EQ(s.opr_types, (Strings{"Elemwise", "GetVarShape", "Host2DeviceCopy", "TypeCvt"}));
}

// A graph nobody inferred records no dtype for the vars operators compute; the
// dump infers it, and its strip info lists the dtypes inferred. Int8 is here
// only as what FUSE_MUL_ADD3_IXxF32xF32xI8 computes (no tensor holds one), so
// from the var table alone it was missing.
TEST(StripInfo, TheDumpOfAGraphNobodyInferredListsTheDtypesItInfers) {
    ir::GraphBuilder b;
    VarId x = b.input("x", DType::of(DTypeEnum::Int16), {4});
    VarId scale = b.constant<float>({4}, {1.f, 2.f, 3.f, 4.f});
    VarId shift = b.constant<float>({4}, {0.f, 0.f, 0.f, 1.f});
    b.output(b.op("ElemwiseMultiType", {x, scale, shift}, {{"mode", "FUSE_MUL_ADD3_IXxF32xF32xI8"}}), "y");
    const ir::Graph built = b.finish();
    const Strings expected{"Float32", "Int16", "Int8"};
    ASSERT_EQ(compute_strip_info(built).dtypes, expected);

    TempDir dir;
    for (const auto& [name, g] : {std::pair{"built", built}, std::pair{"never_inferred", test::as_never_inferred(built)}}) {
        DumpOptions options;
        options.strip_info_file = (dir.path / (std::string(name) + ".json")).string();
        (void)dump_graph(g, options);
        const nlohmann::json info = nlohmann::json::parse(slurp(*options.strip_info_file));
        EXPECT_EQ(info.at("dtypes").get<Strings>(), expected) << name;
    }
}

TEST(StripInfoJson, IsWrittenLikePythonJsonDump) {
    formats::StripInfo s{{"ConvolutionForward", "Host2DeviceCopy"}, {"Byte", "Float32"}, {}};
    EXPECT_EQ(formats::strip_info_json(s, 42),
              R"({"opr_types": ["ConvolutionForward", "Host2DeviceCopy"], "dtypes": ["Byte", "Float32"], )"
              R"("elemwise_modes": [], "hash": 42})");
    EXPECT_EQ(formats::strip_info_json({}, 18446744073709551615ull),
              R"({"opr_types": [], "dtypes": [], "elemwise_modes": [], "hash": 18446744073709551615})");
    EXPECT_EQ(formats::python_json_dumps(nlohmann::ordered_json{{"k", "caf\xc3\xa9"}}), R"({"k": "caf\u00e9"})");
}

TEST(StripInfoJson, AppendKeepsExistingOrderAppendsNewValuesIgnoresNewKeysAndOverwritesTheHash) {
    formats::StripInfo s{{"AOpr", "Elemwise"}, {"Byte", "Float32"}, {"ADD"}};
    const std::string existing =
        R"({"dtypes": ["Int32", "Float32"], "opr_types": ["Elemwise"], "hash": 1, "extra": [1, 2.5]})";
    EXPECT_EQ(formats::merge_strip_info_json(existing, s, 7),
              R"({"dtypes": ["Int32", "Float32", "Byte"], "opr_types": ["Elemwise", "AOpr"], "hash": 7, )"
              R"("extra": [1, 2.5]})");
    // A missing "hash" is added, at the end, as Python's dict assignment does.
    EXPECT_EQ(formats::merge_strip_info_json(R"({"elemwise_modes": ["SUB"]})", s, 3),
              R"({"elemwise_modes": ["SUB", "ADD"], "hash": 3})");
}

TEST(StripInfoJson, AppendRejectsContentItCannotMerge) {
    EXPECT_THROW(formats::merge_strip_info_json("[1, 2]", {}, 0), FormatError);
    EXPECT_THROW(formats::merge_strip_info_json("{\"dtypes\": 3}", {}, 0), FormatError);
    EXPECT_THROW(formats::merge_strip_info_json("{not json", {}, 0), FormatError);
}

TEST(StripInfoFile, IsCreatedThenMergedIntoAndAnEmptyFileCountsAsNew) {
    TempDir dir;
    const fs::path p = dir.path / "strip.json";
    formats::write_strip_info_file(p, {{"B"}, {"Float32"}, {}}, 1, /*append=*/true);
    EXPECT_EQ(slurp(p), R"({"opr_types": ["B"], "dtypes": ["Float32"], "elemwise_modes": [], "hash": 1})");
    formats::write_strip_info_file(p, {{"A", "B"}, {"Int8"}, {"ADD"}}, 2, /*append=*/true);
    EXPECT_EQ(slurp(p), R"({"opr_types": ["B", "A"], "dtypes": ["Float32", "Int8"], "elemwise_modes": ["ADD"], "hash": 2})");
    formats::write_strip_info_file(p, {{"C"}, {}, {}}, 3, /*append=*/false);
    EXPECT_EQ(slurp(p), R"({"opr_types": ["C"], "dtypes": [], "elemwise_modes": [], "hash": 3})");
    std::ofstream(p, std::ios::trunc).close();
    formats::write_strip_info_file(p, {{"D"}, {}, {}}, 4, /*append=*/true);
    EXPECT_EQ(slurp(p), R"({"opr_types": ["D"], "dtypes": [], "elemwise_modes": [], "hash": 4})");
}

TEST(StripInfoFile, AFailedMergeLeavesTheFileAsItWasAndNoTemporaryBehind) {
    TempDir dir;
    const fs::path p = dir.path / "strip.json";
    std::ofstream(p) << "{broken";
    ::chmod(p.c_str(), 0640);
    EXPECT_THROW(formats::write_strip_info_file(p, {{"A"}, {}, {}}, 1, /*append=*/true), FormatError);
    EXPECT_EQ(slurp(p), "{broken");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
    // A successful rewrite keeps the file's permissions.
    formats::write_strip_info_file(p, {{"A"}, {}, {}}, 1, /*append=*/false);
    EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(StripInfoFile, AnUnwritableDirectoryIsAnErrorNotAHalfFile) {
    EXPECT_THROW(formats::write_strip_info_file("/nonexistent-dir/strip.json", {}, 0, false), Error);
}

}  // namespace
}  // namespace mgedump::engine
