// Subcommand registration for the mgedump CLI. Each register_* adds a subcommand
// whose callback runs the job and records the process exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace mgedump::cli {

void register_dump(CLI::App& app);
void register_batch(CLI::App& app);
void register_inspect(CLI::App& app);
void register_convert(CLI::App& app);
void register_verify(CLI::App& app);
void register_run(CLI::App& app);

// The exit code decided by the subcommand that ran (0 = success).
int exit_code();
void set_exit_code(int code);

}  // namespace mgedump::cli
