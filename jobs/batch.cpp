#include "jobs/batch.h"

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>

#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "engine/eval/numeric_verify.h"
#include "engine/strip_info.h"
#include "engine/testcase/input_data.h"
#include "engine/testcase/testcase_dump.h"
#include "ir/error.h"
#include "jobs/artifact_places.h"
#include "jobs/error_text.h"
#include "jobs/memory_gate.h"
#include "jobs/model_input.h"
#include "formats/model_reader.h"
#include "jobs/output_path.h"
#include "jobs/scratch_pool.h"
#include "jobs/stamp.h"

namespace mgedump::jobs {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

uint64_t default_budget() {
    long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return 4ull << 30;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
}

// One model moving through the pipeline.
struct InFlight {
    const Job* job = nullptr;
    size_t slot = 0;         // first report row of this job
    uint64_t footprint = 0;  // held in the memory gate until the job is done
    std::optional<ModelInput> input;
    std::optional<std::vector<StampedFile>> files;  // what the model was read from, for stamps
    std::optional<formats::StripInfo> strip_info;
    std::vector<std::optional<Stamped>> current;  // per variant, with --incremental
};

// Prefixes the model unless the message already starts with it (graph JSON and
// model readers name their file themselves); without the JSON library's
// internals or temporary file names, which mean nothing to the reader.
std::string with_model(const Job& job, std::string_view what) {
    const std::string text = without_temp_names(without_json_prefixes(what));
    const std::string label = job.input.string();
    if (text.starts_with(label)) return text;
    return fmt::format("{}: {}", label, text);
}

// The graph as read, executed once per job for verify_numeric: the values every
// artifact of the job must reproduce.
struct NumericReference {
    engine::eval::Feeds feeds;
    std::vector<engine::eval::EvalOutput> outputs;
};

// The artifact `options` would write, loaded again and executed on the
// reference's inputs. Throws Error when a number differs beyond tolerance.
ArtifactReport::Numeric check_numeric(const ir::Graph& g, const engine::DumpOptions& options,
                                      std::optional<NumericReference>& reference, uint64_t seed) {
    if (!reference) {
        reference.emplace();
        reference->feeds = engine::eval::random_feeds(g, seed);
        reference->outputs = engine::eval::evaluate(g, reference->feeds);
    }
    auto bytes = std::make_shared<std::vector<std::byte>>(engine::dump_graph(g, options).bytes.to_bytes());
    const formats::LoadedModel m = formats::read_model(*bytes, bytes);
    const std::vector<engine::eval::EvalOutput> got = engine::eval::evaluate(m.graph, reference->feeds);
    ArtifactReport::Numeric n;
    for (size_t i = 0; i < got.size() && i < reference->outputs.size(); ++i) {
        const auto d = engine::eval::diff_output(reference->outputs[i].name, got[i].value, reference->outputs[i].value);
        if (!d.problem.empty())
            throw Error(fmt::format("numeric check: output '{}': {}; not written", d.name, d.problem));
        if (n.worst_output.empty() || d.max_rel > n.max_rel) n.worst_output = d.name;
        n.max_abs = std::max(n.max_abs, d.max_abs);
        n.max_rel = std::max(n.max_rel, d.max_rel);
    }
    if (n.max_rel > engine::eval::NumericReport::kFloatTolerance)
        throw Error(fmt::format("numeric check: output '{}' differs from the graph as read by {:.3g} of its largest "
                                "value (tolerance {:g}); not written",
                                n.worst_output, n.max_rel, engine::eval::NumericReport::kFloatTolerance));
    return n;
}

// append_json's merge (spec §8): values already there keep their place, new ones go to the end.
void merge_strip_info(formats::StripInfo& into, const formats::StripInfo& from) {
    auto append = [](std::vector<std::string>& to, const std::vector<std::string>& more) {
        for (const std::string& s : more)
            if (std::ranges::find(to, s) == to.end()) to.push_back(s);
    };
    append(into.opr_types, from.opr_types);
    append(into.dtypes, from.dtypes);
    append(into.elemwise_modes, from.elemwise_modes);
}

// What stamps record of how the job's input is imported: only ONNX inputs have options.
const formats::OnnxImportOptions* onnx_of(const Job& job) {
    return is_onnx_input(job.input) ? &job.onnx : nullptr;
}

// A failed read for the report. An ONNX import's OptionError is about the input
// shapes given (formats/onnx/import.h), so it names the job and key that set them:
// the manifest line, or in directory mode (no manifest) the flag.
std::string load_error(const Job& job, const std::exception& e) {
    const std::string what = with_model(job, e.what());
    if (!is_onnx_input(job.input) || !dynamic_cast<const OptionError*>(&e)) return what;
    if (job.where == job.input.string()) return fmt::format("{} (given by --input-shape)", what);
    return fmt::format("{}: \"input_shapes\": {}", job.where, what);
}

// A manifest entry's problems already say where in the manifest they are.
std::string entry_errors(const Job& job) {
    std::string s;
    for (const std::string& e : job.errors) s += (s.empty() ? "" : "; ") + e;
    return s;
}

// The worker count this process can really run: TBB caps an arena at the
// process's max_allowed_parallelism (the cores, unless a global_control says
// otherwise) and prints a warning when asked for more. Asking for more than the
// cores is allowed (I/O-bound batches); the limit is raised for the batch.
struct ThreadLimit {
    std::optional<tbb::global_control> raised;
    unsigned threads;
    explicit ThreadLimit(unsigned requested) {
        using GC = tbb::global_control;
        const auto allowed = [] { return static_cast<unsigned>(GC::active_value(GC::max_allowed_parallelism)); };
        threads = requested ? requested : static_cast<unsigned>(tbb::info::default_concurrency());
        if (threads > allowed()) raised.emplace(GC::max_allowed_parallelism, threads);
        // Another, lower global_control (an embedding program's) still wins.
        threads = std::max(1u, std::min(threads, allowed()));
    }
};

class Runner {
  public:
    // The cache may keep a quarter of the budget of shared bytes alive between models.
    Runner(const Manifest& m, const BatchOptions& o)
        : manifest_(m), options_(o), gate_(budget()), cache_(budget() / 4) {
        ops_ = o.file_ops ? o.file_ops : &default_ops_;
    }

