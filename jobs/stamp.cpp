#include "jobs/stamp.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/load.h"
#include "ir/error.h"
#include "ir/xxh3_dispatch.h"
#include "jobs/onnx_options_json.h"
#include "jobs/options_json.h"
#include "jobs/output_path.h"
#include "jobs/version.h"

namespace mgedump::jobs {

namespace fs = std::filesystem;

namespace {

// Streamed through a small buffer (engine::hash_file_range): no mapping, whose
// unmapping would stop every thread of the batch. A file that cannot be read is
// not current.
std::optional<StampedFile> hash_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::optional<StampedFile> out;
    struct stat st {};
    try {
        if (::fstat(fd, &st) == 0) {
            const auto size = static_cast<uint64_t>(st.st_size);
            out = StampedFile{path, size, ir::xxh3_128_hex(engine::hash_file_range(fd, 0, size))};
        }
    } catch (const Error&) {
    }
    ::close(fd);
    return out;
}

}  // namespace

std::optional<StampedFile> FileDigests::of(const fs::path& path) {
    const std::string key = path.string();
    {
        std::lock_guard lock(mutex_);
        if (auto it = known_.find(key); it != known_.end()) return it->second;
    }
    std::optional<StampedFile> f = hash_file(key);
    std::lock_guard lock(mutex_);
    return known_.emplace(key, f).first->second;
}

void FileDigests::remember(const fs::path& path, uint64_t size, std::string xxh3_128) {
    std::string key = path.string();
    std::lock_guard lock(mutex_);
    known_.try_emplace(key, StampedFile{key, size, std::move(xxh3_128)});
}

namespace {
// Non-ONNX inputs keep the options text they always had, so their stamps stay valid.
std::string canonical(const engine::DumpOptions& options, const formats::OnnxImportOptions* onnx) {
    Json j = options_to_json(options);
    if (onnx) j["onnx_import"] = onnx_options_to_json(*onnx);
    return j.dump(-1, ' ', true, Json::error_handler_t::replace);
}
}  // namespace

StampKey make_stamp_key(std::vector<StampedFile> files, const engine::DumpOptions& options,
                        const formats::OnnxImportOptions* onnx) {
    return StampKey{std::move(files), canonical(options, onnx), std::string(engine_version())};
}

fs::path stamp_path(const fs::path& out_dir, const std::string& output_name) {
    return out_dir / kStampDirName / (output_name + ".stamp");
}

namespace {

using nlohmann::json;

json result_to_json(const engine::DumpResult& d) {
    return {{"nr_opr", d.nr_opr},
            {"tot_bytes", d.tot_bytes},
            {"tensor_value_bytes", d.tensor_value_bytes},
            {"content_hash", d.content_hash},
            {"inputs", d.inputs},
            {"outputs", d.outputs},
            {"params", d.params},
            {"xxh3_128", d.xxh3_128},
            {"warnings", d.warnings},
            {"dedup_tensors_saved", d.dedup_tensors_saved},
            {"dedup_bytes_saved", d.dedup_bytes_saved}};
}

engine::DumpResult result_from_json(const json& r) {
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
    return d;
}

std::vector<StampedFile> files_from_json(const json& files) {
    std::vector<StampedFile> out;
    for (const json& f : files) out.push_back({f.at("path"), f.at("size"), f.at("xxh3_128")});
    return out;
}

// Sizes first: a file of another size changed without hashing a byte.
bool unchanged(const std::vector<StampedFile>& files, FileDigests& digests, const fs::path& base_dir) {
    for (const StampedFile& f : files) {
        std::error_code ec;
        if (fs::file_size(stamp_file_location(base_dir, f.path), ec) != f.size || ec) return false;
    }
    for (const StampedFile& f : files) {
        std::optional<StampedFile> now = digests.of(stamp_file_location(base_dir, f.path));
        if (!now || now->size != f.size || now->xxh3_128 != f.xxh3_128) return false;
    }
    return true;
}

}  // namespace

std::string stamp_file_key(const fs::path& base_dir, const fs::path& file) {
    const fs::path normal = file.lexically_normal();
    if (base_dir.empty() || base_dir.is_absolute() != file.is_absolute()) return normal.generic_string();
    const fs::path rel = normal.lexically_relative(base_dir.lexically_normal());
    if (rel.empty() || *rel.begin() == "..") return normal.generic_string();
    return rel.generic_string();
}

fs::path stamp_file_location(const fs::path& base_dir, const std::string& key) {
    const fs::path p(key);
    return p.is_absolute() || base_dir.empty() ? p : base_dir / p;
}

std::optional<Stamped> up_to_date(const fs::path& artifact, const fs::path& stamp, const std::string& input_key,
                                  const engine::DumpOptions& options, FileDigests& digests,
                                  const fs::path& base_dir, const formats::OnnxImportOptions* onnx) {
    std::error_code ec;
    const uint64_t size = fs::file_size(artifact, ec);
    if (ec || fs::is_symlink(fs::symlink_status(artifact))) return std::nullopt;
    std::ifstream f(stamp, std::ios::binary);
    if (!f) return std::nullopt;
    std::stringstream ss;
    ss << f.rdbuf();
    try {
        json j = json::parse(ss.str());
        if (j.at("options") != canonical(options, onnx) || j.at("engine_version") != std::string(engine_version()))
            return std::nullopt;
        std::vector<StampedFile> files = files_from_json(j.at("files"));
        if (files.empty() || files.front().path != input_key) return std::nullopt;
        Stamped s;
        s.result = result_from_json(j.at("result"));
        if (s.result.tot_bytes != size) return std::nullopt;
        const json& strip = j.at("strip_info");
        s.strip_info.opr_types = strip.at("opr_types").get<std::vector<std::string>>();
        s.strip_info.dtypes = strip.at("dtypes").get<std::vector<std::string>>();
        s.strip_info.elemwise_modes = strip.at("elemwise_modes").get<std::vector<std::string>>();
        s.input_bytes = files.front().size;
        if (!unchanged(files, digests, base_dir)) return std::nullopt;
        return s;
    } catch (const json::exception&) {
        return std::nullopt;  // a damaged or older stamp only costs a rebuild
    }
}

void write_stamp(const fs::path& stamp, const StampKey& key, const Stamped& s, engine::FileOps& ops) {
    fs::create_directories(stamp.parent_path());
    json files = json::array();
    for (const StampedFile& f : key.files)
        files.push_back({{"path", f.path}, {"size", f.size}, {"xxh3_128", f.xxh3_128}});
    json j{{"engine_version", key.engine_version},
           {"files", std::move(files)},
           {"options", key.options},
           {"result", result_to_json(s.result)},
           {"strip_info",
            {{"opr_types", s.strip_info.opr_types},
             {"dtypes", s.strip_info.dtypes},
             {"elemwise_modes", s.strip_info.elemwise_modes}}}};
    std::string text = j.dump(1, ' ', true, json::error_handler_t::replace) + "\n";
    std::span<const std::byte> seg(reinterpret_cast<const std::byte*>(text.data()), text.size());
    engine::write_file_atomically(stamp.string(), std::span(&seg, 1), ops);
}

}  // namespace mgedump::jobs
