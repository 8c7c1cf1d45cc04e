// `mgedump verify FILE...`: each .mge file is loaded (every appended graph),
// validated, dumped again with the options its contents imply, loaded again and
// compared by meaning. A graph JSON or ONNX model is first dumped as `mgedump
// dump` would (default options), and that file is checked the same way. One line
// per file; exit status 0 only if every file passes.
//
// --numeric also executes each graph with the reference evaluator, as given and
// as each format loads it back with and without the compatibility rewrites, and
// reports the largest difference per output (engine/eval/numeric_verify.h). Of a
// test-case file (mgbtest0) it runs the stored test cases instead and checks each
// AssertEqual as load_and_run does (engine/testcase/testcase_check.h).
// --against MODEL.onnx --data DIR executes the model on an ONNX test data set and
// compares with its expected outputs as ONNX's backend tests do.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <set>

#include "engine/dump.h"
#include "engine/load.h"
#include "engine/model_compare.h"
#include "engine/eval/numeric_verify.h"
#include "engine/eval/onnx_test_data.h"
#include "engine/redump.h"
#include "engine/testcase/testcase_check.h"
#include "formats/onnx/model_file.h"
#include "formats/onnx/onnx_proto.h"
#include "formats/testcase_file.h"
#include "ir/error.h"
#include "ir/validate.h"
#include "jobs/model_input.h"
#include "tools/cli/any_model.h"
#include "tools/cli/commands.h"
#include "tools/cli/dump_flags.h"
#include "tools/cli/input_kind.h"

