// The evaluator against ONNX's own test suite (Debian's libonnx-testdata:
// /usr/share/libonnx-testdata/data/{node,pytorch-converted,pytorch-operator,simple,real}/*/
// model.onnx with test_data_set_*/input_N.pb and output_N.pb). Every model the
// importer converts, and both writers (FBS_V2 and FBS) then take, is executed on
// every data set and must match the expected
// outputs with ONNX's backend-test tolerance (rtol 1e-3, atol 1e-7; integers
// exactly). The counts are printed, with the refusals grouped by reason;
// formats/onnx/ONNX_IMPORT.md carries them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>

#include "engine/dump.h"
#include "engine/eval/evaluator.h"
#include "engine/eval/onnx_test_data.h"
#include "formats/onnx/import.h"
#include "formats/onnx/model_file.h"
#include "formats/onnx/onnx_proto.h"
#include "ir/error.h"
#include "onnx_counterparts.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

const fs::path kTestData = "/usr/share/libonnx-testdata/data";

// Converted models whose expected outputs the evaluator does not reproduce, with
// the reason. The test fails if one of them starts to match (then it leaves
// this list).
const std::string kBfloat16Truncation =
    "ONNX 1.12's test data casts float to bfloat16 by truncation (onnx/backend/test/case/node/cast.py keeps "
    "the high 16 bits); MegEngine's TypeCvt rounds to nearest even, as the evaluator does: one bfloat16 ulp";
// PyTorch's opset-6 DOUBLE models whose test inputs are uninitialised memory: values
// up to 1e+223 and denormals down to 1e-316. MegEngine has no Float64; the importer
// holds DOUBLE as Float32 (formats/onnx/ONNX_IMPORT.md), where they overflow to
// infinity or flush to zero.
const std::string kDoubleGarbage =
    "DOUBLE model whose test inputs are uninitialised memory (|x| up to 1e+223, denormals to 1e-316): MegEngine "
    "has no Float64 and the importer holds DOUBLE as Float32, where those overflow or flush to zero";
// onnx/backend/test/case/node/adam.py export_adam_multiple computes the expected
// outputs with epsilon = 1e-2 but never gives the node that attribute, so the node
// has Adam's default, 1e-6 (onnx/defs/training/defs.cc), which the importer applies.
const std::string kAdamEpsilonNotInTheNode =
    "the expected outputs use epsilon 1e-2, which ONNX's generator never set on the node: the node's epsilon is "
    "Adam's default 1e-6";
const std::map<std::string, std::string> kKnownMismatches = {
    {"node/test_adam_multiple", kAdamEpsilonNotInTheNode},
    {"node/test_cast_FLOAT_to_BFLOAT16", kBfloat16Truncation},
    {"node/test_castlike_FLOAT_to_BFLOAT16", kBfloat16Truncation},
    {"node/test_castlike_FLOAT_to_BFLOAT16_expanded", kBfloat16Truncation},
    {"pytorch-operator/test_operator_add_broadcast", kDoubleGarbage},
    {"pytorch-operator/test_operator_add_size1_right_broadcast", kDoubleGarbage},
    {"pytorch-operator/test_operator_add_size1_singleton_broadcast", kDoubleGarbage},
    {"pytorch-operator/test_operator_addconstant", kDoubleGarbage},
};

// A regression floor, measured on Debian's libonnx-testdata 1.12.0 (dpkg -l
// libonnx-testdata): the importer converted this many of its models when the floor was
// set. Converting fewer is a regression; raise it when the importer converts more.
constexpr size_t kConvertedFloor = 987;

// Digits replaced by '#', so that one reason with different values is one class.
std::string without_numbers(std::string_view s) {
    std::string out;
    for (char ch : s) {
        if (std::isdigit(static_cast<unsigned char>(ch))) {
            if (out.empty() || out.back() != '#') out += '#';
        } else {
            out += ch;
        }
    }
    return out;
}

std::string refusal_class(std::string_view what);

// The classes of an import refusal, for the grouped counts. The importer refuses
// a model whose op types lack handlers in one error listing them ("N operator types
// cannot be converted (...): A (2 nodes, first 'n'); B (...: why)"): one class
// "unsupported operator A" per listed type (a model missing several counts under
// each). Any other error is "X: <why>" (the node's op type and the message without
// the model path and node name), or the message after the model path.
std::vector<std::string> refusal_classes(std::string_view what) {
    constexpr std::string_view kList = " cannot be converted (";
    if (size_t at = what.find(kList); at != std::string_view::npos) {
        std::string_view rest = what.substr(at + kList.size());
        if (size_t colon = rest.find("): "); colon != std::string_view::npos) rest.remove_prefix(colon + 3);
        std::vector<std::string> out;
        while (!rest.empty()) {
            const size_t end = rest.find("; ");
            std::string_view item = rest.substr(0, end);
            std::string cls = "unsupported operator " + std::string(item.substr(0, item.find(" (")));
            // A reason after the first node's name ("first 'n': BatchNormalization-1, ...").
            if (size_t why = item.find("': "); why != std::string_view::npos)
                cls += ": " + without_numbers(item.substr(why + 3, item.size() - why - 4));
            out.push_back(std::move(cls));
            if (end == std::string_view::npos) break;
            rest.remove_prefix(end + 2);
        }
        return out;
    }
    return {refusal_class(what)};
}

