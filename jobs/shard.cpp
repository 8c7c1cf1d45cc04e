#include "jobs/shard.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <charconv>

#include "ir/error.h"

namespace mgedump::jobs {
namespace {

std::optional<uint64_t> parse_uint(std::string_view s) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

}  // namespace

Shard parse_shard(std::string_view text) {
    size_t slash = text.find('/');
    auto k = slash == std::string_view::npos ? std::nullopt : parse_uint(text.substr(0, slash));
    auto n = slash == std::string_view::npos ? std::nullopt : parse_uint(text.substr(slash + 1));
    if (!k || !n) throw OptionError(fmt::format("--shard: expected K/N (e.g. 0/4), got \"{}\"", text));
    if (*n == 0 || *n > UINT32_MAX)
        throw OptionError(fmt::format("--shard {}: the shard count must be in [1, {}]", text, UINT32_MAX));
    if (*k >= *n) throw OptionError(fmt::format("--shard {}: shard index {} is not below the shard count {}", text, *k, *n));
    return Shard{static_cast<uint32_t>(*k), static_cast<uint32_t>(*n), ShardBy::Index, fmt::format("--shard {}", text)};
}

Shard resolve_shard(std::string_view shard_flag, std::optional<uint32_t> shard_count, const Getenv& getenv) {
    if (!shard_flag.empty()) {
        Shard s = parse_shard(shard_flag);
        if (shard_count && *shard_count != s.count)
            throw OptionError(fmt::format("--shard {} and --shard-count {} disagree on the shard count; give one of them",
                                          shard_flag, *shard_count));
        return s;
    }
    if (auto env = shard_from_environment(shard_count, getenv)) return *env;
    if (shard_count)
        throw OptionError(fmt::format(
            "--shard-count {0} is given, but this is not an array task (neither SLURM_ARRAY_TASK_ID nor "
            "JOB_COMPLETION_INDEX is set), so which shard to run is unknown; give --shard K/{0}, or drop "
            "--shard-count to run the whole batch",
            *shard_count));
    return Shard{};
}

bool in_shard(const Job& job, const Shard& shard) {
    if (shard.count <= 1) return true;
    if (shard.by == ShardBy::Index) return job.index % shard.count == shard.index;
    // XXH3 is specified byte for byte, so every machine computes the same split.
    std::string_view key = job.variants.empty() ? std::string_view(job.input.native()) : job.variants[0].output;
    return XXH3_64bits(key.data(), key.size()) % shard.count == shard.index;
}

}  // namespace mgedump::jobs