    BatchReport run() {
        const auto start = Clock::now();
        std::error_code ec;
        fs::create_directories(options_.out_dir, ec);
        if (ec)
            throw Error(fmt::format("{}: cannot create output directory: {}", options_.out_dir.string(),
                                    ec.message()));

        for (const Job& job : manifest_.jobs)
            if (in_shard(job, options_.shard)) selected_.push_back(&job);
        remove_stale_temp_files();
        lay_out_report();
        const ThreadLimit limit(options_.threads);
        const unsigned threads = limit.threads;

        pool_.emplace(scratch_retain(threads));
        tbb::task_arena arena(static_cast<int>(threads));
        arena.execute([&] {
            plan_footprints();
            run_pipeline(threads);
            cache_.clear();  // on the batch's threads, not serially in ~Runner
        });

        report_.threads = threads;
        report_.memory_budget = budget();
        report_.buffers = pool_->stats();
        report_.shard = options_.shard;
        finish_report();
        report_.seconds = since(start);
        return std::move(report_);
    }

  private:
    // Temporary files a killed earlier run left where this one writes (the
    // engine removes only those whose writer is gone): OUT_DIR, the stamps and
    // every directory an output of this shard goes to.
    void remove_stale_temp_files() const {
        std::set<fs::path> dirs{options_.out_dir, options_.out_dir / kStampDirName};
        for (const Job* job : selected_)
            for (const Variant& v : job->variants) {
                dirs.insert((options_.out_dir / v.output).parent_path());
                dirs.insert(stamp_path(options_.out_dir, v.output).parent_path());
            }
        for (const fs::path& d : dirs) engine::remove_stale_temp_files(d);
    }

  private:
    uint64_t budget() const { return options_.memory_budget ? options_.memory_budget : default_budget(); }

    // One token per thread would idle threads while a model waits on I/O; two
    // keep them busy. With one thread, one token: a second model could only be
    // admitted by blocking the one thread the first needs.
    static size_t tokens(unsigned threads) { return threads <= 1 ? 1 : threads * 2; }

    // Recycled write buffers live outside the memory gate's accounting, so all of
    // them together keep at most an eighth of the budget (and 256 MiB each).
    size_t scratch_retain(unsigned threads) const {
        return static_cast<size_t>(std::min<uint64_t>(budget() / 8 / tokens(threads), uint64_t{256} << 20));
    }