// One refusal that is not an unsupported-op list: "X: <why>". The importer names a
// node "node 'n' (X)", or "unnamed X node making 'y'" (most test-data nodes).
std::string refusal_class(std::string_view what) {
    std::string_view rest = what;
    std::string op;
    constexpr std::string_view kUnnamed = ": unnamed ", kMaking = " node making '";
    if (size_t u = rest.find(kUnnamed); u != std::string_view::npos && rest.find(kMaking, u) != std::string_view::npos) {
        rest.remove_prefix(u + kUnnamed.size());
        const size_t making = rest.find(kMaking);
        op = std::string(rest.substr(0, making));
        rest.remove_prefix(making + kMaking.size());
        const size_t close = rest.find("': ");
        rest.remove_prefix(close == std::string_view::npos ? rest.size() : close + 3);
    } else if (size_t n = rest.find(": node '"); n != std::string_view::npos) {
        rest.remove_prefix(n);
        if (size_t open = rest.find("' ("); open != std::string_view::npos) {
            rest.remove_prefix(open + 3);
            size_t close = rest.find("): ");
            if (close != std::string_view::npos) {
                op = std::string(rest.substr(0, close));
                rest.remove_prefix(close + 3);
            }
        }
    } else if (size_t colon = rest.find(".onnx: "); colon != std::string_view::npos) {
        rest.remove_prefix(colon + 7);
    }
    if (!op.empty() && rest == "operator type is not supported") return "unsupported operator " + op;
    const std::string why = without_numbers(rest.substr(0, 90));
    return op.empty() ? why : op + ": " + why;
}

