// Which shard an array task is, from what Slurm or Kubernetes put in its
// environment. Every way this can be misread is refused with the fix rather than
// guessed: a wrong guess runs the whole batch again, or leaves shards unrun,
// while every task still exits 0.
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "ir/error.h"
#include "jobs/shard.h"

namespace mgedump::jobs {
namespace {

class Environment {
  public:
    explicit Environment(const Getenv& getenv) : getenv_(getenv) {}

    // nullopt when unset; an error names the variable when it is not a number.
    std::optional<uint64_t> number(const char* name) const {
        const char* v = getenv_ ? getenv_(name) : std::getenv(name);
        if (!v) return std::nullopt;
        const std::string_view s(v);
        uint64_t n = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
        if (s.empty() || ec != std::errc() || p != s.data() + s.size())
            throw OptionError(fmt::format("{}=\"{}\": expected a non-negative integer", name, s));
        return n;
    }

  private:
    const Getenv& getenv_;
};

// The SLURM_ARRAY_TASK_* variables of one task (Slurm 17.02 and later set all five).
struct SlurmArray {
    uint64_t id = 0;
    std::optional<uint64_t> min, max, step, count;

    std::string variables() const {
        std::string s = fmt::format("SLURM_ARRAY_TASK_ID={}", id);
        const auto add = [&](const char* name, const std::optional<uint64_t>& v) {
            if (v) s += fmt::format(", SLURM_ARRAY_TASK_{}={}", name, *v);
        };
        add("MIN", min);
        add("MAX", max);
        add("STEP", step);
        add("COUNT", count);
        return s;
    }
};

Shard index_shard(uint64_t index, uint64_t count, std::string source) {
    return Shard{static_cast<uint32_t>(index), static_cast<uint32_t>(count), ShardBy::Index,
                 std::move(source)};
}

// --shard-count N fixes the split; the task ID is the shard index, whatever part
// of the array this submission is (`sbatch --array=3,7` re-runs shards 3 and 7).
Shard slurm_shard_of_fixed_count(const SlurmArray& a, uint32_t n) {
    const uint64_t highest = a.max.value_or(a.id);
    if (highest >= n)
        throw OptionError(
            fmt::format("{}: with --shard-count {} the task IDs are the shard indices, but this array's "
                        "reach {}; number the "
                        "array 0-{} (#SBATCH --array=0-{}), or fix --shard-count",
                        a.variables(), n, highest, n - 1, n - 1));
    return index_shard(a.id, n, fmt::format("{}, --shard-count {}", a.variables(), n));
}

// No count given: the array must be the whole split, one evenly stepped range of
// IDs, and this task's place in it is the shard index.
Shard slurm_shard_of_array_shape(const SlurmArray& a) {
    const std::pair<const char*, std::optional<uint64_t>> fields[] = {
        {"MIN", a.min}, {"MAX", a.max}, {"STEP", a.step}, {"COUNT", a.count}};
    for (const auto& [name, v] : fields)
        if (!v)
            throw OptionError(
                fmt::format("{}: SLURM_ARRAY_TASK_{} is not set, so this task's place in the array is "
                            "unknown; pass --shard-count N (the task IDs are then the shard indices)",
                            a.variables(), name));
    const uint64_t min = *a.min, max = *a.max, step = *a.step, count = *a.count;
    if (count == 1)
        throw OptionError(fmt::format(
            "{}: an array of one task is ambiguous: a re-submitted task of a larger array (sbatch "
            "--array={}) must "
            "run shard {} of that array's count, not the whole batch; pass --shard-count N (the array's full "
            "task "
            "count; the task ID is then the shard index), or --shard 0/1 to run the whole batch in this task",
            a.variables(), a.id, a.id));
    if (step == 0 || a.id < min || a.id > max || (a.id - min) % step != 0)
        throw OptionError(
            fmt::format("{}: this task ID is not in the array the other variables describe; pass "
                        "--shard K/N",
                        a.variables()));
    // Divided, not multiplied: the variables are text from outside and may be anything.
    if ((max - min) % step != 0 || (max - min) / step != count - 1)
        throw OptionError(
            fmt::format("{}: the array's task IDs are not one evenly stepped range (a list such as "
                        "--array=1,3,7, or some tasks of "
                        "a larger array re-submitted), so which shards they are is unknown; pass "
                        "--shard-count N (the task IDs "
                        "are then the shard indices)",
                        a.variables()));
    if (count > UINT32_MAX)
        throw OptionError(fmt::format("{}: more than {} tasks", a.variables(), UINT32_MAX));
    return index_shard((a.id - min) / step, count, a.variables());
}

}  // namespace

std::optional<Shard> shard_from_environment(std::optional<uint32_t> shard_count, const Getenv& getenv) {
    const Environment env(getenv);
    const std::optional<uint64_t> slurm_id = env.number("SLURM_ARRAY_TASK_ID");
    const std::optional<uint64_t> k8s_index = env.number("JOB_COMPLETION_INDEX");
    if (slurm_id && k8s_index)
        throw OptionError(
            fmt::format("both SLURM_ARRAY_TASK_ID={} and JOB_COMPLETION_INDEX={} are set, so which one "
                        "numbers the shards is unclear; pass --shard K/N",
                        *slurm_id, *k8s_index));
    if (slurm_id) {
        const SlurmArray a{*slurm_id, env.number("SLURM_ARRAY_TASK_MIN"), env.number("SLURM_ARRAY_TASK_MAX"),
                           env.number("SLURM_ARRAY_TASK_STEP"), env.number("SLURM_ARRAY_TASK_COUNT")};
        return shard_count ? slurm_shard_of_fixed_count(a, *shard_count) : slurm_shard_of_array_shape(a);
    }
    if (k8s_index) {
        if (!shard_count)
            throw OptionError(
                fmt::format("JOB_COMPLETION_INDEX={} is set (a Kubernetes Indexed Job), but pods are "
                            "not told the completion count; pass --shard-count N (.spec.completions)",
                            *k8s_index));
        if (*k8s_index >= *shard_count)
            throw OptionError(
                fmt::format("JOB_COMPLETION_INDEX={} is not below --shard-count {}; the count must be "
                            "the Job's .spec.completions",
                            *k8s_index, *shard_count));
        return index_shard(
            *k8s_index, *shard_count,
            fmt::format("JOB_COMPLETION_INDEX={}, --shard-count {}", *k8s_index, *shard_count));
    }
    return std::nullopt;
}

}  // namespace mgedump::jobs
