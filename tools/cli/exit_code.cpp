#include "tools/cli/commands.h"

namespace mgedump::cli {
namespace {
int g_exit_code = 0;  // set once by the subcommand that ran
}

int exit_code() { return g_exit_code; }
void set_exit_code(int code) { g_exit_code = code; }

}  // namespace mgedump::cli
