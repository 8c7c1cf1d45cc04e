#include "tools/cli/result_print.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mgedump::cli {

nlohmann::json result_to_json(const engine::DumpResult& r) {
    return nlohmann::json{
        {"nr_opr", r.nr_opr},
        {"tot_bytes", r.tot_bytes},
        {"tensor_value_bytes", r.tensor_value_bytes},
        {"content_hash", r.content_hash},
        {"inputs", r.inputs},
        {"outputs", r.outputs},
        {"params", r.params},
        {"xxh3_128", r.xxh3_128},
        {"warnings", r.warnings},
    };
}

std::string result_to_text(const std::string& path, engine::DumpFormat format, const engine::DumpResult& r) {
    std::string s = fmt::format("{}: {} bytes ({}), {} operators, {} bytes of tensor values\n", path, r.tot_bytes,
                                engine::format_name(format), r.nr_opr, r.tensor_value_bytes);
    s += fmt::format("  content_hash {}  xxh3-128 {}\n", r.content_hash, r.xxh3_128);
    s += fmt::format("  inputs [{}]  outputs [{}]", fmt::join(r.inputs, ", "), fmt::join(r.outputs, ", "));
    if (!r.params.empty()) s += fmt::format("  params [{}]", fmt::join(r.params, ", "));
    s += "\n";
    return s;
}

void print_warnings(std::string_view command, std::string_view path, const engine::DumpResult& r) {
    for (const std::string& w : r.warnings) fmt::print(stderr, "mgedump {}: warning: {}: {}\n", command, path, w);
}

}  // namespace mgedump::cli
