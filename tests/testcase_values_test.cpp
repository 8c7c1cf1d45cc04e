// The values a test-case file holds: inputs from .npy files (with numpy.repeat's
// --repeat) or #rand from a fixed seed, expected outputs equal to the evaluator's
// run of the model, and SPECs that do not fit the model refused with their reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "cli_run.h"
#include "engine/eval/evaluator.h"
#include "engine/testcase/input_data.h"
#include "engine/testcase/testcase_check.h"
#include "engine/testcase/testcase_dump.h"
#include "formats/npy.h"
#include "ir/error.h"
#include "ir/op_registry.h"
#include "testcase_test_util.h"

namespace mgedump {
namespace {

namespace tc = engine::testcase;
using test::two_output_model;

std::vector<float> floats(const engine::eval::Tensor& t) {
    auto d = t.data<float>();
    return {d.begin(), d.end()};
}

class TestcaseValues : public test::TempDirTest {
  protected:
    TestcaseValues() : TempDirTest("mgedump_testcase_values_") {}
    std::string npy(const std::string& name, std::vector<uint32_t> shape, const std::vector<float>& v) {
        const auto image =
            formats::encode_npy(ir::DTypeEnum::Float32, shape,
                                ir::Bytes(reinterpret_cast<const std::byte*>(v.data()), v.size() * 4));
        std::ofstream(dir / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(image.data()), image.size());
        return name;
    }
    tc::TestcaseOptions options(std::vector<std::string> specs) {
        tc::TestcaseOptions o;
        o.input_data = std::move(specs);
        o.data_dir = dir;
        return o;
    }
    // The OptionError message make_testcases throws for `specs` ("" if none).
    std::string refusal(std::vector<std::string> specs, uint32_t repeat = 1) {
        tc::TestcaseOptions o = options(std::move(specs));
        o.repeat = repeat;
        try {
            tc::make_testcases(two_output_model(), o);
        } catch (const OptionError& e) {
            return e.what();
        }
        return "";
    }
};

TEST_F(TestcaseValues, NpyInputsAndExpectedOutputsAreStoredByName) {
    npy("z.npy", {2, 3}, {1, -2, 3, -4, 5, -6});
    npy("a.npy", {3}, {2, 0.5f, -1});
    const auto t = tc::make_testcases(two_output_model(), options({"zeta:z.npy;alpha:a.npy"}));
    ASSERT_EQ(t.values.size(), 1u);
    // Sorted: act:expect, alpha, out:expect, zeta. out = zeta * alpha + [1, 2, 3]; act = relu(zeta),
    // computed by hand from the definitions.
    EXPECT_EQ(floats(t.values[0][0]), (std::vector<float>{1, 0, 3, 0, 5, 0}));
    EXPECT_EQ(floats(t.values[0][1]), (std::vector<float>{2, 0.5f, -1}));
    EXPECT_EQ(floats(t.values[0][2]), (std::vector<float>{3, 1, 0, -7, 4.5f, 9}));
    EXPECT_EQ(floats(t.values[0][3]), (std::vector<float>{1, -2, 3, -4, 5, -6}));
}

TEST_F(TestcaseValues, StoredExpectedOutputsEqualTheEvaluatorsRunOfTheModel) {
    const ir::Graph g = two_output_model();
    const auto file =
        test::dump_testcases(tc::make_testcases(g, options({"#rand(-3,3)", "#rand(0,1)", "#rand(-1,0)"})));
    const formats::TestcaseFile f = file.read();
    ASSERT_EQ(f.cases.size(), 3u);
    for (const auto& c : f.cases) {
        const std::vector<engine::eval::Tensor> v = tc::case_values(c.graph);
        ASSERT_EQ(v.size(), 4u);  // act:expect, alpha, out:expect, zeta
        const auto run = engine::eval::evaluate(g, {{"alpha", v[1]}, {"zeta", v[3]}});
        EXPECT_EQ(run[0].name, "out");
        EXPECT_EQ(floats(v[2]), floats(run[0].value));
        EXPECT_EQ(floats(v[0]), floats(run[1].value));
    }
    // And the file's own check passes: every err is 0.
    const tc::TestcaseReport r = tc::check_testcases(f);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.asserts, 2u);
    for (const auto& c : r.cases) {
        ASSERT_EQ(c.outputs.size(), 2u);
        EXPECT_EQ(c.outputs[0].name, "out");
        EXPECT_EQ(c.outputs[0].err, 0.0);
    }
}

TEST_F(TestcaseValues, AWrongExpectedValueFailsTheCheckWithItsErr) {
    auto t = tc::make_testcases(two_output_model(), options({"#rand(0,1)", "#rand(0,1)"}));
    // Test case 1's out:expect, element 0, off by 0.5: err = 0.5 / max(min(|e|, |g|), 1).
    engine::eval::Tensor wrong =
        engine::eval::Tensor::copy_of(t.values[1][2].dtype(), t.values[1][2].shape(), t.values[1][2].bytes());
    const float right = wrong.data<float>()[0];
    wrong.mutable_data<float>()[0] = right + 0.5f;
    t.values[1][2] = wrong;
    const tc::TestcaseReport r = tc::check_testcases(test::dump_testcases(t).read());
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(r.cases[0].ok());
    ASSERT_EQ(r.cases[1].outputs.size(), 2u);
    EXPECT_FALSE(r.cases[1].outputs[0].passed());
    EXPECT_TRUE(r.cases[1].outputs[1].passed());
    const float e = right + 0.5f;
    EXPECT_FLOAT_EQ(static_cast<float>(r.cases[1].outputs[0].err),
                    std::fabs(e - right) / std::max(std::min(e, right), 1.f));
}

TEST_F(TestcaseValues, AnAssertEqualWithoutMaxerrIsAnErrorNotARead) {
    // Only a graph that skipped validation can lack the field; the check must
    // say so rather than index the param table with find_field's -1.
    formats::TestcaseFile f =
        test::dump_testcases(tc::make_testcases(two_output_model(), options({"#rand(0,1)", "#rand(0,1)"})))
            .read();
    ir::Graph& g = f.model.graph;
    const ir::OpTypeId assert_equal = ir::find_op("AssertEqual");
    int stripped = 0;
    for (uint32_t o = 0; o < g.oprs.size(); ++o)
        if (g.oprs.type[o] == assert_equal) {
            g.params[g.oprs.params[o].begin].fields.clear();
            ++stripped;
        }
    ASSERT_EQ(stripped, 2);
    try {
        tc::check_testcases(f);
        FAIL() << "the check ran without maxerr";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("(AssertEqual) holds no 'maxerr' field"), std::string::npos) << what;
    }
}

