// ONNX import options in batches (issue #17): manifest keys params_as_shared,
// fold_batch_norm and input_shapes, the batch flags they override, their refusals,
// and --incremental stamps that change with them.
#include <gtest/gtest.h>

#include <algorithm>

#include "batch_fixtures.h"
#include "cli_run.h"
#include "ir/error.h"
#include "jobs/manifest.h"
#include "jobs/model_input.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;

std::string errors_of(const jobs::Job& j) { return fmt::format("{}", fmt::join(j.errors, "\n")); }

// x (1, 2, 4, 4) -> Conv(conv.weight, conv.bias) -> y.
OnnxModel conv_model() {
    OnnxModel m;
    m.input("x", {1, 2, 4, 4}).output("y");
    m.ramp("conv.weight", {3, 2, 1, 1});
    m.initializer("conv.bias", {3}, {0.5f, -1.0f, 2.0f});
    m.node("Conv", {"x", "conv.weight", "conv.bias"}, {"y"});
    return m;
}

// x (batch, 2, 4, 4), batch symbolic as a dynamic_axes export writes it -> Conv -> y.
OnnxModel dynamic_batch_model() {
    OnnxModel m;
    m.symbolic_input("x", {"batch", "2", "4", "4"}).output("y");
    m.ramp("w", {3, 2, 1, 1});
    m.node("Conv", {"x", "w"}, {"y"});
    return m;
}

struct OnnxBatch {
    ScratchDir in, out;
    jobs::BatchReport run(const std::string& manifest, const formats::OnnxImportOptions& flags = {},
                          bool incremental = false) {
        write_text(in / "m.jsonl", manifest);
        jobs::Manifest m = jobs::read_manifest_file(in / "m.jsonl", engine::DumpOptions{}, flags);
        jobs::BatchOptions o;
        o.out_dir = out.path;
        o.threads = 2;
        o.incremental = incremental;
        return jobs::run_batch(m, o);
    }
    // The artifact read back as a model.
    ir::Graph load(const std::string& name) const { return jobs::read_model_input(out / name).graph; }
};

// The names params carry in `g` (their tensors', as the file stores them), sorted.
V param_names(const ir::Graph& g) {
    V out;
    for (size_t o = 0; o < g.oprs.size(); ++o) {
        if (ir::op_def(g.oprs.type[o]).name != "SharedDeviceTensor") continue;
        const ir::Range tr = g.oprs.tensors[o];
        for (uint32_t t = tr.begin; t < tr.begin + tr.count; ++t)
            out.emplace_back(g.tensors.name[t].valid() ? g.str(g.tensors.name[t]) : "");
    }
    std::ranges::sort(out);
    return out;
}

std::vector<uint32_t> input_var_shape(const ir::Graph& g) {
    ir::OprId in = find_opr(g, "Host2DeviceCopy");
    auto s = g.var_shape(g.output_var(in, 0));
    return {s.begin(), s.end()};
}

TEST(BatchOnnx, ParamsAsSharedWithKeepParamNameWritesTheInitializerNames) {
    OnnxBatch t;
    conv_model().write(t.in / "m.onnx");
    jobs::BatchReport r = t.run(
        R"({"input": "m.onnx", "output": "shared.mge", "params_as_shared": true, "keep_param_name": true})"
        "\n"
        R"({"input": "m.onnx", "output": "plain.mge", "keep_param_name": true})");
    ASSERT_TRUE(r.ok()) << r.artifacts[0].error << r.artifacts[1].error;
    const ir::Graph shared = t.load("shared.mge");
    EXPECT_EQ(param_names(shared), (V{"conv.bias", "conv.weight"}));
    EXPECT_EQ(count_ops(shared, "ImmutableTensor"), 0u);
    // Without the key, initializers are anonymous constants: keep_param_name has nothing to keep.
    const ir::Graph plain = t.load("plain.mge");
    EXPECT_EQ(count_ops(plain, "SharedDeviceTensor"), 0u);
    EXPECT_EQ(count_ops(plain, "ImmutableTensor"), 2u);
}

TEST(BatchOnnx, InputShapesFixASymbolicDimension) {
    OnnxBatch t;
    dynamic_batch_model().write(t.in / "d.onnx");
    jobs::BatchReport r = t.run(R"({"input": "d.onnx", "input_shapes": {"x": [5, 2, 4, 4]}})");
    ASSERT_TRUE(r.ok()) << r.artifacts[0].error;
    EXPECT_EQ(input_var_shape(t.load("d.mge")), (std::vector<uint32_t>{5, 2, 4, 4}));

    // Without it the job fails alone, saying how to fix the shape.
    r = t.run(R"({"input": "d.onnx", "output": "none.mge"})");
    ASSERT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Failed);
    EXPECT_NE(r.artifacts[0].error.find("dimension 0 ('batch') is symbolic"), std::string::npos)
        << r.artifacts[0].error;
}

