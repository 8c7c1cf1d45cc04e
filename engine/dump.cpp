#include "engine/dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>

#include "engine/artifact_pass.h"
#include "engine/loader_limits.h"
#include "engine/value_scan.h"
#include "engine/passes/compat_rewrite.h"
#include "engine/passes/make_folds.h"
#include "engine/passes/rewrite_check.h"
#include "engine/passes/param_dedup.h"
#include "engine/strip_info.h"
#include "formats/fbs_build.h"
#include "formats/write_plan.h"
#include "ir/describe.h"
#include "ir/error.h"
#include "ir/infer.h"
#include "ir/op_registry.h"
#include "ir/validate.h"

namespace mgedump::engine {
namespace {

// MegEngine warns (and still dumps) when a float32 value is NaN or infinite. The
// artifact pass counted the values it read; the small ones copied into the
// FlatBuffer by the writer are counted here.
void warn_non_finite(const ir::Graph& g, const std::vector<ir::OprId>& order, const ArtifactPass& pass,
                     std::vector<std::string>& warnings) {
    // The pass's counts by tensor id (a search per tensor was 2% of an
    // operator-heavy dump).
    constexpr uint64_t kNotCounted = ~uint64_t{0};
    std::vector<uint64_t> counted(g.tensors.size(), kNotCounted);
    for (const auto& [tensor, bad] : pass.non_finite) counted[tensor] = bad;
    for (ir::OprId o : order) {
        ir::Range t = g.oprs.tensors[o.value];
        for (uint32_t i = t.begin; i < t.end(); ++i) {
            ir::BlobId b = g.tensors.blob[i];
            if (!b.valid() || g.tensors.dtype[i].type != ir::DTypeEnum::Float32) continue;
            const uint64_t bad = counted[i] != kNotCounted ? counted[i] : count_non_finite_f32(g.blobs.bytes(b));
            if (bad)
                warnings.push_back(fmt::format("{}: tensor {} has {} non-finite float32 value(s)",
                                               ir::describe_opr(g, o), i, bad));
        }
    }
}

}  // namespace

Dumped dump_graph(const ir::Graph& original, const DumpOptions& options, formats::WriteScratch* scratch,
                  ArtifactSink* into, Digest digest) {
    check_options(options);
    if (options.testcases)
        throw OptionError("test cases make a test-case file of several graphs (engine/testcase/testcase_dump.h), "
                          "not one graph");
    const bool v1 = options.dump_format == DumpFormat::FBS;

    // The operators the outputs reach, in dump order: computed once per version of
    // the graph and shared by the passes, the checks and the writer (perf: five
    // walks of an operator-heavy graph were 8% of its dump).
    std::vector<ir::OprId> order = ir::dump_order(original);
    const ir::ValidateOptions validate_options{.unique_output_names = options.keep_var_name >= 1};

    // A graph MegEngine would refuse to build is refused before a byte is written:
    // the structure first (rules index inputs and params), then every operator's
    // dtype and shape rules (ir/infer.h).
    ir::validate(original, validate_options, order);
    check_loadable_by_megengine(original, order, options);
    // A graph from the builder or a reader was inferred when it was made: its var
    // table holds the result (an empty state reads through to it).
    ir::InferState inferred;
    if (!original.inferred) inferred = ir::infer_graph(original, order);
    // Of the graph as given (spec §8), with the dtypes just inferred (the state
    // moves on to the rewritten graph below); written once the dump has succeeded.
    std::optional<formats::StripInfo> strip_info;
    if (options.strip_info_file) strip_info = compute_strip_info(original, inferred);

    // Rewrites work on a copy; copying shares the tensor bytes.
    ir::Graph rewritten;
    const ir::Graph* g = &original;
    // Operators from this index on were added by the passes below; validate()
    // accepted the rest.
    size_t first_added = original.oprs.size();
    // The passes, the checks and the writer read dtypes and shapes through
    // `inferred` (an empty state reads through to the var table), never the
    // copy's table alone: writing a whole state into the copy's table was a
    // fifth of what inference added to a dump of a transformer nobody had
    // inferred (tests/dump_never_inferred_test.cpp checks the bytes).
    auto copy_once = [&] {
        if (g != &original) return;
        rewritten = original;
        g = &rewritten;
    };
    // Operators MegEngine's make folds away are never written, whatever the options.
    if (needs_make_folds(original, order, inferred)) {
        copy_once();
        apply_make_folds(rewritten, order, inferred);
        order = ir::dump_order(rewritten);
        inferred = ir::infer_graph(rewritten, order);
    }
    // Copying the tables costs as much as writing a small model: only when needed.
    if (!options.no_change_graph && needs_compat_rewrites(*g, options.dump_format, order)) {
        copy_once();
        const RewriteStats rewrites =
            apply_compat_rewrites(rewritten, options.dump_format, order, {.known = &inferred});
        order = ir::dump_order(rewritten);
        inferred = infer_rewritten(rewritten, order, rewrites.first_added, rewrites.added_source,
                                   std::move(inferred));
        check_rewrites_keep_vars(rewritten, inferred, rewrites.replacements);
        // MegEngine's loader builds what the rewrites wrote with make too, and make
        // folds some of it: the LayerNorm rewrite's Reshape of the normalised
        // values back to the input's shape is the values themselves when that
        // shape is CONST (a real MegEngine refused FBS swin_v2_t, whose post-norms
        // follow a Reshape to a constant).
        if (needs_make_folds(rewritten, order, inferred)) {
            apply_make_folds(rewritten, order, inferred);
            order = ir::dump_order(rewritten);
            inferred = ir::infer_graph(rewritten, order);
        }
    }
    // After the rewrites, so constants they add are merged too.
    ParamDedupStats dedup;
    if (options.dedup_params) {
        ParamDuplicates found = find_duplicate_params(*g,
                                                      ParamDedupOptions{.keep_param_name = options.keep_param_name,
                                                                        .keep_opr_name = options.keep_opr_name,
                                                                        .keep_opr_priority = options.keep_opr_priority},
                                                      order);
        // The tables are copied only when something is merged.
        if (!found.replace.empty()) {
            copy_once();
            merge_duplicate_params(rewritten, found);
            order = ir::dump_order(rewritten);
        }
        dedup = found.stats;
    }
    if (g != &original) ir::validate_appended(*g, validate_options, order, first_added);

    formats::WritePlan plan{.graph = *g};
    plan.order = std::move(order);
    plan.numbering = ir::number_vars(*g, plan.order);
    plan.keep_var_name = options.keep_var_name;
    plan.keep_opr_name = options.keep_opr_name;
    plan.keep_param_name = options.keep_param_name;
    plan.keep_opr_priority = options.keep_opr_priority;
    plan.compat_8_14 = options.compat_older_version.has_value();
    plan.model_version = options.model_version;
    plan.mgb_version = options.mgb_version;
    plan.metadata = options.metadata.value_or(ir::Metadata{});
    plan.inferred = &inferred;

    // Names MegEngine requires to be unique: inputs, and params when their names are kept.
    if (options.keep_param_name) {
        std::map<std::string_view, ir::OprId> seen;
        for (ir::OprId o : plan.order) {
            ir::Range t = g->oprs.tensors[o.value];
            for (uint32_t i = t.begin; i < t.end(); ++i) {
                if (g->tensors.method[i] != ir::TensorMethod::ValueShared) continue;
                std::string_view name = g->str(g->tensors.name[i]);
                auto [it, fresh] = seen.emplace(name, o);
                if (!fresh && it->second != o)
                    throw GraphError(fmt::format("{}: param name '{}' is already used by {} (keep_param_name needs "
                                                 "unique param names)",
                                                 ir::describe_opr(*g, o), name, ir::describe_opr(*g, it->second)));
            }
        }
    }

    Dumped out;
    formats::WriteStats stats;
    out.bytes = v1 ? formats::write_fbs_v1(plan, stats, scratch) : formats::write_fbs_v2(plan, stats, scratch);

    DumpResult& r = out.result;
    r.nr_opr = stats.nr_opr;
    r.tot_bytes = out.bytes.size();
    r.tensor_value_bytes = stats.tensor_value_bytes;
    r.content_hash = v1 ? stats.content_hash : 0;
    r.inputs = std::move(stats.inputs);
    std::sort(r.inputs.begin(), r.inputs.end());
    r.params = std::move(stats.params);
    for (size_t i = 0; i < g->outputs.size(); ++i) {
        ir::VarId v = g->outputs[i];
        r.outputs.push_back(options.keep_var_name >= 1
                                ? formats::var_name_for_dump(*g, v, plan.numbering.compact_id[v.value])
                                : fmt::format("unnamed{}", i));
    }
    const ArtifactPass pass = artifact_pass(out.bytes, *g, into, digest);
    if (into) out.bytes = formats::Serialized{};  // the sink holds the artifact now
    r.xxh3_128 = pass.xxh3_128;
    r.bytes_read_from_files = pass.bytes_read_from_files;
    r.dedup_tensors_saved = dedup.tensors_saved;
    r.dedup_bytes_saved = dedup.bytes_saved;
    warn_non_finite(*g, plan.order, pass, r.warnings);

    if (options.strip_info_file)
        formats::write_strip_info_file(*options.strip_info_file, *strip_info, r.content_hash,
                                       options.append_json);
    return out;
}

Dumped dump_graph(const ir::Graph& g, const DumpOptions& options, formats::WriteScratch* scratch) {
    return dump_graph(g, options, scratch, static_cast<ArtifactSink*>(nullptr));
}

Dumped dump_graph(const ir::Graph& g, const DumpOptions& options, formats::WriteScratch* scratch,
                  const OutputBuffer& allocate, Digest digest) {
    BufferSink sink(allocate);
    return dump_graph(g, options, scratch, &sink, digest);
}

Dumped dump_graph(const ir::Graph& g, const std::vector<std::pair<std::string, ir::VarId>>& named_outputs,
                  const DumpOptions& options, ArtifactSink* into, Digest digest) {
    ir::Graph renamed = g;
    renamed.outputs.clear();
    std::map<uint32_t, std::string_view> name_of;
    for (const auto& [name, var] : named_outputs) {
        if (var.value >= renamed.vars.size())
            throw GraphError(fmt::format("output '{}' refers to var {}, which does not exist", name, var.value));
        auto [it, fresh] = name_of.emplace(var.value, name);
        if (!fresh)
            throw GraphError(fmt::format("{} is given two output names, '{}' and '{}'", ir::describe_var(g, var),
                                         it->second, name));
        renamed.vars.name[var.value] = renamed.strings.intern(name);
        renamed.outputs.push_back(var);
    }
    return dump_graph(renamed, options, nullptr, into, digest);
}

}  // namespace mgedump::engine
