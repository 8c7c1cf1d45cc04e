// The mgedump command line: one subcommand per job (dump, inspect, convert,
// verify, batch). Each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#if MGEDUMP_USES_MIMALLOC
#include <mimalloc.h>
#endif

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

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

constexpr const char* kExitStatus =
    "Exit status:\n"
    "  0  success\n"
    "  1  some model or job failed (the messages say which)\n"
    "  2  usage or configuration error: unknown subcommand or flag, bad flag value or combination, bad "
    "manifest, unreadable input list; nothing was written";

struct Subcommand {
    const char* name;
    void (*add)(CLI::App&);
};
constexpr Subcommand kSubcommands[] = {
    {"dump", mgedump::cli::register_dump},       {"batch", mgedump::cli::register_batch},
    {"inspect", mgedump::cli::register_inspect}, {"convert", mgedump::cli::register_convert},
    {"verify", mgedump::cli::register_verify},   {"run", mgedump::cli::register_run},
};

std::string subcommand_list() {
    std::string s;
    for (const Subcommand& sub : kSubcommands) s += (s.empty() ? "" : ", ") + std::string(sub.name);
    return s;
}

// The first word that is not an option, which names the subcommand (the top
// level's own options, --help and --version, take no value), or null.
const char* subcommand_word(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0) return i + 1 < argc ? argv[i + 1] : nullptr;
        if (argv[i][0] != '-') return argv[i];
    }
    return nullptr;
}

#if MGEDUMP_USES_MIMALLOC
// The heap in 2 MiB pages (transparent huge pages, where the kernel offers them)
// for the commands that convert one model: a dump of resnet50.onnx took about
// 1,000 page faults, half of them first touches of fresh heap memory (mimalloc
// building a page's free list, the write buffers, the FlatBuffer), and on a VM a
// fault costs microseconds (#17: the gap to `cp`). Not for `batch`: there 2 MiB
// pages raised peak memory by a third (68 ONNX models, two threads) and gained no
// time. mimalloc reads its options at its first allocation, which the
// libraries' own initializers make before main, so the default is set from
// .preinit_array, which runs before any of them (and allocates nothing).
// MIMALLOC_LARGE_OS_PAGES in the environment still decides.
void prefer_large_os_pages(int argc, char** argv, char**) {
    const char* word = subcommand_word(argc, argv);
    if (word && std::strcmp(word, "batch") == 0) return;
    mi_option_set_enabled_default(mi_option_large_os_pages, true);
}
[[gnu::used, gnu::section(".preinit_array")]] void (*const kPreferLargeOsPages)(int, char**, char**) =
    prefer_large_os_pages;
#endif

const Subcommand* find_subcommand(const char* word) {
    if (word)
        for (const Subcommand& sub : kSubcommands)
            if (std::strcmp(sub.name, word) == 0) return &sub;
    return nullptr;
}
}  // namespace

int main(int argc, char** argv) {
    // Named here, so "Usage:" lines say mgedump, not the path the binary was run by.
    CLI::App app{"mgedump: serialize computing graphs into MegEngine's .mge formats (FBS, FBS_V2)", "mgedump"};
    // mimalloc is linked as the process allocator; asking its version keeps the
    // library a real dependency (so --as-needed linking cannot drop it).
    app.set_version_flag("--version", version_text());
    app.require_subcommand(1);
    // CLI11 would only say "A subcommand is required" for a word it does not know.
    const char* word = subcommand_word(argc, argv);
    const Subcommand* asked = find_subcommand(word);
    if (word && !asked) {
        std::fprintf(stderr, "mgedump: unknown subcommand '%s'; the subcommands are: %s\n", word,
                     subcommand_list().c_str());
        return 2;
    }
    // Only the subcommand asked for is built (all of them for the top level's
    // --help): building all six, their flags, validators and help texts, was a
    // seventh of the instructions a dump ran before it read its model.
    // "mgedump --help dump" is the top level's help, which lists them all.
    const bool top_level_flag_first = argc > 1 && argv[1][0] == '-' && std::strcmp(argv[1], "--") != 0;
    for (const Subcommand& sub : kSubcommands)
        if (!asked || top_level_flag_first || asked == &sub) sub.add(app);
    app.footer(kExitStatus);  // after the subcommands, which would inherit it
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version are "errors" with status 0; every other is a usage error.
        if (dynamic_cast<const CLI::RequiredError*>(&e) && app.get_subcommands().empty()) {
            std::fprintf(stderr, "mgedump: a subcommand is required: %s\nRun with --help for more information.\n",
                         subcommand_list().c_str());
            return 2;
        }
        return app.exit(e) == 0 ? 0 : 2;
    } catch (const std::exception& e) {
        // Subcommands report their own errors; this is the last line of defence so
        // that nothing escapes as a crash.
        std::fprintf(stderr, "mgedump: error: %s\n", e.what());
        return 2;
    }
    return mgedump::cli::exit_code();
}