TEST(BatchOnnx, FoldBatchNormFalseKeepsTheBatchNormAsItsOwnOperator) {
    OnnxBatch t;
    conv_bn_model().write(t.in / "bn.onnx");
    jobs::BatchReport r = t.run(R"({"input": "bn.onnx", "output": "folded.mge"})"
                                "\n"
                                R"({"input": "bn.onnx", "output": "kept.mge", "fold_batch_norm": false})");
    ASSERT_TRUE(r.ok()) << r.artifacts[0].error << r.artifacts[1].error;
    EXPECT_EQ(compute_ops(t.load("folded.mge")), V{"ConvBias"});
    // BatchNormalization at inference maps onto one FUSE_MUL_ADD3 Elemwise (formats/onnx/batch_norm.h).
    const ir::Graph kept = t.load("kept.mge");
    EXPECT_EQ(compute_ops(kept), (V{"Convolution", "Elemwise"}));
    EXPECT_EQ(enum_field(kept, find_opr(kept, "Elemwise"), "mode"), "FUSE_MUL_ADD3");
}

TEST(BatchOnnx, FlagsAreDefaultsWhichTheManifestsDefaultsAndThenEachJobOverride) {
    formats::OnnxImportOptions flags;
    flags.params_as_shared_device_tensor = true;
    flags.input_shapes = {{"x", {1, 2, 4, 4}}};
    jobs::Manifest m = jobs::parse_manifest(
        R"({"input": "a.onnx"})"
        "\n"
        R"({"defaults": {"fold_batch_norm": false}})"
        "\n"
        R"({"input": "b.onnx"})"
        "\n"
        R"({"input": "c.onnx", "params_as_shared": false, "fold_batch_norm": true, "input_shapes": {"data": [3], "s": []}})"
        "\n"
        R"({"input": "d.onnx", "input_shapes": {}})",
        "/in", {}, "m.jsonl", flags);
    ASSERT_EQ(m.jobs.size(), 4u);
    for (const jobs::Job& j : m.jobs) ASSERT_TRUE(j.ok()) << errors_of(j);
    const auto& a = m.jobs[0].onnx;  // the flags
    EXPECT_TRUE(a.params_as_shared_device_tensor);
    EXPECT_TRUE(a.fold_batch_norm);
    EXPECT_EQ(a.input_shapes, flags.input_shapes);
    const auto& b = m.jobs[1].onnx;  // the flags under the manifest's defaults
    EXPECT_TRUE(b.params_as_shared_device_tensor);
    EXPECT_FALSE(b.fold_batch_norm);
    EXPECT_EQ(b.input_shapes, flags.input_shapes);
    const auto& c = m.jobs[2].onnx;  // the job's own; its input_shapes replace the defaults'
    EXPECT_FALSE(c.params_as_shared_device_tensor);
    EXPECT_TRUE(c.fold_batch_norm);
    EXPECT_EQ(c.input_shapes, (std::map<std::string, std::vector<int64_t>>{{"data", {3}}, {"s", {}}}));
    EXPECT_TRUE(m.jobs[3].onnx.input_shapes.empty());  // {} clears them

    // Directory mode: every ONNX input gets the flags.
    ScratchDir dir;
    conv_model().write(dir / "m.onnx");
    jobs::Manifest scanned = jobs::scan_directory(dir.path, {}, {}, flags);
    ASSERT_EQ(scanned.jobs.size(), 1u);
    EXPECT_TRUE(scanned.jobs[0].onnx.params_as_shared_device_tensor);
}

