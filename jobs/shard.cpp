#include "jobs/shard.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <charconv>
#include <cstdlib>

#include "ir/error.h"

namespace mgedump::jobs {
namespace {

std::optional<uint64_t> parse_uint(std::string_view s) {
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

Shard make_shard(uint64_t k, uint64_t n, std::string_view what) {
    if (n == 0 || n > UINT32_MAX) throw OptionError(fmt::format("{}: shard count must be in [1, {}], got {}", what, UINT32_MAX, n));
    if (k >= n) throw OptionError(fmt::format("{}: shard index {} is not below the shard count {}", what, k, n));
    return Shard{static_cast<uint32_t>(k), static_cast<uint32_t>(n), ShardBy::Index, std::string(what)};
}

const char* std_getenv(const char* name) { return std::getenv(name); }

}  // namespace

Shard parse_shard(std::string_view text) {
    size_t slash = text.find('/');
    auto k = slash == std::string_view::npos ? std::nullopt : parse_uint(text.substr(0, slash));
    auto n = slash == std::string_view::npos ? std::nullopt : parse_uint(text.substr(slash + 1));
    if (!k || !n) throw OptionError(fmt::format("--shard: expected K/N (e.g. 0/4), got \"{}\"", text));
    return make_shard(*k, *n, "--shard");
}

std::optional<Shard> shard_from_environment(std::optional<uint32_t> count_hint, const char* (*getenv)(const char*)) {
    if (!getenv) getenv = std_getenv;
    auto num = [&](const char* name) -> std::optional<uint64_t> {
        const char* v = getenv(name);
        if (!v) return std::nullopt;
        auto n = parse_uint(v);
        if (!n) throw OptionError(fmt::format("{}={}: expected a non-negative integer", name, v));
        return n;
    };
    if (auto id = num("SLURM_ARRAY_TASK_ID")) {
        // Arrays may start anywhere (--array=1-8): shard K counts from the first task.
        uint64_t min = num("SLURM_ARRAY_TASK_MIN").value_or(0);
        auto count = count_hint ? std::optional<uint64_t>(*count_hint) : num("SLURM_ARRAY_TASK_COUNT");
        if (!count) throw OptionError("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; pass --shard-count");
        if (*id < min) throw OptionError(fmt::format("SLURM_ARRAY_TASK_ID {} is below SLURM_ARRAY_TASK_MIN {}", *id, min));
        return make_shard(*id - min, *count, "SLURM_ARRAY_TASK_ID");
    }
    if (auto idx = num("JOB_COMPLETION_INDEX")) {
        if (!count_hint)
            throw OptionError("JOB_COMPLETION_INDEX is set (Kubernetes Indexed Job); pass --shard-count = .spec.completions");
        return make_shard(*idx, *count_hint, "JOB_COMPLETION_INDEX");
    }
    return std::nullopt;
}

bool in_shard(const Job& job, const Shard& shard) {
    if (shard.count <= 1) return true;
    if (shard.by == ShardBy::Index) return job.index % shard.count == shard.index;
    // XXH3 is specified byte for byte, so every machine computes the same split.
    std::string_view key = job.variants.empty() ? std::string_view(job.input.native()) : job.variants[0].output;
    return XXH3_64bits(key.data(), key.size()) % shard.count == shard.index;
}

}  // namespace mgedump::jobs