TEST_F(TestcaseValues, RandomValuesFollowTheDocumentedStream) {
    // stream_seed(0, 0, "x") and SplitMix64, recomputed in Python from the
    // description in input_data.h: u = (next >> 11) * 2^-53, min + (max - min) * u.
    const auto t = tc::random_tensor(ir::DType::of(ir::DTypeEnum::Float32), ir::Shape::of({3}), 0, 1,
                                     tc::stream_seed(0, 0, "x"));
    EXPECT_EQ(floats(t),
              (std::vector<float>{0.10573667287826538f, 0.4783957302570343f, 0.4682955741882324f}));
    const auto u = tc::random_tensor(ir::DType::of(ir::DTypeEnum::Float32), ir::Shape::of({3}), -5, 5,
                                     tc::stream_seed(7, 1, "x"));
    EXPECT_EQ(floats(u), (std::vector<float>{2.7438712120056152f, 0.9263632297515869f, 1.2733434438705444f}));
}

TEST_F(TestcaseValues, RandomValuesDependOnSeedCaseAndInputOnly) {
    const auto a = tc::make_testcases(two_output_model(), options({"#rand(0,1)", "#rand(0,1)"}));
    const auto b = tc::make_testcases(two_output_model(), options({"#rand(0,1)", "#rand(0,1)"}));
    auto seeded = options({"#rand(0,1)", "#rand(0,1)"});
    seeded.seed = 1;
    const auto c = tc::make_testcases(two_output_model(), seeded);
    EXPECT_EQ(floats(a.values[0][3]), floats(b.values[0][3]));
    EXPECT_NE(floats(a.values[0][3]), floats(a.values[1][3]));  // another test case
    EXPECT_NE(floats(a.values[0][3]), floats(c.values[0][3]));  // another seed
    for (float x : floats(a.values[0][3])) {
        EXPECT_GE(x, 0.f);
        EXPECT_LT(x, 1.f);
    }
}