    // Rows are laid out before anything runs, so each job writes only its own rows
    // and the report order is the manifest's whatever the scheduling.
    void lay_out_report() {
        for (const Job* job : selected_) {
            first_row_.push_back(report_.artifacts.size());
            ArtifactReport row;
            row.job = job->index;
            row.input = job->input.string();
            if (job->variants.empty()) report_.artifacts.push_back(row);
            for (const Variant& v : job->variants) {
                row.path = v.output;
                row.format = v.options.dump_format;
                report_.artifacts.push_back(row);
            }
        }
        strip_infos_.resize(selected_.size());
        input_bytes_.resize(selected_.size());
    }

    void plan_footprints() {
        footprints_.resize(selected_.size());
        tbb::parallel_for(size_t(0), selected_.size(), [&](size_t i) {
            footprints_[i] = estimate_footprint(selected_[i]->input, selected_[i]->variants.size());
        });
        for (uint64_t f : footprints_) footprint_total_ += f;
    }

    void run_pipeline(unsigned threads) {
        size_t next = 0;
        tbb::parallel_pipeline(
            tokens(threads),
            tbb::make_filter<void, InFlight*>(tbb::filter_mode::serial_in_order,
                                              [&](tbb::flow_control& fc) -> InFlight* {
                                                  if (next == selected_.size()) {
                                                      fc.stop();
                                                      return nullptr;
                                                  }
                                                  auto* w = new InFlight;
                                                  w->job = selected_[next];
                                                  w->slot = next;
                                                  w->footprint = footprints_[next];
                                                  ++next;
                                                  gate_.acquire(w->footprint);
                                                  return w;
                                              }) &
                tbb::make_filter<InFlight*, InFlight*>(tbb::filter_mode::parallel,
                                                       [&](InFlight* w) { return load(w); }) &
                tbb::make_filter<InFlight*, void>(tbb::filter_mode::parallel, [&](InFlight* w) { emit(w); }));
    }

    // read → parse → intern blobs; strip info from the graph as given (spec §8).
    // With --incremental, a job whose every artifact is current is done here,
    // without reading its input.
    InFlight* load(InFlight* w) {
        const Job& job = *w->job;
        if (!job.ok()) return w;
        if (options_.incremental && all_current(w)) return w;
        try {
            w->input = read_model_input(job.input, &read_buffers_, job.onnx, [&](const fs::path& side) {
                artifact_places_.refuse_if_the_batch_writes(side, job);
            });
            digests_.remember(job.input, w->input->file_bytes, w->input->input_digest);
            models_read_.fetch_add(1, std::memory_order_relaxed);
            cache_.intern_graph(w->input->graph);
            input_bytes_[w->slot] = w->input->file_bytes;
            w->strip_info = engine::compute_strip_info(w->input->graph);
            w->files = files_read(job, *w->input);
        } catch (const std::exception& e) {
            w->input.reset();
            fail_job(w, load_error(job, e));
        }
        return w;
    }

    // Checks every variant's stamp; when all are current, fills the job's rows
    // from them. A bad output name is left for emit_variant to report.
    bool all_current(InFlight* w) {
        const Job& job = *w->job;
        const auto start = Clock::now();
        w->current.resize(job.variants.size());
        bool all = !job.variants.empty();
        for (size_t k = 0; k < job.variants.size(); ++k) {
            const Variant& v = job.variants[k];
            try {
                w->current[k] = up_to_date(resolve_output(options_.out_dir, v.output),
                                           stamp_path(options_.out_dir, v.output), key_of(job.input), v.options,
                                           digests_, manifest_.base_dir, onnx_of(job));
            } catch (const std::exception&) {
            }
            all = all && w->current[k].has_value();
        }
        if (!all) return false;
        for (size_t k = 0; k < job.variants.size(); ++k)
            mark_skipped(first_row_[w->slot] + k, *w->current[k], start);
        // A test-case artifact's stamp also has what its asserts and test cases add.
        strip_infos_[w->slot] = w->current[0]->strip_info;
        for (size_t k = 1; k < job.variants.size(); ++k) merge_strip_info(*strip_infos_[w->slot], w->current[k]->strip_info);
        input_bytes_[w->slot] = w->current[0]->input_bytes;
        return true;
    }

    void mark_skipped(size_t row, Stamped& stamped, Clock::time_point start) {
        ArtifactReport& a = report_.artifacts[row];
        a.result = std::move(stamped.result);
        a.status = ArtifactStatus::Skipped;
        a.seconds = since(start);
    }

