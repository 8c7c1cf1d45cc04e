#include "engine/redump.h"

namespace mgedump::engine {

DumpFormat dump_format_of(formats::ModelFormat f) {
    return f == formats::ModelFormat::FbsV2 ? DumpFormat::FBS_V2 : DumpFormat::FBS;
}

DumpOptions redump_options(const formats::LoadedModel& m) {
    DumpOptions o;
    o.dump_format = dump_format_of(m.format);
    if (m.format == formats::ModelFormat::FbsMGBS) o.compat_older_version = "8.14";
    o.no_change_graph = !o.compat_older_version.has_value();
    if (m.format == formats::ModelFormat::FbsV2 && (m.model_version == 1 || m.model_version == 2))
        o.model_version = m.model_version;
    o.mgb_version = m.mgb_version;
    o.keep_var_name = m.settings.keep_var_name;
    o.keep_opr_name = m.settings.keep_opr_name;
    o.keep_param_name = m.settings.keep_param_name;
    o.keep_opr_priority = m.settings.keep_opr_priority;
    o.metadata = m.metadata;
    return o;
}

CompareOptions redump_compare_options(const formats::LoadedModel& m) {
    CompareOptions c;
    // FBS_V2 names every var once it names any (keep_var_name 1 ≡ 2).
    c.var_names = m.format == formats::ModelFormat::FbsV2 && m.settings.keep_var_name >= 1 ? 2
                                                                                             : m.settings.keep_var_name;
    c.opr_names = m.settings.keep_opr_name;
    c.param_names = m.settings.keep_param_name;
    c.priorities = m.settings.keep_opr_priority;
    c.check_non_finite_params = m.format != formats::ModelFormat::FbsMGBS;
    return c;
}

}  // namespace mgedump::engine
