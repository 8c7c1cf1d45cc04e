#include "formats/side_file_check.h"

#include <fmt/format.h>

#include "ir/error.h"

namespace mgedump::formats {

void run_side_file_check(const SideFileCheck& check, const std::filesystem::path& path, std::string_view where) {
    if (!check) return;
    try {
        check(path);
    } catch (const OptionError& e) {
        throw OptionError(fmt::format("{}: {}", where, e.what()));
    } catch (const Error& e) {
        throw FormatError(fmt::format("{}: {}", where, e.what()));
    }
}

}  // namespace mgedump::formats