namespace mgedump::cli {
namespace {

struct VerifyCommand {
    std::vector<std::string> inputs;
    bool quiet = false;
    bool numeric = false;
    uint64_t seed = 0;
    int threads = 0;
    uint64_t max_work = engine::eval::kDefaultMaxEvalWork;
    std::string against;  // an ONNX model
    std::string data;     // its test data set(s)
};

// "" when the graph survives the round trip, else what went wrong.
std::string verify_graph(const formats::LoadedModel& m, size_t& nr_opr) {
    ir::validate(m.graph, ir::ValidateOptions{.unique_output_names = m.settings.keep_var_name >= 1});
    engine::Dumped d = engine::dump_graph(m.graph, engine::redump_options(m));
    std::vector<std::byte> bytes = d.bytes.to_bytes();
    auto holder = std::make_shared<std::vector<std::byte>>(std::move(bytes));
    formats::LoadedModel again = formats::read_model(*holder, holder);
    nr_opr += m.graph.oprs.size();
    auto diffs = engine::compare_graphs(m.graph, again.graph, engine::redump_compare_options(m), 3);
    if (m.metadata && again.metadata != m.metadata) diffs.push_back("metadata differs");
    std::string out;
    for (const auto& s : diffs) out += (out.empty() ? "" : "; ") + s;
    return out;
}

// A graph JSON or ONNX input as the .mge file `mgedump dump` writes from it.
std::vector<formats::LoadedModel> dumped_as_by_dump(const std::string& path) {
    engine::Dumped d = engine::dump_graph(jobs::read_model_input(path).graph, to_options(DumpFlags{}));
    auto holder = std::make_shared<std::vector<std::byte>>(d.bytes.to_bytes());
    std::vector<formats::LoadedModel> models;
    models.push_back(formats::read_model(*holder, holder));
    return models;
}

int verify_file(const std::string& path, bool quiet) {
    try {
        const InputKind kind = input_kind(path);
        std::vector<formats::LoadedModel> models;
        std::optional<uint32_t> testcases;  // a test-case file's count (its graphs: the model, then each case)
        if (kind != InputKind::Mge) {
            models = dumped_as_by_dump(path);
        } else {
            engine::MappedFile file = engine::map_file(path);
            testcases = formats::testcase_count(file.bytes);
            try {
                models = formats::read_models(file.bytes, file.owner);
            } catch (const FormatError& e) {
                throw FormatError(fmt::format("{}: {}", path, e.what()));
            }
        }
        size_t nr_opr = 0;
        for (size_t i = 0; i < models.size(); ++i) {
            std::string problem = verify_graph(models[i], nr_opr);
            if (!problem.empty()) {
                std::cout << fmt::format("FAIL {}: graph #{}: re-dump changes meaning: {}\n", path, i, problem);
                return 1;
            }
        }
        std::string format = kind == InputKind::Mge ? std::string(formats::model_format_name(models[0].format))
                                                    : fmt::format("{}, dumped as {}", input_kind_name(kind),
                                                                  formats::model_format_name(models[0].format));
        if (testcases) format = fmt::format("test-case file (mgbtest0, {} test case(s)), {}", *testcases, format);
        if (!quiet)
            std::cout << fmt::format("OK   {}: {}, {} graph(s), {} operators\n", path, format, models.size(), nr_opr);
        return 0;
    } catch (const mgedump::Error& e) {
        std::cout << fmt::format("FAIL {}: {}\n", path, e.what());
        return 1;
    }
}

// A test-case file's own test cases, run as load_and_run runs them: "OK"/"FAIL"
// and a line per case and output with its err against the AssertEqual's maxerr.
int verify_testcase_file(const std::string& path, const formats::TestcaseFile& f, const VerifyCommand& c) {
    const engine::testcase::TestcaseReport r =
        engine::testcase::check_testcases(f, engine::eval::EvalOptions{.threads = c.threads, .max_work = c.max_work});
    const bool ok = r.ok();
    if (ok && c.quiet) return 0;
    std::cout << fmt::format("{} {}: test-case file, {} test case(s) of [{}], {}\n", ok ? "OK  " : "FAIL", path,
                             r.cases.size(), fmt::join(r.input_names, ", "),
                             r.asserts ? fmt::format("{} AssertEqual output(s) checked as load_and_run does "
                                                     "(err = max |expect - get| / max(min(|expect|, |get|), 1))",
                                                     r.asserts)
                                       : std::string("no expected values (written with no_assert): each case is run"));
    for (size_t k = 0; k < r.cases.size(); ++k) {
        const engine::testcase::CaseCheck& cc = r.cases[k];
        if (!cc.problem.empty()) std::cout << fmt::format("  case {}: FAIL, cannot run: {}\n", k, cc.problem);
        for (const auto& o : cc.outputs)
            std::cout << fmt::format("  case {}: {}: err {:.3g} {} maxerr {:g}{}\n", k, o.name, o.err,
                                     o.passed() ? "<=" : "not within", o.maxerr, o.passed() ? "" : " — FAIL");
        if (cc.problem.empty() && cc.outputs.empty()) std::cout << fmt::format("  case {}: ran\n", k);
    }
    return ok ? 0 : 1;
}

// "FAIL"/"OK" lines per variant and output; 0 when every variant is within tolerance.
int verify_numeric_file(const std::string& path, const VerifyCommand& c) {
    try {
        if (input_kind(path) == InputKind::Mge) {
            engine::MappedFile file = engine::map_file(path);
            if (formats::testcase_count(file.bytes))
                return verify_testcase_file(path, formats::read_testcase_file(file.bytes, file.owner), c);
        }
        const ir::Graph g = read_any_model(path);
        const engine::eval::NumericReport r =
            engine::eval::verify_numeric(g, c.seed, engine::eval::EvalOptions{.threads = c.threads, .max_work = c.max_work});
        const bool ok = r.ok();
        if (!ok || !c.quiet) {
            std::cout << fmt::format("{} {}: numeric, inputs from seed {}, float tolerance {:g} of the largest |output|\n",
                                     ok ? "OK  " : "FAIL", path, c.seed, engine::eval::NumericReport::kFloatTolerance);
            for (const auto& v : r.variants) {
                if (!v.not_dumpable.empty()) {
                    std::cout << fmt::format("  {}: not written ({})\n", v.variant, v.not_dumpable);
                    continue;
                }
                for (const auto& o : v.outputs)
                    std::cout << fmt::format("  {}: {}: max abs {:.3g}, max rel {:.3g}{}\n", v.variant, o.name,
                                             o.max_abs, o.max_rel, o.problem.empty() ? "" : " — " + o.problem);
            }
        }
        return ok ? 0 : 1;
    } catch (const mgedump::Error& e) {
        std::cout << fmt::format("FAIL {}: {}\n", path, e.what());
        return 1;
    }
}

// The ONNX graph inputs that are not initializers, in order.
std::vector<std::string> onnx_input_names(const std::string& onnx_path) {
    const formats::OnnxModelFile m = formats::read_onnx_model(onnx_path);
    std::set<std::string> initializers;
    for (const auto& t : m.proto->graph().initializer()) initializers.insert(t.name());
    std::vector<std::string> names;
    for (const auto& in : m.proto->graph().input())
        if (!initializers.count(in.name())) names.push_back(in.name());
    return names;
}

int verify_against_file(const std::string& path, const VerifyCommand& c) {
    try {
        const ir::Graph g = read_any_model(path);
        const std::vector<std::string> names = onnx_input_names(c.against);
        const auto sets = engine::eval::read_onnx_test_sets(c.data);
        bool ok = true;
        std::string lines;
        for (const auto& set : sets) {
            const auto outputs = engine::eval::evaluate(g, engine::eval::onnx_feeds(g, set, names),
                                                        engine::eval::EvalOptions{.threads = c.threads, .max_work = c.max_work});
            if (outputs.size() != set.outputs.size())
                throw Error(fmt::format("{}: {} expected outputs, the model has {}", set.dir.string(),
                                        set.outputs.size(), outputs.size()));
            for (size_t i = 0; i < outputs.size(); ++i) {
                const auto check = engine::eval::check_against_onnx(outputs[i].value, set.outputs[i].value, outputs[i].name);
                ok &= check.ok();
                lines += fmt::format("  {}: {}: max abs {:.3g}, max rel {:.3g}{}\n", set.dir.filename().string(),
                                     check.name, check.max_abs, check.max_rel,
                                     !check.problem.empty() ? " — " + check.problem
                                     : check.mismatched ? fmt::format(" — {} elements outside tolerance", check.mismatched)
                                                        : "");
            }
        }
        if (!ok || !c.quiet)
            std::cout << fmt::format("{} {}: against {} on {} data set(s), rtol 1e-3 atol 1e-7 (integers exact)\n{}",
                                     ok ? "OK  " : "FAIL", path, c.data, sets.size(), lines);
        return ok ? 0 : 1;
    } catch (const mgedump::Error& e) {
        std::cout << fmt::format("FAIL {}: {}\n", path, e.what());
        return 1;
    }
}

void run_verify(const VerifyCommand& c) {
    if (c.against.empty() != c.data.empty()) {
        std::cerr << "mgedump verify: --against MODEL.onnx and --data DIR go together\n";
        set_exit_code(2);
        return;
    }
    int status = 0;
    for (const auto& path : c.inputs) {
        if (!c.against.empty()) status |= verify_against_file(path, c);
        else if (c.numeric) status |= verify_numeric_file(path, c);
        else status |= verify_file(path, c.quiet);
    }
    set_exit_code(status);
}

}  // namespace

void register_verify(CLI::App& app) {
    auto state = std::make_shared<VerifyCommand>();
    CLI::App* cmd = app.add_subcommand(
        "verify", "Check models: load, validate, re-dump, reload, compare (graph JSON and ONNX: dumped first)");
    cmd->add_option("inputs", state->inputs, "the .mge files, graph JSON files or ONNX models")->required();
    cmd->add_flag("-q,--quiet", state->quiet, "print only the files that fail");
    cmd->add_flag("--numeric", state->numeric,
                  "execute each graph as given and as each format (with and without the compatibility rewrites) "
                  "loads it again, on the same inputs, and compare the outputs; of a test-case file (mgbtest0), run "
                  "its test cases and check each AssertEqual's err against its maxerr, as load_and_run does");
    cmd->add_option("--seed", state->seed, "seed of the --numeric inputs (default 0)");
    cmd->add_option("--against", state->against, "MODEL.onnx: compare with this ONNX model's test data (--data)");
    cmd->add_option("--data", state->data, "DIR: an ONNX test data set (input_N.pb, output_N.pb) or a folder of "
                                           "test_data_set_* folders");
    cmd->add_option("--threads", state->threads, "threads for the evaluator's parallel kernels (default: every core)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--max-eval-work", state->max_work,
                    "N: refuse a model whose evaluation would take more than N estimated multiply-adds "
                    "(default 2^42, a hostile model's guard)")
        ->check(CLI::PositiveNumber);
    cmd->callback([state] { run_verify(*state); });
}

}  // namespace mgedump::cli
