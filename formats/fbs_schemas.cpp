#include "formats/fbs_schemas.h"

#include "formats/param_codec.h"

namespace mgedump::formats {
namespace {

using fbsv::FieldSpec;
using fbsv::Kind;
using fbsv::TableSpec;

// OperatorParam members: the param vocabulary knows each table's fields. Indices
// this build does not know pass unread (as in generated verifiers); readers reject
// them with the operator's name.
bool verify_operator_param(flatbuffers::Verifier& v, const uint8_t*, uint8_t type, const void* t) {
    ir::ParamTableId id = param_table_for_union(type);
    return !id.valid() || verify_param(v, id, t);
}

constexpr FieldSpec scalar(std::string_view name, uint8_t slot, uint8_t size) {
    return FieldSpec{name, slot, Kind::Scalar, size};
}
constexpr FieldSpec kind(std::string_view name, uint8_t slot, Kind k, const TableSpec* table = nullptr) {
    return FieldSpec{name, slot, k, 0, 0, table};
}
constexpr FieldSpec vec(std::string_view name, uint8_t slot, uint8_t size) {
    return FieldSpec{name, slot, Kind::VecScalar, size};
}
constexpr FieldSpec param_union(std::string_view name, uint8_t slot, uint8_t type_slot, Kind k) {
    return FieldSpec{name, slot, k, 0, 0, nullptr, type_slot, &verify_operator_param};
}

// --- shared by both schemas --------------------------------------------------
constexpr FieldSpec kCompNodeFields[] = {kind("logical_locator", 0, Kind::String)};
constexpr TableSpec kCompNode{"CompNode", kCompNodeFields};

// --- schema.fbs (v1) ---------------------------------------------------------
namespace s1 {
using namespace v1;
constexpr FieldSpec kTensorFields[] = {
    kind("name", tensor_slot::name, Kind::String),
    vec("shape", tensor_slot::shape, 4),
    kind("comp_node", tensor_slot::comp_node, Kind::Table, &kCompNode),
    kind("dtype", tensor_slot::dtype, Kind::DType),
    scalar("data_size", tensor_slot::data_size, 4),
    scalar("offset", tensor_slot::offset, 4),
};
constexpr TableSpec kTensor{"Tensor", kTensorFields};
constexpr FieldSpec kBlobFields[] = {
    FieldSpec{"data", blob_slot::data, Kind::VecScalar, 1, 0, nullptr, 0, nullptr, /*required=*/true}};
constexpr TableSpec kBlob{"Blob", kBlobFields};
constexpr FieldSpec kOperatorFields[] = {
    scalar("type_id", opr_slot::type_id, 8),
    scalar("param_type", opr_slot::param_type, 1),
    param_union("param", opr_slot::param, opr_slot::param_type, Kind::Union),
    vec("inputs", opr_slot::inputs, 4),
    kind("comp_node", opr_slot::comp_node, Kind::VecTable, &kCompNode),
    kind("output_name", opr_slot::output_name, Kind::VecString),
    kind("output_dtype", opr_slot::output_dtype, Kind::DType),
    kind("tensors", opr_slot::tensors, Kind::VecTable, &kTensor),
    scalar("priority", opr_slot::priority, 4),
    kind("blobs", opr_slot::blobs, Kind::VecTable, &kBlob),
    vec("additional_params_type", opr_slot::additional_params_type, 1),
    param_union("additional_params", opr_slot::additional_params, opr_slot::additional_params_type, Kind::VecUnion),
    kind("name", opr_slot::name, Kind::String),
};
constexpr TableSpec kOperator{"Operator", kOperatorFields};
constexpr FieldSpec kMetadataFields[] = {
    scalar("is_valid", meta_slot::is_valid, 1),
    scalar("graph_modified", meta_slot::graph_modified, 1),
    kind("user_info", meta_slot::user_info, Kind::String),
    scalar("optimize_options", meta_slot::optimize_options, 8),
};
constexpr TableSpec kMetadata{"Metadata", kMetadataFields};
constexpr FieldSpec kGraphFields[] = {
    scalar("mgb_version", graph_slot::mgb_version, 4),
    scalar("hash", graph_slot::hash, 8),
    scalar("nr_shared_tensor", graph_slot::nr_shared_tensor, 4),
    kind("oprs", graph_slot::oprs, Kind::VecTable, &kOperator),
    // struct OutputVar {uint compact_id; uint original_id;}: 8 bytes, align 4.
    FieldSpec{"output_vars_idx", graph_slot::output_vars_idx, Kind::VecStruct, 8, 4},
    kind("metadata", graph_slot::metadata, Kind::Table, &kMetadata),
};
constexpr TableSpec kGraph{"Graph", kGraphFields};
}  // namespace s1

// --- schema_v2.fbs -----------------------------------------------------------
namespace s2 {
using namespace v2;
constexpr TableSpec kDefaultTensorFormat{"DefaultTensorFormat", {}};
constexpr FieldSpec kImage2DFields[] = {scalar("align_axis", 0, 1)};
constexpr TableSpec kImage2DPackedTensorFormat{"Image2DPackedTensorFormat", kImage2DFields};
constexpr FieldSpec kLowbitsFields[] = {scalar("size_nbits", 0, 1), scalar("align_size_in_bits", 1, 1)};
constexpr TableSpec kLowbitsAlignedTensorFormat{"LowbitsAlignedTensorFormat", kLowbitsFields};

bool verify_tensor_format(flatbuffers::Verifier& v, const uint8_t* buf, uint8_t type, const void* t) {
    const auto* table = static_cast<const flatbuffers::Table*>(t);
    switch (type) {
        case 1: return fbsv::verify_table(v, buf, kDefaultTensorFormat, table);
        case 2: return fbsv::verify_table(v, buf, kImage2DPackedTensorFormat, table);
        case 3: return fbsv::verify_table(v, buf, kLowbitsAlignedTensorFormat, table);
        default: return true;
    }
}
constexpr FieldSpec format_union(uint8_t slot, uint8_t type_slot) {
    return FieldSpec{"format", slot, Kind::Union, 0, 0, nullptr, type_slot, &verify_tensor_format};
}

constexpr FieldSpec kTensorFields[] = {
    kind("name", tensor_slot::name, Kind::String),
    vec("shape", tensor_slot::shape, 4),
    kind("comp_node", tensor_slot::comp_node, Kind::Table, &kCompNode),
    kind("dtype", tensor_slot::dtype, Kind::DType),
    scalar("format_type", tensor_slot::format_type, 1),
    format_union(tensor_slot::format, tensor_slot::format_type),
    vec("data", tensor_slot::data, 1),
};
constexpr TableSpec kTensor{"Tensor", kTensorFields};
constexpr FieldSpec kBlobFields[] = {vec("data", blob_slot::data, 1)};
constexpr TableSpec kBlob{"Blob", kBlobFields};
constexpr FieldSpec kOperatorFields[] = {
    kind("type", opr_slot::type, Kind::String),
    scalar("type_id", opr_slot::type_id, 8),
    kind("name", opr_slot::name, Kind::String),
    scalar("param_type", opr_slot::param_type, 1),
    param_union("param", opr_slot::param, opr_slot::param_type, Kind::Union),
    vec("additional_params_type", opr_slot::additional_params_type, 1),
    param_union("additional_params", opr_slot::additional_params, opr_slot::additional_params_type, Kind::VecUnion),
    vec("inputs", opr_slot::inputs, 4),
    vec("outputs", opr_slot::outputs, 4),
    kind("comp_node", opr_slot::comp_node, Kind::VecTable, &kCompNode),
    kind("output_dtype", opr_slot::output_dtype, Kind::DType),
    kind("tensors", opr_slot::tensors, Kind::VecTable, &kTensor),
    scalar("opr_version", opr_slot::opr_version, 4),
    scalar("priority", opr_slot::priority, 4),
    kind("custom_data", opr_slot::custom_data, Kind::VecTable, &kBlob),
};
constexpr TableSpec kOperator{"Operator", kOperatorFields};
constexpr FieldSpec kMetadataFields[] = {
    scalar("is_valid", meta_slot::is_valid, 1),
    scalar("graph_modified", meta_slot::graph_modified, 1),
    scalar("optimize_options", meta_slot::optimize_options, 8),
    kind("user_info", meta_slot::user_info, Kind::String),
};
constexpr TableSpec kMetadata{"Metadata", kMetadataFields};
constexpr FieldSpec kMiddleTensorFields[] = {
    kind("name", middle_slot::name, Kind::String),
    vec("shape", middle_slot::shape, 4),
    kind("comp_node", middle_slot::comp_node, Kind::Table, &kCompNode),
    kind("dtype", middle_slot::dtype, Kind::DType),
    scalar("format_type", middle_slot::format_type, 1),
    format_union(middle_slot::format, middle_slot::format_type),
};
constexpr TableSpec kMiddleTensor{"MiddleTensor", kMiddleTensorFields};
constexpr FieldSpec kOutputVarFields[] = {
    scalar("compact_id", output_var_slot::compact_id, 4),
    scalar("original_id", output_var_slot::original_id, 4),
};
constexpr TableSpec kOutputVar{"OutputVar", kOutputVarFields};
constexpr FieldSpec kOutputAliasFields[] = {
    scalar("id", alias_slot::id, 4),
    kind("name", alias_slot::name, Kind::String),
};
constexpr TableSpec kOutputAlias{"OutputAlias", kOutputAliasFields};
constexpr FieldSpec kModelFields[] = {
    scalar("mge_version", model_slot::mge_version, 4),
    scalar("model_version", model_slot::model_version, 4),
    kind("oprs", model_slot::oprs, Kind::VecTable, &kOperator),
    kind("middle_tensors", model_slot::middle_tensors, Kind::VecTable, &kMiddleTensor),
    kind("output_vars_idx", model_slot::output_vars_idx, Kind::VecTable, &kOutputVar),
    kind("output_alias", model_slot::output_alias, Kind::VecTable, &kOutputAlias),
    scalar("nr_shared_tensor", model_slot::nr_shared_tensor, 4),
    kind("metadata", model_slot::metadata, Kind::Table, &kMetadata),
};
constexpr TableSpec kModel{"Model", kModelFields};
}  // namespace s2

}  // namespace

const fbsv::TableSpec& v1::graph_spec() { return s1::kGraph; }
const fbsv::TableSpec& v2::model_spec() { return s2::kModel; }

}  // namespace mgedump::formats