    // What stamps call a file: relative to the manifest's location (jobs/stamp.h).
    std::string key_of(const fs::path& p) const { return stamp_file_key(manifest_.base_dir, p); }

    // The input file, then every other file the graph came from, each keyed as
    // the stamps record it and with the digest the next incremental run will
    // compare (the input's own bytes only, whatever ModelInput::file_digest
    // covers); nullopt (no stamps: the next incremental run dumps again) if one
    // cannot be hashed.
    std::optional<std::vector<StampedFile>> files_read(const Job& job, const ModelInput& in) {
        std::vector<StampedFile> files;
        auto add = [&](const fs::path& p) {
            const std::string key = key_of(p);
            if (std::ranges::find(files, key, &StampedFile::path) != files.end()) return true;
            std::optional<StampedFile> f = digests_.of(p);
            if (!f) return false;
            f->path = key;
            files.push_back(std::move(*f));
            return true;
        };
        if (!add(job.input)) return std::nullopt;
        for (const fs::path& p : in.dependencies)
            if (!add(p)) return std::nullopt;
        // The .npy files and SPEC lists test cases read.
        for (const Variant& v : job.variants)
            if (v.options.testcases)
                for (const fs::path& p : engine::testcase::files_read(v.options.testcases->input_data, manifest_.base_dir))
                    if (!add(p)) return std::nullopt;
        return files;
    }

    void fail_job(InFlight* w, const std::string& error) {
        size_t row = first_row_[w->slot];
        size_t rows = std::max<size_t>(1, w->job->variants.size());
        for (size_t k = 0; k < rows; ++k) {
            report_.artifacts[row + k].status = ArtifactStatus::Failed;
            report_.artifacts[row + k].error = error;
        }
    }

    // passes → serialize → write, per variant; then the model leaves memory.
    void emit(InFlight* w) {
        std::unique_ptr<InFlight> owned(w);
        const Job& job = *w->job;
        if (!job.ok()) fail_job(w, entry_errors(job));
        if (w->input) {
            ScratchPool::Lease scratch = pool_->lease();
            std::optional<NumericReference> reference;  // computed by the first variant that needs it
            for (size_t k = 0; k < job.variants.size(); ++k) {
                if (k < w->current.size() && w->current[k])
                    mark_skipped(first_row_[w->slot] + k, *w->current[k], Clock::now());
                else
                    emit_variant(*w, job.variants[k], first_row_[w->slot] + k, scratch.get(), reference);
            }
            strip_infos_[w->slot] = std::move(w->strip_info);
        }
        const uint64_t footprint = w->footprint;
        const size_t slot = w->slot;
        owned.reset();  // drop the graph before admitting the next model
        gate_.release(footprint);
        progress(slot);
    }

    // The artifact's bytes live in `scratch` until written; leaving the try block
    // hands them back, so the next variant or job reuses the memory.
    void emit_variant(InFlight& w, const Variant& v, size_t row, formats::WriteScratch* scratch,
                      std::optional<NumericReference>& reference) {
        ArtifactReport& a = report_.artifacts[row];
        const auto start = Clock::now();
        try {
            engine::DumpOptions options = v.options;
            if (!options.metadata)
                options.metadata = w.input->metadata;  // a re-dump keeps the model's metadata
            const fs::path artifact = resolve_output(options_.out_dir, v.output);
            // The graph's own side files (a graph JSON's .npy weights, an ONNX
            // model's external data) are known only once it is read, so the
            // manifest check cannot see them: an artifact on one would replace it.
            for (const fs::path& side : w.input->dependencies)
                if (engine::same_file(artifact, side))
                    throw Error(fmt::format("output \"{}\" would overwrite {}, a weight file this job's graph is "
                                            "read from; write the artifacts to another directory (-o)",
                                            v.output, side.string()));
            if (options_.verify_numeric) {
                engine::DumpOptions model = options;
                model.testcases.reset();  // the check is of the model as dumped
                a.numeric = check_numeric(w.input->graph, model, reference, options_.numeric_seed);
            }
            // Streamed into the temporary file by the pass that hashes it: each
            // weight is read once on its way to disk (engine/artifact_file.h).
            engine::AtomicFile file(artifact.string(), *ops_);
            engine::DumpResult result;
            if (options.testcases) {
                // Relative data paths are the manifest's; the random values depend on
                // the job (by its input, as stamps name it), never on scheduling.
                options.testcases->data_dir = manifest_.base_dir;
                options.testcases->seed =
                    engine::testcase::stream_seed(options.testcases->seed, 0, key_of(w.job->input));
                engine::testcase::TestcaseDumped d =
                    engine::testcase::write_testcase_file(w.input->graph, options, file, {.threads = 1});
                result = std::move(d.model);
                result.tot_bytes = d.file_bytes;  // the artifact's size, which stamps check
                merge_strip_info(*w.strip_info, d.strip_info);
            } else {
                result = engine::dump_graph(w.input->graph, options, scratch, &file).result;
            }
            file.commit();
            if (w.files)
                write_stamp(stamp_path(options_.out_dir, v.output),
                            make_stamp_key(*w.files, v.options, onnx_of(*w.job)),
                            Stamped{result, *w.strip_info, w.input->file_bytes}, *ops_);
            a.result = std::move(result);
            a.status = ArtifactStatus::Written;
        } catch (const std::exception& e) {
            a.status = ArtifactStatus::Failed;
            a.error = with_model(*w.job, e.what());
        }
        a.seconds = since(start);
    }