TEST_F(TestcaseValues, RandomIntegersTruncateTowardZeroAndSaturateAsAstypeWould) {
    const auto i32 =
        tc::random_tensor(ir::DType::of(ir::DTypeEnum::Int32), ir::Shape::of({4}), -2.75, -2.75, 1);
    for (int32_t v : i32.data<int32_t>()) EXPECT_EQ(v, -2);
    const auto u8 = tc::random_tensor(ir::DType::of(ir::DTypeEnum::Uint8), ir::Shape::of({4}), -5, -5, 1);
    for (uint8_t v : u8.data<uint8_t>()) EXPECT_EQ(v, 0);
    const auto i8 = tc::random_tensor(ir::DType::of(ir::DTypeEnum::Int8), ir::Shape::of({4}), 300, 300, 1);
    for (int8_t v : i8.data<int8_t>()) EXPECT_EQ(v, 127);
    const auto many = tc::random_tensor(ir::DType::of(ir::DTypeEnum::Int32), ir::Shape::of({1000}), 0, 4, 3);
    for (int32_t v : many.data<int32_t>()) {
        EXPECT_GE(v, 0);
        EXPECT_LE(v, 3);
    }
}

TEST_F(TestcaseValues, RandWithAShapeMustBeTheInputsShapeDotsFillingIn) {
    EXPECT_NO_THROW(
        tc::make_testcases(two_output_model(), options({"zeta:#rand(0,1,2,...);alpha:#rand(0,1,3)"})));
    EXPECT_NE(refusal({"zeta:#rand(0,1,4,3);alpha:#rand(0,1)"})
                  .find("input 'zeta' is Float32 [2,3], #rand asks for [4,3]"),
              std::string::npos);
}

