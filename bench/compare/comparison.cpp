#include "bench/compare/comparison.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>

#include "bench/compare/naive_dumper.h"
#include "bench/support/measure.h"
#include "engine/dump.h"
#include "engine/passes/compat_rewrite.h"
#include "formats/onnx/onnx_proto.h"
#include "ir/infer.h"
#include "ir/order.h"
#include "tests/never_inferred.h"

namespace mgedump::bench {
namespace {

double time_once(const std::function<void()>& f, Clock clock) {
    const auto read = clock == Clock::Wall ? now_seconds : thread_cpu_seconds;
    const double start = read();
    f();
    return read() - start;
}

}  // namespace

ComparisonRow compare_model(const ModelUnderTest& model, engine::DumpFormat format, int rounds, Clock clock) {
    engine::DumpOptions options;
    options.dump_format = format;

    // The naive dumper gets the graph as MegEngine's would: already rewritten, with
    // every var's static shape known (MegEngine infers as it builds).
    ir::Graph rewritten = model.graph;
    engine::apply_compat_rewrites(rewritten, format);
    ir::apply_inferred(rewritten, ir::infer_graph(rewritten, ir::dump_order(rewritten)));
    const std::vector<ir::OprId> original_order = ir::dump_order(model.graph);

    ComparisonRow row;
    row.model = model.name;
    row.format = format == engine::DumpFormat::FBS ? "FBS" : "FBS_V2";

    // mgedump as a batch worker or a long-lived caller runs it: buffers recycled
    // from dump to dump (formats/write_scratch.h), kept up to the largest model.
    formats::WriteScratch scratch(size_t{2} << 30);
    std::vector<std::byte> spill;
    {
        engine::Dumped d = engine::dump_graph(model.graph, options, &scratch, into_warm(spill));
        std::span<const std::byte> ours(spill.data(), d.result.tot_bytes);
        std::vector<uint8_t> naive = naive_dump(rewritten, options);
        if (naive.size() != ours.size() || std::memcmp(naive.data(), ours.data(), ours.size()) != 0)
            throw std::runtime_error(model.name + " " + row.format +
                                     ": the naive baseline's bytes differ from mgedump's; no comparison");
        row.operators = d.result.nr_opr;
        row.file_bytes = d.result.tot_bytes;
    }

    // The same graph as a hand-assembled one reaches the dump: never inferred, with
    // no dtype or shape recorded for a var an operator computes
    // (tests/never_inferred.h), so the dump infers it (engine/dump.cpp) right after
    // validating it. Its bytes must be the inferred graph's.
    const ir::Graph uninferred = test::as_never_inferred(model.graph);
    {
        std::vector<std::byte> again;
        engine::Dumped d = engine::dump_graph(uninferred, options, &scratch, into_warm(again));
        if (d.result.tot_bytes != row.file_bytes ||
            std::memcmp(again.data(), spill.data(), row.file_bytes) != 0)
            throw std::runtime_error(model.name + " " + row.format +
                                     ": the dump that infers writes other bytes than the dump of the inferred graph");
    }

    const auto segments = weight_segments(model.graph);
    row.weight_bytes = total_bytes(segments);
    std::vector<std::byte> limit_buf(row.weight_bytes);  // warm: written once before timing
    copy_segments(segments, limit_buf.data());

    std::optional<onnx::ModelProto> proto;
    // Protobuf's encoder (what SerializeToString runs) into a buffer written once
    // before timing, as the limit and mgedump get: page faults on a fresh string
    // would otherwise decide this column on this VM.
    std::vector<std::byte> onnx_out;
    if (model.onnx_bytes) {
        proto.emplace();
        if (!proto->ParseFromString(*model.onnx_bytes))
            throw std::runtime_error(model.name + ": not a parseable ONNX ModelProto");
    }

    constexpr size_t kMgedump = 1, kNaive = 2;  // positions in `methods`
    std::vector<std::function<void()>> methods = {
        [&] { copy_segments(segments, limit_buf.data()); },
        [&] {
            // As a library caller (the Python module) dumps: no whole-file digest.
            engine::Dumped d =
                engine::dump_graph(model.graph, options, &scratch, into_warm(spill), engine::Digest::Skip);
            if (d.result.tot_bytes != row.file_bytes) throw std::logic_error("dump size changed between rounds");
        },
        [&] {
            std::vector<uint8_t> bytes = naive_dump(rewritten, options);
            if (bytes.size() != row.file_bytes) throw std::logic_error("naive size changed between rounds");
        },
    };
    if (proto) {
        onnx_out.resize(proto->ByteSizeLong());
        auto serialize = [&] {
            const size_t n = proto->ByteSizeLong();
            if (n > onnx_out.size() || !proto->SerializeToArray(onnx_out.data(), static_cast<int>(n)))
                throw std::runtime_error(model.name + ": ONNX serialization failed");
        };
        serialize();
        methods.push_back(serialize);
    }
    // The static inference of every operator (ir/infer.h), alone, as a dump would
    // run it on a graph no builder or reader had inferred.
    const size_t inference = methods.size();
    methods.push_back([&] {
        ir::InferState state = ir::infer_graph(model.graph, original_order);
        if (state.dtypes.size() != model.graph.vars.size()) throw std::logic_error("inference lost vars");
    });
    // The dump of the never-inferred copy: the dump column again, with the
    // inference a dump runs for such a graph (inside the dump, after validation).
    const size_t dump_inferring = methods.size();
    methods.push_back([&] {
        engine::Dumped d =
            engine::dump_graph(uninferred, options, &scratch, into_warm(spill), engine::Digest::Skip);
        if (d.result.tot_bytes != row.file_bytes) throw std::logic_error("dump size changed between rounds");
    });
    // Making the graph, which is where a conversion pays for inference.
    const size_t make = methods.size();
    methods.push_back([&] {
        const ir::Graph again = model.make();
        if (again.oprs.size() != model.graph.oprs.size()) throw std::logic_error("the model made again differs");
    });
    // As the CLI and the batch dump: with the xxh3-128 of the file they report.
    const size_t with_digest = methods.size();
    methods.push_back([&] {
        engine::Dumped d = engine::dump_graph(model.graph, options, &scratch, into_warm(spill), engine::Digest::Compute);
        if (d.result.xxh3_128.empty()) throw std::logic_error("no digest with Digest::Compute");
    });
    // Nothing: its samples are the clock's own cost (ComparisonRow::clock_s).
    const size_t clock_only = methods.size();
    methods.push_back([] {});

    // Each round runs the methods in a fresh order (a fixed-seed shuffle, so runs
    // repeat), so no method always follows the same one. After each naive run, one
    // untimed mgedump dump: the first dump after the naive dumper (which grows and
    // frees 100-300 MB of vectors) ran 5-10x slower on this VM, whichever dump it
    // was and even with memcpys in between, and the dumps after it did not. With a
    // fixed rotation that penalty always fell on the +digest column (60-110 ms
    // against 10 ms alone); absorbed here, every column times its own work.
    std::vector<std::vector<double>> samples(methods.size());
    std::vector<size_t> order(methods.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::mt19937 shuffler(20261130);
    for (int r = 0; r < rounds; ++r) {
        std::shuffle(order.begin(), order.end(), shuffler);
        for (size_t m : order) {
            samples[m].push_back(time_once(methods[m], clock));
            if (m == kNaive) methods[kMgedump]();  // untimed: absorbs the after-effect
        }
    }
    row.clock_s = median(samples[clock_only]);
    // A median less the clock's cost; never below zero (a method as cheap as
    // reading the clock, in a noisy round).
    auto net_median = [&](size_t m) { return std::max(0.0, median(samples[m]) - row.clock_s); };
    row.memcpy_s = net_median(0);
    row.mgedump_s = net_median(kMgedump);
    row.naive_s = net_median(kNaive);
    if (proto) row.onnx_s = net_median(3);
    row.with_digest_s = net_median(with_digest);
    row.inference_s = net_median(inference);
    row.make_s = net_median(make);
    row.dump_inferring_s = net_median(dump_inferring);
    return row;
}

}  // namespace mgedump::bench