    void progress(size_t slot) {
        if (!options_.on_progress) return;
        std::lock_guard lock(progress_mutex_);
        ++done_;
        bytes_done_ += input_bytes_[slot];
        work_done_ += footprints_[slot];
        JobProgress p{done_,
                      selected_.size(),
                      bytes_done_,
                      work_done_,
                      footprint_total_,
                      &report_.artifacts[first_row_[slot]],
                      std::max<size_t>(1, selected_[slot]->variants.size())};
        options_.on_progress(p);
    }

    void finish_report() {
        BatchTotals& t = report_.totals;
        t.jobs = selected_.size();
        t.models_read = models_read_.load();
        for (uint64_t b : input_bytes_) t.input_bytes += b;
        for (const ArtifactReport& a : report_.artifacts) {
            ++t.artifacts;
            switch (a.status) {
                case ArtifactStatus::Written:
                    ++t.written;
                    break;
                case ArtifactStatus::Skipped:
                    ++t.skipped;
                    break;
                case ArtifactStatus::Failed:
                    ++t.failed;
                    break;
            }
            if (a.status == ArtifactStatus::Failed) continue;
            t.bytes += a.result.tot_bytes;
            t.dedup_tensors_saved += a.result.dedup_tensors_saved;
            t.dedup_bytes_saved += a.result.dedup_bytes_saved;
            report_.strip_info_hash = a.result.content_hash;
        }
        // append_json over the models in job order: existing values keep their place,
        // new ones go to the end (spec §8).
        auto append = [](std::vector<std::string>& into, const std::vector<std::string>& from) {
            for (const std::string& s : from)
                if (std::ranges::find(into, s) == into.end()) into.push_back(s);
        };
        for (const auto& s : strip_infos_) {
            if (!s) continue;
            append(report_.strip_info.opr_types, s->opr_types);
            append(report_.strip_info.dtypes, s->dtypes);
            append(report_.strip_info.elemwise_modes, s->elemwise_modes);
        }
        report_.blobs = cache_.stats();
    }

    const Manifest& manifest_;
    const BatchOptions& options_;
    const ArtifactPlaces artifact_places_{manifest_, options_.out_dir, options_.written_after};
    MemoryGate gate_;
    engine::FileOps default_ops_;
    engine::FileOps* ops_ = nullptr;
    BlobCache cache_;
    engine::ReadBuffers read_buffers_;
    FileDigests digests_;
    std::atomic<uint64_t> models_read_{0};
    std::optional<ScratchPool> pool_;  // sized once the thread count is known
    std::vector<const Job*> selected_;
    std::vector<size_t> first_row_;
    std::vector<uint64_t> footprints_;
    std::vector<uint64_t> input_bytes_;
    std::vector<std::optional<formats::StripInfo>> strip_infos_;
    uint64_t footprint_total_ = 0;
    BatchReport report_;
    std::mutex progress_mutex_;
    size_t done_ = 0;
    uint64_t bytes_done_ = 0;
    uint64_t work_done_ = 0;
};

}  // namespace

BatchReport run_batch(const Manifest& manifest, const BatchOptions& options) {
    return Runner(manifest, options).run();
}

}  // namespace mgedump::jobs