TEST_F(TestcaseValues, RepeatRepeatsEachSliceAlongAxis0LikeNumpyRepeat) {
    npy("z.npy", {1, 3}, {1, 2, 3});
    npy("zz.npy", {2, 3}, {1, 2, 3, 4, 5, 6});
    npy("a.npy", {3}, {1, 1, 1});
    auto o = options({"zeta:z.npy;alpha:#rand(0,1)"});
    o.repeat = 2;
    const auto t = tc::make_testcases(two_output_model(), o);
    EXPECT_EQ(floats(t.values[0][3]), (std::vector<float>{1, 2, 3, 1, 2, 3}));
    // A [2,3] file repeated twice is [4,3]: rows 1,1,2,2 (numpy.repeat, not tile), which zeta is not.
    EXPECT_NE(refusal({"zeta:zz.npy;alpha:a.npy"}, 2).find("[4,3] when repeated 2 times along axis 0"),
              std::string::npos);
    const auto rows = tc::make_testcases(two_output_model(), options({"zeta:zz.npy;alpha:a.npy"}));
    EXPECT_EQ(floats(rows.values[0][3]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(TestcaseValues, ARepeatThatCannotFitIsRefusedBeforeItAllocates) {
    // 2 rows × 2^31 is 2^32: repeating first used to wrap the row count to 0 and
    // copy 2^32 rows into an empty tensor (a manifest's "repeat" or --repeat).
    npy("zz.npy", {2, 3}, {1, 2, 3, 4, 5, 6});
    npy("a.npy", {3}, {1, 1, 1});
    EXPECT_NE(refusal({"zeta:zz.npy;alpha:a.npy"}, 2147483648u)
                  .find("[4294967296,3] when repeated 2147483648 times along axis 0"),
              std::string::npos);
}

TEST_F(TestcaseValues, RepeatDoesNotApplyToRandomData) {
    auto o = options({"#rand(0,1)"});
    o.repeat = 3;
    EXPECT_EQ(tc::make_testcases(two_output_model(), o).values[0][3].shape(), ir::Shape::of({2, 3}));
}

TEST_F(TestcaseValues, SpecListsInAFileGiveOneTestCaseALine) {
    write("specs.txt", "#rand(0,1)\n\nzeta:#rand(0,1);alpha:#rand(5,6)\n");
    EXPECT_EQ(tc::make_testcases(two_output_model(), options({"@specs.txt", "#rand(1,2)"})).values.size(),
              3u);
}

TEST_F(TestcaseValues, BadSpecsAreRefusedWithTheirReason) {
    npy("z.npy", {2, 3}, {1, 2, 3, 4, 5, 6});
    npy("small.npy", {1, 3}, {1, 2, 3});
    std::ofstream(dir / "junk.npy") << "not an array";
    // A missing input, named with the model's inputs.
    EXPECT_NE(refusal({"zeta:z.npy"}).find("no data for input 'alpha' (Float32 [3])"), std::string::npos);
    // A name the model does not have.
    EXPECT_NE(refusal({"zeta:z.npy;beta:z.npy"}).find("the model has no input 'beta'"), std::string::npos);
    // The wrong shape.
    const std::string shape = refusal({"zeta:small.npy;alpha:#rand(0,1)"});
    EXPECT_NE(shape.find("input 'zeta' is Float32 [2,3], " + (dir / "small.npy").string() + " holds [1,3]"),
              std::string::npos)
        << shape;
    // Unreadable files: missing, not a .npy.
    EXPECT_NE(refusal({"zeta:nope.npy;alpha:#rand(0,1)"}).find("nope.npy: cannot open"), std::string::npos);
    EXPECT_NE(refusal({"zeta:junk.npy;alpha:#rand(0,1)"}).find("junk.npy"), std::string::npos);
    // A file without a name for a model of two inputs.
    EXPECT_NE(refusal({"z.npy"}).find("a file without an input name is for a one-input model"),
              std::string::npos);
    EXPECT_NE(refusal({"zeta:z.npy;zeta:z.npy"}).find("input 'zeta' is given twice"), std::string::npos);
    EXPECT_NE(refusal({"@missing.txt"}).find("cannot read"), std::string::npos);
    // Syntax.
    for (const char* bad :
         {"#rand(1)", "#rand(a,b)", "#random(0,1)", "#rand(2,1)", "#rand(0,1,0)", "x:", ";"})
        EXPECT_THROW(tc::parse_case_spec(bad), OptionError) << bad;
    // Every refusal names its test case.
    EXPECT_NE(refusal({"#rand(0,1)", "zeta:z.npy"}).find("test case 1 ('zeta:z.npy')"), std::string::npos);
}

TEST_F(TestcaseValues, OptionsWithoutTestCasesOrWithBadValuesAreRefused) {
    tc::TestcaseOptions o;
    EXPECT_THROW(tc::check_testcase_options(o), OptionError);
    o.input_data = {"#rand(0,1)"};
    o.repeat = 0;
    EXPECT_THROW(tc::check_testcase_options(o), OptionError);
    o.repeat = 1;
    o.maxerr = -1;
    EXPECT_THROW(tc::check_testcase_options(o), OptionError);
    o.maxerr = 1e-4;
    EXPECT_NO_THROW(tc::check_testcase_options(o));
}

TEST_F(TestcaseValues, FilesReadListsNpyFilesAndSpecLists) {
    write("specs.txt", "zeta:b.npy;alpha:#rand(0,1)\n");
    const auto files =
        tc::files_read({"zeta:a.npy;alpha:#rand(0,1)", "@specs.txt", "zeta:a.npy;alpha:c.npy"}, dir);
    EXPECT_EQ(files, (std::vector<std::filesystem::path>{dir / "specs.txt", dir / "a.npy", dir / "b.npy",
                                                         dir / "c.npy"}));
}

}  // namespace
}  // namespace mgedump
