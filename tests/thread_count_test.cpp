#include "jobs/thread_count.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ir/error.h"

namespace mgedump::test {
namespace {

jobs::Getenv env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

TEST(ThreadCount, AGivenCountIsUsedWhateverSlurmSays) {
    EXPECT_EQ(jobs::thread_count("8", env_of({{"SLURM_CPUS_PER_TASK", "2"}})), 8u);
    EXPECT_EQ(jobs::thread_count("4096", env_of({})), 4096u);
}

TEST(ThreadCount, WithoutOneASlurmTaskRunsOnTheCpusItWasAllotted) {
    EXPECT_EQ(jobs::thread_count("", env_of({{"SLURM_CPUS_PER_TASK", "3"}, {"SLURM_CPUS_ON_NODE", "6"}})),
              3u);
    EXPECT_EQ(jobs::thread_count("", env_of({{"SLURM_CPUS_ON_NODE", "6"}})), 6u);
    // --cpus-per-task not given: the variable is missing, or empty where a script passed it on.
    EXPECT_EQ(jobs::thread_count("", env_of({{"SLURM_CPUS_PER_TASK", ""}, {"SLURM_CPUS_ON_NODE", "1"}})), 1u);
}

TEST(ThreadCount, OutsideSlurmTheDefaultIsEveryCpuTheProcessMayRunOn) {
    EXPECT_EQ(jobs::thread_count("", env_of({})), 0u);
}

TEST(ThreadCount, ValuesThatAreNotACountAreRefusedNamingWhereTheyCameFrom) {
    for (const char* bad : {"0", "x", "4097", "-1", "2 "})
        EXPECT_THROW(jobs::thread_count(bad, env_of({})), OptionError) << bad;
    try {
        jobs::thread_count("", env_of({{"SLURM_CPUS_PER_TASK", "abc"}}));
        ADD_FAILURE() << "SLURM_CPUS_PER_TASK=abc was taken";
    } catch (const OptionError& e) {
        EXPECT_NE(std::string(e.what()).find("SLURM_CPUS_PER_TASK"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mgedump::test
