// schema.fbs (FBS v1) and schema_v2.fbs (FBS_V2) as data (spec §3.2, §3.3): the
// slot numbers readers use, and the table descriptions the verifier walks.
#pragma once

#include "formats/fbs_verify.h"

namespace mgedump::formats {

namespace v1 {
namespace compnode_slot { enum { logical_locator }; }
namespace tensor_slot { enum { name, shape, comp_node, dtype, data_size, offset }; }
namespace blob_slot { enum { data }; }
namespace opr_slot {
enum { type_id, param_type, param, inputs, comp_node, output_name, output_dtype, tensors, priority, blobs,
       additional_params_type, additional_params, name };
}
namespace meta_slot { enum { is_valid, graph_modified, user_info, optimize_options }; }
namespace graph_slot { enum { mgb_version, hash, nr_shared_tensor, oprs, output_vars_idx, metadata }; }
// Graph root, identifier "mgb1".
const fbsv::TableSpec& graph_spec();
}  // namespace v1

namespace v2 {
namespace compnode_slot { enum { logical_locator }; }
namespace tensor_slot { enum { name, shape, comp_node, dtype, format_type, format, data }; }
namespace blob_slot { enum { data }; }
namespace opr_slot {
enum { type, type_id, name, param_type, param, additional_params_type, additional_params, inputs, outputs,
       comp_node, output_dtype, tensors, opr_version, priority, custom_data };
}
namespace meta_slot { enum { is_valid, graph_modified, optimize_options, user_info }; }
namespace middle_slot { enum { name, shape, comp_node, dtype, format_type, format }; }
namespace output_var_slot { enum { compact_id, original_id }; }
namespace alias_slot { enum { id, name }; }
namespace model_slot {
enum { mge_version, model_version, oprs, middle_tensors, output_vars_idx, output_alias, nr_shared_tensor,
       metadata };
}
// Model root, identifier "mgv2".
const fbsv::TableSpec& model_spec();
}  // namespace v2

}  // namespace mgedump::formats
