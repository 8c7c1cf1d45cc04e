#include "jobs/thread_count.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <optional>

#include "ir/error.h"

namespace mgedump::jobs {
namespace {

// More would only be a typo: no machine this runs on has that many cores.
constexpr unsigned kMaxThreads = 4096;

std::optional<unsigned> parse_count(std::string_view s) {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 1 || v > kMaxThreads)
        return std::nullopt;
    return v;
}

}  // namespace

unsigned thread_count(std::string_view flag, const Getenv& getenv) {
    if (!flag.empty()) {
        if (auto n = parse_count(flag)) return *n;
        throw OptionError(
            fmt::format("--threads \"{}\": expected a number of threads from 1 to {} (or nothing, "
                        "for the CPUs of this task)",
                        flag, kMaxThreads));
    }
    for (const char* name : {"SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE"}) {
        const char* v = getenv ? getenv(name) : std::getenv(name);
        if (!v || !*v) continue;
        if (auto n = parse_count(v)) return *n;
        throw OptionError(
            fmt::format("{}=\"{}\" (the default of --threads in a Slurm task): expected a number from 1 "
                        "to {}; give --threads N",
                        name, v, kMaxThreads));
    }
    return 0;
}

}  // namespace mgedump::jobs
