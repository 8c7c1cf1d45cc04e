#include "jobs/stamp.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "jobs/options_json.h"
#include "jobs/output_path.h"
#include "jobs/version.h"

namespace mgedump::jobs {

namespace fs = std::filesystem;

StampKey make_stamp_key(const std::string& input_digest, const engine::DumpOptions& options) {
    return StampKey{input_digest, options_to_json(options).dump(-1, ' ', true, Json::error_handler_t::replace),
                    std::string(engine_version())};
}

fs::path stamp_path(const fs::path& out_dir, const std::string& output_name) {
    return out_dir / kStampDirName / (output_name + ".stamp");
}

std::optional<engine::DumpResult> up_to_date(const fs::path& artifact, const fs::path& stamp, const StampKey& key) {
    std::error_code ec;
    const uint64_t size = fs::file_size(artifact, ec);
    if (ec || fs::is_symlink(fs::symlink_status(artifact))) return std::nullopt;
    std::ifstream f(stamp, std::ios::binary);
    if (!f) return std::nullopt;
    std::stringstream ss;
    ss << f.rdbuf();
    try {
        nlohmann::json j = nlohmann::json::parse(ss.str());
        StampKey recorded{j.at("input_digest"), j.at("options"), j.at("engine_version")};
        if (!(recorded == key)) return std::nullopt;
        const auto& r = j.at("result");
        engine::DumpResult d;
        d.nr_opr = r.at("nr_opr");
        d.tot_bytes = r.at("tot_bytes");
        d.tensor_value_bytes = r.at("tensor_value_bytes");
        d.content_hash = r.at("content_hash");
        d.inputs = r.at("inputs").get<std::vector<std::string>>();
        d.outputs = r.at("outputs").get<std::vector<std::string>>();
        d.params = r.at("params").get<std::vector<std::string>>();
        d.xxh3_128 = r.at("xxh3_128");
        d.warnings = r.at("warnings").get<std::vector<std::string>>();
        d.dedup_tensors_saved = r.at("dedup_tensors_saved");
        d.dedup_bytes_saved = r.at("dedup_bytes_saved");
        if (d.tot_bytes != size) return std::nullopt;
        return d;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;  // a damaged stamp only costs a rebuild
    }
}

void write_stamp(const fs::path& stamp, const StampKey& key, const engine::DumpResult& d, engine::FileOps& ops) {
    fs::create_directories(stamp.parent_path());
    nlohmann::json j{{"engine_version", key.engine_version},
                     {"input_digest", key.input_digest},
                     {"options", key.options},
                     {"result",
                      {{"nr_opr", d.nr_opr},
                       {"tot_bytes", d.tot_bytes},
                       {"tensor_value_bytes", d.tensor_value_bytes},
                       {"content_hash", d.content_hash},
                       {"inputs", d.inputs},
                       {"outputs", d.outputs},
                       {"params", d.params},
                       {"xxh3_128", d.xxh3_128},
                       {"warnings", d.warnings},
                       {"dedup_tensors_saved", d.dedup_tensors_saved},
                       {"dedup_bytes_saved", d.dedup_bytes_saved}}}};
    std::string text = j.dump(1, ' ', true, nlohmann::json::error_handler_t::replace) + "\n";
    std::span<const std::byte> seg(reinterpret_cast<const std::byte*>(text.data()), text.size());
    engine::write_file_atomically(stamp.string(), std::span(&seg, 1), ops);
}

}  // namespace mgedump::jobs
