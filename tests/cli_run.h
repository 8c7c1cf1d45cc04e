// Running the built mgedump binary from tests, capturing its exit status and
// everything it printed (stdout and stderr together).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "test_paths.h"

namespace mgedump::test {

struct CliRun {
    int status;  // exit status; -1 if killed by a signal
    std::string out;
};

inline CliRun run_shell(const std::string& command) {
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline CliRun run_cli(const std::string& args) { return run_shell(cli_path() + " " + args); }

}  // namespace mgedump::test