TEST(BatchOnnx, TheBatchFlagsReachEachOnnxImportAndJobKeysOverrideThem) {
    ScratchDir in, out;
    conv_model().write(in / "m.onnx");
    write_text(in / "m.jsonl", R"({"input": "m.onnx", "output": "flag.mge"})"
                               "\n"
                               R"({"input": "m.onnx", "output": "job.mge", "params_as_shared": false})");
    CliRun r = run_cli(fmt::format("batch {} -o {} -q --params-as-shared --keep-param-name",
                                   (in / "m.jsonl").string(), out.path.string()));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(param_names(jobs::read_model_input(out / "flag.mge").graph), (V{"conv.bias", "conv.weight"}));
    EXPECT_EQ(count_ops(jobs::read_model_input(out / "job.mge").graph, "SharedDeviceTensor"), 0u);

    // Directory mode too, and --input-shape / --no-fold-batch-norm as dump has them.
    ScratchDir dir, out2;
    dynamic_batch_model().write(dir / "d.onnx");
    conv_bn_model().write(dir / "bn.onnx");
    r = run_cli(fmt::format("batch {} -o {} -q --input-shape x=3x2x4x4 --no-fold-batch-norm",
                            dir.path.string(), out2.path.string()));
    // bn.onnx has an input x (1, 2, 4, 4): the shape given for every ONNX job does not fit it.
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_EQ(input_var_shape(jobs::read_model_input(out2 / "d.mge").graph),
              (std::vector<uint32_t>{3, 2, 4, 4}));
    EXPECT_NE(
        r.out.find(
            "bn.onnx): graph input 'x': the given shape [3x2x4x4] has 3 at axis 0, the model declares 1 "
            "(given by --input-shape)"),
        std::string::npos)
        << r.out;
    r = run_cli(fmt::format("batch {} -o {} -q --no-fold-batch-norm", dir.path.string(), out2.path.string()));
    EXPECT_EQ(r.status, 1) << r.out;  // d.onnx now has a symbolic batch
    EXPECT_EQ(compute_ops(jobs::read_model_input(out2 / "bn.mge").graph), (V{"Convolution", "Elemwise"}));
    r = run_cli(fmt::format("batch {} -o {} --input-shape x=1x2x4x4 --input-shape x=2x2x4x4",
                            dir.path.string(), out2.path.string()));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--input-shape x=2x2x4x4: that input's shape is already given"), std::string::npos)
        << r.out;
}

TEST(BatchOnnx, BadValuesAndKeysOnOtherInputsAreEntryErrorsNamingTheLineAndKey) {
    jobs::Manifest m = jobs::parse_manifest(
        R"({"input": "a.onnx", "params_as_shared": "yes"})"
        "\n"
        R"({"input": "b.onnx", "fold_batch_norm": 0, "input_shapes": {"x": [1, 0, 3], "y": "1x3", "z": [2.5]}})"
        "\n"
        R"({"input": "c.onnx", "input_shapes": [1, 3]})"
        "\n"
        R"({"input": "g.json", "params_as_shared": true, "input_shapes": {"x": [1]}})"
        "\n"
        R"({"input": "e.onnx", "variants": [{"suffix": ".a.mge"}, {"suffix": ".b.mge", "fold_batch_norm": false}]})"
        "\n"
        R"({"input": "f.onnx", "params_as_shared": true, "fold_batch_norm": false, "input_shapes": {"x": [1, 3]}})",
        "/in", {}, "m.jsonl");
    ASSERT_EQ(m.jobs.size(), 6u);
    auto has = [&](size_t job, const std::string& text) {
        EXPECT_NE(errors_of(m.jobs[job]).find(text), std::string::npos) << errors_of(m.jobs[job]);
    };
    has(0, R"(m.jsonl:1: "params_as_shared": expected true or false, got "yes")");
    has(1, R"(m.jsonl:2: "fold_batch_norm": expected true or false, got 0)");
    has(1, R"(m.jsonl:2: "input_shapes": "x": expected a list of dimensions (whole numbers from 1)");
    has(1, R"("y": expected a list)");
    has(1, R"("z": expected a list)");
    has(2, R"(m.jsonl:3: "input_shapes": expected an object of input name -> list of dimensions, got [1,3])");
    has(3,
        R"(m.jsonl:4: "params_as_shared": an ONNX import option, but the input "g.json" is not an ONNX model)");
    has(3, R"(m.jsonl:4: "input_shapes": an ONNX import option)");
    has(4,
        R"(m.jsonl:5: variants[1]: "fold_batch_norm": an ONNX import option acts on the job's one import)");
    EXPECT_EQ(m.jobs[1].errors.size(), 4u) << errors_of(m.jobs[1]);
    EXPECT_TRUE(m.jobs[5].ok()) << errors_of(m.jobs[5]);

    // In "defaults" a bad value is a problem of the manifest itself; the ONNX keys
    // there are fine whatever the inputs (they apply to the ONNX ones).
    try {
        jobs::parse_manifest(R"({"defaults": {"input_shapes": {"x": [-1]}}, "jobs": [{"input": "a.json"}]})",
                             "/in", {}, "m.json");
        ADD_FAILURE() << "accepted";
    } catch (const jobs::ManifestError& e) {
        EXPECT_NE(std::string(e.what()).find(R"(m.json: defaults: "input_shapes": "x": expected a list)"),
                  std::string::npos)
            << e.what();
    }
    jobs::Manifest ok = jobs::parse_manifest(
        R"({"defaults": {"params_as_shared": true}, "jobs": [{"input": "a.json"}, {"input": "b.onnx"}]})",
        "/in", {}, "m.json");
    EXPECT_TRUE(ok.jobs[0].ok() && ok.jobs[1].ok());
    EXPECT_TRUE(ok.jobs[1].onnx.params_as_shared_device_tensor);
}

