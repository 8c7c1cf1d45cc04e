// The mgedump command line: one subcommand per job (dump, inspect, convert,
// verify, batch). Each subcommand lives in its own file.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "tools/cli/commands.h"

int main(int argc, char** argv) {
    CLI::App app{"mgedump: serialize computing graphs into MegEngine's .mge formats (FBS, FBS_V2)"};
    app.require_subcommand(1);
    mgedump::cli::register_dump(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        // Subcommands report their own errors; this is the last line of defence so
        // that nothing escapes as a crash.
        std::fprintf(stderr, "mgedump: error: %s\n", e.what());
        return 2;
    }
    return mgedump::cli::exit_code();
}
