#include "engine/dump_options.h"

#include <fmt/format.h>

#include "ir/error.h"

namespace mgedump::engine {

std::string_view format_name(DumpFormat f) { return f == DumpFormat::FBS ? "FBS" : "FBS_V2"; }

std::optional<DumpFormat> format_from_name(std::string_view name) {
    if (name == "FBS") return DumpFormat::FBS;
    if (name == "FBS_V2") return DumpFormat::FBS_V2;
    return std::nullopt;
}

namespace {
std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}
}  // namespace

void check_options(const DumpOptions& o) {
    if (o.keep_var_name < 0 || o.keep_var_name > 2)
        throw OptionError(fmt::format("keep_var_name must be 0, 1 or 2, got {}", o.keep_var_name));
    if (o.dump_format == DumpFormat::FBS_V2 && (o.model_version < 1 || o.model_version > 2))
        throw OptionError(fmt::format("model_version must be 1 or 2 for FBS_V2, got {}", o.model_version));
    if (o.append_json && !o.strip_info_file)
        throw OptionError("append_json needs strip_info_file");
    if (o.compat_older_version) {
        // MegEngine strips whitespace and accepts exactly "8.14"; anything else would
        // give a file no loader can read (spec §9.3).
        if (trim(*o.compat_older_version) != "8.14")
            throw OptionError(fmt::format("compat_older_version only supports \"8.14\", got \"{}\"",
                                          *o.compat_older_version));
        if (o.dump_format != DumpFormat::FBS)
            throw OptionError("compat_older_version=\"8.14\" needs dump_format FBS: MegBrain 8.14 cannot read FBS_V2");
        if (o.no_change_graph)
            throw OptionError(
                "compat_older_version=\"8.14\" needs no_change_graph=false: the compatibility rewrites are what "
                "make the graph loadable by MegBrain 8.14");
    }
    if (o.testcases) testcase::check_testcase_options(*o.testcases);
}

}  // namespace mgedump::engine