std::vector<fs::path> models() {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& suite : fs::directory_iterator(kTestData, ec))
        for (const auto& m : fs::directory_iterator(suite.path(), ec))
            if (fs::exists(m.path() / "model.onnx")) out.push_back(m.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> input_names(const fs::path& model) {
    const formats::OnnxModelFile m = formats::read_onnx_model(model);
    std::set<std::string> init;
    for (const auto& t : m.proto->graph().initializer()) init.insert(t.name());
    std::vector<std::string> names;
    for (const auto& in : m.proto->graph().input())
        if (!init.count(in.name())) names.push_back(in.name());
    return names;
}

// A model converts when both of MegEngine's formats can hold the imported graph:
// the writers refuse what no MegEngine loader takes (an empty constant, for one),
// which importing alone does not see. Throws the first writer's Error.
void dump_both_formats(const ir::Graph& g) {
    for (engine::DumpFormat format : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpOptions options;
        options.dump_format = format;
        try {
            const engine::Dumped d = engine::dump_graph(g, options);
            if (d.bytes.size() == 0) throw Error("the dump wrote no bytes");
        } catch (const Error& e) {
            throw Error(fmt::format("dump to {}: {}", engine::format_name(format), e.what()));
        }
    }
}

// "" when every data set matches, else the first problem.
std::string run_model(const fs::path& dir, const ir::Graph& g) {
    const auto names = input_names(dir / "model.onnx");
    for (const auto& set : engine::eval::read_onnx_test_sets(dir)) {
        const auto outputs = engine::eval::evaluate(g, engine::eval::onnx_feeds(g, set, names));
        if (outputs.size() != set.outputs.size())
            return fmt::format("{} outputs, {} expected", outputs.size(), set.outputs.size());
        for (size_t i = 0; i < outputs.size(); ++i) {
            const auto c = engine::eval::check_against_onnx(outputs[i].value, set.outputs[i].value, outputs[i].name);
            if (!c.ok())
                return fmt::format("{}: output {} '{}': {}", set.dir.filename().string(), i, c.name,
                                   c.problem.empty() ? fmt::format("{} elements outside tolerance, max abs {:.3g}",
                                                                   c.mismatched, c.max_abs)
                                                     : c.problem);
        }
    }
    return "";
}

TEST(OnnxTestData, EveryConvertedModelMatchesItsExpectedOutputs) {
    const std::vector<fs::path> all = models();
    ASSERT_GT(all.size(), 1000u) << "libonnx-testdata is not installed (tools/setup.sh installs it)";
    size_t converted = 0, matched = 0, known = 0, not_executed = 0;
    std::map<std::string, size_t> refused;  // by refusal_classes
    // Refused models MegEngine has no counterpart for (tests/eval/onnx_counterparts.h), by why.
    std::map<std::string_view, size_t> without_counterpart;
    // MGEDUMP_ONNX_TESTDATA_LIST=1 prints every model's outcome (refused: why).
    const bool list = std::getenv("MGEDUMP_ONNX_TESTDATA_LIST") != nullptr;
    for (const fs::path& dir : all) {
        const std::string id = dir.parent_path().filename().string() + "/" + dir.filename().string();
        ir::Graph g;
        try {
            g = formats::import_onnx(dir / "model.onnx");
            dump_both_formats(g);
        } catch (const Error& e) {
            std::optional<std::string_view> none;
            for (const std::string& cls : refusal_classes(e.what())) {
                ++refused[cls];
                if (!none) none = no_counterpart(cls);
            }
            if (none) ++without_counterpart[*none];
            if (list) std::cout << fmt::format("refused {}: {}\n", id, e.what());
            continue;
        }
        ++converted;
        std::string problem;
        try {
            problem = run_model(dir, g);
        } catch (const engine::eval::EvalError& e) {
            problem = e.what();
            ++not_executed;
        } catch (const Error& e) {
            problem = e.what();
        }
        if (list) std::cout << fmt::format("converted {}: {}\n", id, problem.empty() ? "matches" : problem);
        if (auto k = kKnownMismatches.find(id); k != kKnownMismatches.end()) {
            EXPECT_NE(problem, "") << id << " is listed as a known mismatch (" << k->second << ") but now matches";
            ++known;
            continue;
        }
        if (problem.empty()) ++matched;
        else ADD_FAILURE() << id << ": " << problem;
    }
    std::cout << fmt::format("ONNX test data: {} models, {} converted, {} matched, {} known mismatches, {} not executed\n",
                             all.size(), converted, matched, known, not_executed);
    std::vector<std::pair<size_t, std::string>> by_count;
    for (const auto& [why, n] : refused) by_count.emplace_back(n, why);
    std::sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::cout << fmt::format("Refused at import: {} models, {} reasons (a model lacking several operators counts "
                             "under each)\n",
                             all.size() - converted, by_count.size());
    for (const auto& [n, why] : by_count) std::cout << fmt::format("  {:4}  {}\n", n, why);
    size_t excluded = 0;
    for (const auto& [why, n] : without_counterpart) excluded += n;
    const size_t with_counterpart = all.size() - excluded;
    std::cout << fmt::format("With a MegEngine counterpart: {} models, {} of them match ({:.1f}%); without one: {}\n",
                             with_counterpart, matched, 100.0 * static_cast<double>(matched) / with_counterpart,
                             excluded);
    for (const auto& [why, n] : without_counterpart) std::cout << fmt::format("  {:4}  {}\n", n, why);
    EXPECT_EQ(matched + known, converted);
    EXPECT_GE(converted, kConvertedFloor) << "fewer ONNX test-data models convert than the regression floor";
}

// The share's denominator leaves out only what MegEngine cannot hold.
TEST(OnnxTestData, OnlyModelsMegEngineCannotHoldAreLeftOutOfTheShare) {
    EXPECT_EQ(no_counterpart("unsupported operator SequenceAt"), kNotATensor);
    EXPECT_EQ(no_counterpart("graph input 'opt_in': only tensor inputs are supported"), kNotATensor);
    EXPECT_EQ(no_counterpart("element type UINT# has no MegEngine dtype"), kNoUnsigned32);
    EXPECT_EQ(no_counterpart("unsupported operator Bernoulli"), kRandom);
    // Hard, but MegEngine has the means: these count against the importer.
    EXPECT_EQ(no_counterpart("unsupported operator Loop"), std::nullopt);
    EXPECT_EQ(no_counterpart("unsupported operator QuantizeLinear"), std::nullopt);
    EXPECT_EQ(no_counterpart("ReduceSum: axes (input #) must be a constant known at import time"), std::nullopt);
    for (const std::string& cls : refusal_classes(
             "m.onnx: 2 operator types cannot be converted (formats/onnx/ONNX_IMPORT.md lists the supported ones): "
             "Loop (1 node, first 'a'); SequenceInsert (2 nodes, first 'b')"))
        EXPECT_TRUE(cls == "unsupported operator Loop" || cls == "unsupported operator SequenceInsert") << cls;
    // A refusal naming the node, by its name or, unnamed, by the output it makes.
    EXPECT_EQ(refusal_class("m.onnx: node 'r1' (Resize): scales (input 2) must be a constant"),
              "Resize: scales (input #) must be a constant");
    EXPECT_EQ(refusal_class("m.onnx: unnamed Resize node making 'Y': scales (input 2) must be a constant"),
              "Resize: scales (input #) must be a constant");
}

}  // namespace
}  // namespace mgedump
