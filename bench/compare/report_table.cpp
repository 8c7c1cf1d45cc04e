#include "bench/compare/report_table.h"

#include <fmt/format.h>

namespace mgedump::bench {
namespace {

std::string ms(double s) { return fmt::format("{:.3f}", s * 1e3); }

}  // namespace

std::string markdown_table(const std::vector<ComparisonRow>& rows) {
    std::string out =
        "| model | format | oprs | weights MB | memcpy ms | mgedump ms | naive ms | onnx ms | +digest ms "
        "| mgedump GB/s | limit/mgedump | naive/mgedump | onnx/mgedump | limit/(+digest) | inference/mgedump "
        "| make ms | inference/(make+mgedump) | inferring ms | inferring/mgedump−1 | clock µs |\n"
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
    for (const ComparisonRow& r : rows) {
        out += fmt::format("| {} | {} | {} | {:.1f} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {} | {:.2f} | {:.1f}% "
                           "| {} | {:.1f}% | {} | {:+.1f}% | {:.2f} |\n",
                           r.model, r.format, r.operators, r.weight_bytes / 1e6, ms(r.memcpy_s), ms(r.mgedump_s),
                           ms(r.naive_s), r.onnx_s ? ms(*r.onnx_s) : "n/a", ms(r.with_digest_s),
                           r.weight_bytes / r.mgedump_s / 1e9, r.memcpy_s / r.mgedump_s, r.naive_s / r.mgedump_s,
                           r.onnx_s ? fmt::format("{:.2f}", *r.onnx_s / r.mgedump_s) : "n/a",
                           r.memcpy_s / r.with_digest_s, 100 * r.inference_s / r.mgedump_s, ms(r.make_s),
                           100 * r.inference_s / (r.make_s + r.mgedump_s), ms(r.dump_inferring_s),
                           100 * (r.dump_inferring_s / r.mgedump_s - 1), r.clock_s * 1e6);
    }
    return out;
}

std::string tsv_rows(const std::vector<ComparisonRow>& rows) {
    std::string out =
        "model\tformat\toperators\tweight_bytes\tfile_bytes\tmemcpy_s\tmgedump_s\tnaive_s\tonnx_s\twith_digest_s\tinference_s\tmake_s"
        "\tdump_inferring_s\tclock_s\n";
    for (const ComparisonRow& r : rows)
        out += fmt::format("{}\t{}\t{}\t{}\t{}\t{:.9f}\t{:.9f}\t{:.9f}\t{}\t{:.9f}\t{:.9f}\t{:.9f}\t{:.9f}\t{:.9f}\n", r.model,
                           r.format, r.operators, r.weight_bytes, r.file_bytes, r.memcpy_s, r.mgedump_s, r.naive_s,
                           r.onnx_s ? fmt::format("{:.9f}", *r.onnx_s) : "nan", r.with_digest_s, r.inference_s,
                           r.make_s, r.dump_inferring_s, r.clock_s);
    return out;
}

}  // namespace mgedump::bench
