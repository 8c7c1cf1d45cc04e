// The mgedump command line: one subcommand per job (dump, inspect, convert,
// verify, batch). Each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#if MGEDUMP_USES_MIMALLOC
#include <mimalloc.h>
#endif

#include <cstdio>
#include <exception>

#include "tools/cli/commands.h"

namespace {
std::string version_text() {
#if MGEDUMP_USES_MIMALLOC
    const int mi = mi_version();
    const std::string allocator = "mimalloc " + std::to_string(mi / 100) + "." + std::to_string(mi / 10 % 10) + "." +
                                  std::to_string(mi % 10);
#else
    const std::string allocator = "the sanitizer's (sanitizer build)";
#endif
    return "mgedump " MGEDUMP_VERSION " (MegEngine formats as of 1.13.4; allocator " + allocator + ")";
}
}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"mgedump: serialize computing graphs into MegEngine's .mge formats (FBS, FBS_V2)"};
    // mimalloc is linked as the process allocator; asking its version keeps the
    // library a real dependency (so --as-needed linking cannot drop it).
    app.set_version_flag("--version", version_text());
    app.require_subcommand(1);
    mgedump::cli::register_dump(app);
    mgedump::cli::register_batch(app);
    mgedump::cli::register_inspect(app);
    mgedump::cli::register_convert(app);
    mgedump::cli::register_verify(app);
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