TEST(BatchOnnx, TheCommandLineRefusesAManifestWithBadOnnxKeysBeforeAnythingRuns) {
    ScratchDir in, out;
    conv_model().write(in / "m.onnx");
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "m.jsonl", R"({"input": "m.onnx", "output": "ok.mge"})"
                               "\n"
                               R"({"input": "a.json", "fold_batch_norm": false})"
                               "\n"
                               R"({"input": "m.onnx", "output": "bad.mge", "params_as_shared": 1})");
    CliRun r = run_cli(fmt::format("batch {} -o {}", (in / "m.jsonl").string(), out.path.string()));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find(R"(m.jsonl:2: "fold_batch_norm": an ONNX import option, but the input "a.json")"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(R"(m.jsonl:3: "params_as_shared": expected true or false, got 1)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("2 problem(s) found before anything ran"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out / "ok.mge"));
}

TEST(BatchOnnx, AnInputShapeForAnUnknownInputFailsThatJobAloneNamingTheLineAndKey) {
    OnnxBatch t;
    conv_model().write(t.in / "m.onnx");
    jobs::BatchReport r =
        t.run(R"({"input": "m.onnx", "output": "bad.mge", "input_shapes": {"image": [1, 2, 4, 4]}})"
              "\n"
              R"({"input": "m.onnx", "output": "good.mge"})");
    ASSERT_EQ(r.artifacts.size(), 2u);
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Failed);
    const std::string& e = r.artifacts[0].error;
    EXPECT_NE(
        e.find(fmt::format("{}:1: \"input_shapes\": {}: an input shape is given for 'image', which is not a "
                           "graph input (the inputs: x)",
                           (t.in / "m.jsonl").string(), (t.in / "m.onnx").string())),
        std::string::npos)
        << e;
    EXPECT_EQ(r.artifacts[1].status, jobs::ArtifactStatus::Written);
    EXPECT_FALSE(fs::exists(t.out / "bad.mge"));
}

TEST(BatchOnnx, IncrementalRebuildsWhenAnOnnxOptionChangesAndSkipsWhenNot) {
    OnnxBatch t;
    conv_bn_model().write(t.in / "bn.onnx");
    write_text(t.in / "a.json", small_graph_json(1));
    const std::string plain = R"({"input": "bn.onnx"})"
                              "\n"
                              R"({"input": "a.json"})";
    auto status = [](const jobs::BatchReport& r) {
        std::vector<jobs::ArtifactStatus> s;
        for (const auto& a : r.artifacts) s.push_back(a.status);
        return s;
    };
    using S = jobs::ArtifactStatus;
    using Ss = std::vector<S>;
    EXPECT_EQ(status(t.run(plain, {}, true)), (Ss{S::Written, S::Written}));
    EXPECT_EQ(status(t.run(plain, {}, true)), (Ss{S::Skipped, S::Skipped}));

    // A job key: only that ONNX job is rebuilt, into other bytes.
    const std::string before = read_text(t.out / "bn.mge");
    const std::string unfolded = R"({"input": "bn.onnx", "fold_batch_norm": false})"
                                 "\n"
                                 R"({"input": "a.json"})";
    EXPECT_EQ(status(t.run(unfolded, {}, true)), (Ss{S::Written, S::Skipped}));
    EXPECT_NE(read_text(t.out / "bn.mge"), before);
    EXPECT_EQ(compute_ops(t.load("bn.mge")), (V{"Convolution", "Elemwise"}));
    EXPECT_EQ(status(t.run(unfolded, {}, true)), (Ss{S::Skipped, S::Skipped}));

    // The flags (here: what --no-fold-batch-norm gives) count as the job's options
    // too: the same options from there are current, others rebuild.
    formats::OnnxImportOptions no_fold;
    no_fold.fold_batch_norm = false;
    EXPECT_EQ(status(t.run(plain, no_fold, true)), (Ss{S::Skipped, S::Skipped}));
    formats::OnnxImportOptions shapes;
    shapes.input_shapes = {{"x", {1, 2, 4, 4}}};  // equal to the declared shape, still another option
    EXPECT_EQ(status(t.run(plain, shapes, true)), (Ss{S::Written, S::Skipped}));
    EXPECT_EQ(status(t.run(plain, shapes, true)), (Ss{S::Skipped, S::Skipped}));
    formats::OnnxImportOptions shared;
    shared.params_as_shared_device_tensor = true;
    EXPECT_EQ(status(t.run(plain, shared, true)), (Ss{S::Written, S::Skipped}));
}

}  // namespace
}  // namespace mgedump::test
