// mgedump_compare: dump speed against the memcpy limit, a naive FlatBuffers
// dumper and ONNX protobuf serialization, per model and format, in one process.
//
//   mgedump_compare MODEL... [--rounds N] [--clock cpu|wall] [--tsv FILE]
//
// MODEL is an .onnx file (imported, and also serialized back with protobuf) or
// synthetic:weight_heavy | synthetic:operator_heavy | synthetic:small.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "bench/compare/comparison.h"
#include "bench/compare/report_table.h"
#include "bench/support/synthetic_models.h"
#include "formats/onnx/import.h"

namespace mgedump::bench {
namespace {

ModelUnderTest load_model(const std::string& spec) {
    const std::string synthetic = "synthetic:";
    if (spec.starts_with(synthetic)) {
        const std::string kind = spec.substr(synthetic.size());
        ModelUnderTest m{.name = kind};
        if (kind == "weight_heavy")
            m.make = [] { return weight_heavy_graph(24, 1024); };
        else if (kind == "operator_heavy")
            m.make = [] { return operator_heavy_graph(1000); };
        else if (kind == "small")
            m.make = [] { return small_model(0); };
        else
            throw std::invalid_argument("unknown synthetic model '" + kind + "'");
        m.graph = m.make();
        return m;
    }
    const std::filesystem::path path(spec);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(spec + ": cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    ModelUnderTest m{.name = path.stem().string(), .graph = formats::import_onnx(path), .onnx_bytes = text.str()};
    // From the bytes in memory, viewing the weights there, so the column times the
    // import, not the file system.
    auto bytes = std::make_shared<const std::string>(*m.onnx_bytes);
    m.make = [bytes, dir = path.parent_path(), label = spec] {
        const ir::Bytes view(reinterpret_cast<const std::byte*>(bytes->data()), bytes->size());
        return formats::import_onnx_bytes(view, label, dir, {}, nullptr, bytes);
    };
    return m;
}

int run(int argc, char** argv) {
    CLI::App app{"Dump speed against the memcpy limit, a naive dumper and ONNX protobuf serialization"};
    std::vector<std::string> models;
    int rounds = 11;
    std::string tsv;
    std::string clock_name = "cpu";
    app.add_option("models", models, "ONNX files or synthetic:NAME")->required();
    app.add_option("--rounds", rounds, "interleaved rounds per model and format (medians are reported)")
        ->check(CLI::PositiveNumber);
    app.add_option("--clock", clock_name,
                   "cpu: this thread's CPU time (steady on a shared machine); wall: elapsed time")
        ->check(CLI::IsMember({"cpu", "wall"}));
    app.add_option("--tsv", tsv, "also write the rows as tab-separated values (for tools/bench_chart.sh)");
    CLI11_PARSE(app, argc, argv);

    const Clock clock = clock_name == "wall" ? Clock::Wall : Clock::ThreadCpu;
    std::cout << fmt::format("Medians of {} interleaved rounds, {} time, less the clock's own cost (clock µs).\n\n", rounds,
                             clock == Clock::Wall ? "wall" : "thread CPU");
    std::vector<ComparisonRow> rows;
    for (const std::string& spec : models) {
        ModelUnderTest m = load_model(spec);
        for (auto format : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
            rows.push_back(compare_model(m, format, rounds, clock));
            std::cerr << fmt::format("{} {} done\n", rows.back().model, rows.back().format);
        }
    }
    std::cout << markdown_table(rows);
    if (!tsv.empty()) {
        std::ofstream out(tsv);
        out << tsv_rows(rows);
        if (!out) throw std::runtime_error(tsv + ": cannot write");
    }
    return 0;
}

}  // namespace
}  // namespace mgedump::bench

int main(int argc, char** argv) {
    try {
        return mgedump::bench::run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "mgedump_compare: " << e.what() << "\n";
        return 1;
    }
}
