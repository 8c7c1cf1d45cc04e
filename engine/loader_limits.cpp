#include "engine/loader_limits.h"

#include <fmt/format.h>

#include "ir/describe.h"
#include "ir/error.h"
#include "ir/op_registry.h"

namespace mgedump::engine {

void check_loadable_by_megengine(const ir::Graph& g, std::span<const ir::OprId> order, const DumpOptions& options) {
    static const ir::OpTypeId check_non_finite = ir::find_op("CheckNonFinite");
    const bool v2_version1 = options.dump_format == DumpFormat::FBS_V2 && options.model_version == 1;
    const bool fbs = options.dump_format == DumpFormat::FBS;
    if (!v2_version1 && !fbs) return;
    for (ir::OprId o : order) {
        const ir::OpTypeId type = g.oprs.type[o.value];
        if (v2_version1 && ir::op_def(type).params.size() > 1)
            throw OptionError(fmt::format(
                "{}: MegEngine cannot load an FBS_V2 model_version 1 file with this operator: it writes {} param "
                "tables and the version-1 loader reads one (\"When load multi param in one Operator, please use "
                "read_param(index) interface.\"); dump with model_version 2 or as FBS",
                ir::describe_opr(g, o), ir::op_def(type).params.size()));
        if (fbs && type == check_non_finite)
            throw OptionError(fmt::format(
                "{}: MegEngine cannot load CheckNonFinite from an FBS file: the file numbers only its flag output, "
                "its loader numbers all {} and reads past the output names (serializer_oss.cpp){}; dump as FBS_V2",
                ir::describe_opr(g, o), g.inputs_of(o).size() + 1,
                options.compat_older_version ? ", and the 8.14 Empty param fails read_param<CheckNonFinite>" : ""));
    }
}

}  // namespace mgedump::engine
