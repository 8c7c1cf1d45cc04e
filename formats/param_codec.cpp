#include "formats/param_codec.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "formats/dtype_codec.h"
#include "ir/error.h"

namespace mgedump::formats {
namespace {

using flatbuffers::voffset_t;
using ir::FieldType;

// OperatorParam members by union index - 1, named as in ir::param_tables(). The union
// is append-only on MegEngine's side, so this list only ever grows at the end.
constexpr std::array<std::string_view, 99> kUnionMembers = {
    "Empty",
    "Axis",
    "Convolution",
    "MaskPropagate",
    "ConvPooling",
    "ConvBias",
    "SeparableConv",
    "Images2Neibs",
    "Pooling",
    "LRN",
    "BN",
    "ROIPooling",
    "WarpPerspective",
    "SpatialTfGridGenerator",
    "SpatialTfSampler",
    "MGBAddUpdate",
    "Elemwise",
    "ElemwiseMultiType",
    "PowC",
    "MatrixMul",
    "DeprecatedParam",
    "SVD",
    "Reduce",
    "Cumsum",
    "CondTake",
    "Argsort",
    "IndexingRemap",
    "MGBSleep",
    "Linspace",
    "LinspaceFull",
    "Eye",
    "UniformRNG",
    "GaussianRNG",
    "Flip",
    "Rotate",
    "ROICopy",
    "CvtColor",
    "WarpAffine",
    "GaussianBlur",
    "Resize",
    "Convolution3D",
    "Conv3DBias",
    "SeparableConv3D",
    "TopK",
    "RelayoutFormat",
    "SeparableFilter",
    "LocalShare",
    "ROIAlign",
    "DeformablePSROIPooling",
    "BatchConvBias",
    "ParamDType",
    "PersistentOutputStorage",
    "OptionalAxis",
    "OptionalAxisV1",
    "ExecutionPolicy",
    "AssertEqual",
    "Reserved0",
    "CollectiveComm",
    "CondExecPred",
    "CondExecPredLogical",
    "CondExecMark",
    "CondExecMerge",
    "Host2DeviceCopy",
    "Dimshuffle",
    "AxisAddRemove",
    "IndexDescMaskDump",
    "DType",
    "Remap",
    "NMSKeep",
    "AdaptivePooling",
    "NvOf",
    "DctChannelSelect",
    "FakeQuant",
    "TQT",
    "Correlation",
    "LSQ",
    "GammaRNG",
    "PoissonRNG",
    "PermutationRNG",
    "BetaRNG",
    "SlidingWindowTranspose",
    "Padding",
    "ShuffleRNG",
    "CheckNonFinite",
    "LayerNorm",
    "Dropout",
    "RNNCell",
    "RNN",
    "LSTM",
    "Softmax",
    "Diag",
    "GroupNorm",
    "Fill",
    "GeneralNorm",
    "MultiHeadAttn",
    "Resize3D",
    "Cross",
    "ExponentialRNG",
    "MultinomialRNG",
};

// The inline structs of mgb_cpp_opr.fbs, laid out as flatc generates them. Multi-byte
// members go through EndianScalar, so the bytes are little-endian on any host.
FLATBUFFERS_MANUALLY_ALIGNED_STRUCT(1) WireDTypeScalar {
    int8_t dtype;
    uint8_t storage[4];
};
FLATBUFFERS_STRUCT_END(WireDTypeScalar, 5);

FLATBUFFERS_MANUALLY_ALIGNED_STRUCT(4) WireAxisDesc {
    int8_t method;
    int8_t padding0;
    int16_t padding1;
    int32_t axis;
};
FLATBUFFERS_STRUCT_END(WireAxisDesc, 8);

FLATBUFFERS_MANUALLY_ALIGNED_STRUCT(1) WireIndexDescMaskItem {
    int8_t axis;
    uint8_t begin, end, step, idx;
};
FLATBUFFERS_STRUCT_END(WireIndexDescMaskItem, 5);

voffset_t slot(size_t field_index) {
    return flatbuffers::FieldIndexToOffset(static_cast<voffset_t>(field_index));
}

// flatc orders a CreateXxx helper's adds by SizeOf(base type), where a struct field
// counts as an offset (4) whatever its real size; checked against flatc 2.0.8 output.
size_t flatc_sort_size(FieldType t) {
    switch (t) {
        case FieldType::Bool:
        case FieldType::Int8:
        case FieldType::UInt8:
        case FieldType::DTypeEnum:
            return 1;
        case FieldType::Int64:
        case FieldType::UInt64:
        case FieldType::Float64:
            return 8;
        default:
            return 4;
    }
}

bool is_vector(FieldType t) {
    return t == FieldType::Int32Vector || t == FieldType::AxisDescVector ||
           t == FieldType::IndexDescMaskVector;
}

struct Tables {
    std::vector<uint8_t> union_of_table;               // by ParamTableId
    std::array<ir::ParamTableId, 100> table_of_union;  // by union index
    std::vector<std::vector<uint16_t>> add_order;      // by ParamTableId: field indices

    Tables() {
        auto tables = ir::param_tables();
        union_of_table.assign(tables.size(), 0);
        for (size_t i = 0; i < kUnionMembers.size(); ++i) {
            ir::ParamTableId id = ir::find_param_table(kUnionMembers[i]);
            if (!id) throw Error(fmt::format("OperatorParam member {} has no param table", kUnionMembers[i]));
            union_of_table[id.value] = static_cast<uint8_t>(i + 1);
            table_of_union[i + 1] = id;
        }
        add_order.resize(tables.size());
        for (size_t t = 0; t < tables.size(); ++t) {
            const auto& fields = tables[t].fields;
            for (size_t size = 8; size > 0; size /= 2)
                for (size_t i = fields.size(); i-- > 0;)
                    if (flatc_sort_size(fields[i].type) == size)
                        add_order[t].push_back(static_cast<uint16_t>(i));
        }
    }
};

const Tables& tables() {
    static const Tables t;
    return t;
}

[[noreturn]] void bad_value(const ir::ParamTableDesc& table, size_t field, std::string_view why) {
    throw Error(fmt::format("param {}: field {}: {}", table.name, table.fields[field].name, why));
}

template <class T>
const T& get(const ir::ParamTableDesc& table, const ir::ParamValue& value, size_t field) {
    const T* v = std::get_if<T>(&value.fields[field]);
    if (!v)
        bad_value(table, field,
                  fmt::format("value holds the wrong kind (variant index {})", value.fields[field].index()));
    return *v;
}

// The int64 carrier narrowed to a field's wire type; out-of-range values are an error,
// never a silent wrap.
template <class Wire>
Wire narrow(const ir::ParamTableDesc& table, const ir::ParamValue& value, size_t field, int64_t lo,
            int64_t hi) {
    int64_t v = get<int64_t>(table, value, field);
    if (v < lo || v > hi) bad_value(table, field, fmt::format("{} is outside [{}, {}]", v, lo, hi));
    return static_cast<Wire>(v);
}

template <class Wire>
Wire narrow(const ir::ParamTableDesc& table, const ir::ParamValue& value, size_t field) {
    return narrow<Wire>(table, value, field, std::numeric_limits<Wire>::min(),
                        std::numeric_limits<Wire>::max());
}

float to_float32(const ir::ParamTableDesc& table, size_t field, double v) {
    if (std::isfinite(v) && (v > std::numeric_limits<float>::max() || v < -std::numeric_limits<float>::max()))
        bad_value(table, field, fmt::format("{} does not fit a float32", v));
    return static_cast<float>(v);
}

template <class Wire>
Wire default_as(ir::ParamTableId id, size_t field) {
    const ir::FieldValue& d = ir::field_default(id, field);
    if (const auto* i = std::get_if<int64_t>(&d)) return static_cast<Wire>(*i);
    if (const auto* u = std::get_if<uint64_t>(&d)) return static_cast<Wire>(*u);
    return static_cast<Wire>(std::get<double>(d));
}

flatbuffers::uoffset_t encode_vector(Fbb& fbb, const ir::ParamTableDesc& table,
                                     const ir::ParamValue& value, size_t field) {
    switch (table.fields[field].type) {
        case FieldType::Int32Vector:
            return fbb.CreateVector(get<std::vector<int32_t>>(table, value, field)).o;
        case FieldType::AxisDescVector: {
            const auto& in = get<std::vector<ir::AxisDesc>>(table, value, field);
            std::vector<WireAxisDesc> wire(in.size());
            for (size_t i = 0; i < in.size(); ++i)
                wire[i] = {flatbuffers::EndianScalar(static_cast<int8_t>(in[i].method)), 0, 0,
                           flatbuffers::EndianScalar(in[i].axis)};
            return fbb.CreateVectorOfStructs(wire.data(), wire.size()).o;
        }
        case FieldType::IndexDescMaskVector: {
            const auto& in = get<std::vector<ir::IndexDescMaskItem>>(table, value, field);
            std::vector<WireIndexDescMaskItem> wire(in.size());
            for (size_t i = 0; i < in.size(); ++i)
                wire[i] = {in[i].axis, in[i].begin, in[i].end, in[i].step, in[i].idx};
            return fbb.CreateVectorOfStructs(wire.data(), wire.size()).o;
        }
        default:
            bad_value(table, field, "is not a vector");
    }
}

void add_field(Fbb& fbb, const ir::ParamTableDesc& table,
               const ir::ParamValue& value, size_t field, flatbuffers::uoffset_t vector_offset) {
    const ir::ParamTableId id = value.table;
    const voffset_t vt = slot(field);
    switch (table.fields[field].type) {
        case FieldType::Bool:
            fbb.AddElement<uint8_t>(vt, narrow<uint8_t>(table, value, field, 0, 1),
                                    default_as<uint8_t>(id, field));
            return;
        case FieldType::Int8:
            fbb.AddElement<int8_t>(vt, narrow<int8_t>(table, value, field), default_as<int8_t>(id, field));
            return;
        case FieldType::UInt8:
            fbb.AddElement<uint8_t>(vt, narrow<uint8_t>(table, value, field), default_as<uint8_t>(id, field));
            return;
        case FieldType::DTypeEnum:
            fbb.AddElement<int8_t>(vt, narrow<int8_t>(table, value, field, 0, ir::kDTypeCount - 1),
                                   default_as<int8_t>(id, field));
            return;
        case FieldType::Int32:
            fbb.AddElement<int32_t>(vt, narrow<int32_t>(table, value, field), default_as<int32_t>(id, field));
            return;
        case FieldType::UInt32:
        case FieldType::Enum:  // numeric like MegEngine's converters; naming members is the builder's job
            fbb.AddElement<uint32_t>(vt, narrow<uint32_t>(table, value, field),
                                     default_as<uint32_t>(id, field));
            return;
        case FieldType::Int64:
            fbb.AddElement<int64_t>(vt, get<int64_t>(table, value, field), default_as<int64_t>(id, field));
            return;
        case FieldType::UInt64:
            fbb.AddElement<uint64_t>(vt, get<uint64_t>(table, value, field), default_as<uint64_t>(id, field));
            return;
        case FieldType::Float32:
            fbb.AddElement<float>(vt, to_float32(table, field, get<double>(table, value, field)),
                                  default_as<float>(id, field));
            return;
        case FieldType::Float64:
            fbb.AddElement<double>(vt, get<double>(table, value, field), default_as<double>(id, field));
            return;
        case FieldType::DTypeScalar: {
            const auto& s = get<ir::DTypeScalar>(table, value, field);
            // Generated helpers take the struct by pointer and MegEngine always passes one,
            // so the struct is written even when it equals the zero default.
            WireDTypeScalar wire{static_cast<int8_t>(s.dtype),
                                 {s.storage[0], s.storage[1], s.storage[2], s.storage[3]}};
            fbb.AddStruct(vt, &wire);
            return;
        }
        case FieldType::Int32Vector:
        case FieldType::AxisDescVector:
        case FieldType::IndexDescMaskVector:
            fbb.AddOffset(vt, flatbuffers::Offset<void>(vector_offset));
            return;
        case FieldType::DTypeTable:
            bad_value(table, field, "a DType table cannot be a field of another param");
    }
    bad_value(table, field, "has an unknown field type");
}

}  // namespace

uint8_t param_union_index(ir::ParamTableId table) {
    const auto& map = tables().union_of_table;
    return table.valid() && table.value < map.size() ? map[table.value] : 0;
}

ir::ParamTableId param_table_for_union(uint8_t union_index) {
    const auto& map = tables().table_of_union;
    return union_index < map.size() ? map[union_index] : ir::ParamTableId{};
}

flatbuffers::Offset<void> encode_param(Fbb& fbb, const ir::ParamValue& value) {
    const ir::ParamTableDesc& table = ir::param_table(value.table);
    if (value.fields.size() != table.fields.size())
        throw Error(fmt::format("param {}: {} field values for {} fields", table.name, value.fields.size(),
                                table.fields.size()));
    // The TypeCvt param is the dtype.fbs DType table itself, built MegEngine's way.
    if (table.fields.size() == 1 && table.fields[0].type == FieldType::DTypeTable) {
        const auto& dtype = get<ir::DType>(table, value, 0);
        if (!dtype.valid) bad_value(table, 0, "an unset dtype cannot be written as a param");
        return encode_dtype(fbb, dtype);
    }
    std::vector<flatbuffers::uoffset_t> vectors(table.fields.size(), 0);
    for (size_t i = 0; i < table.fields.size(); ++i)
        if (is_vector(table.fields[i].type)) vectors[i] = encode_vector(fbb, table, value, i);

    auto start = fbb.StartTable();
    for (uint16_t i : tables().add_order[value.table.value]) add_field(fbb, table, value, i, vectors[i]);
    return flatbuffers::Offset<void>(fbb.EndTable(start));
}

ir::ParamValue decode_param(ir::ParamTableId id, const flatbuffers::Table* t) {
    ir::ParamValue out = ir::default_param(id);
    if (!t) return out;
    const ir::ParamTableDesc& table = ir::param_table(id);
    for (size_t i = 0; i < table.fields.size(); ++i) {
        const voffset_t vt = slot(i);
        ir::FieldValue& f = out.fields[i];
        switch (table.fields[i].type) {
            case FieldType::Bool:
                f = int64_t{t->GetField<uint8_t>(vt, default_as<uint8_t>(id, i)) != 0};
                break;
            case FieldType::Int8:
            case FieldType::DTypeEnum:
                f = int64_t{t->GetField<int8_t>(vt, default_as<int8_t>(id, i))};
                break;
            case FieldType::UInt8:
                f = int64_t{t->GetField<uint8_t>(vt, default_as<uint8_t>(id, i))};
                break;
            case FieldType::Int32:
                f = int64_t{t->GetField<int32_t>(vt, default_as<int32_t>(id, i))};
                break;
            case FieldType::UInt32:
            case FieldType::Enum:
                f = int64_t{t->GetField<uint32_t>(vt, default_as<uint32_t>(id, i))};
                break;
            case FieldType::Int64:
                f = t->GetField<int64_t>(vt, default_as<int64_t>(id, i));
                break;
            case FieldType::UInt64:
                f = t->GetField<uint64_t>(vt, default_as<uint64_t>(id, i));
                break;
            case FieldType::Float32:
                f = double{t->GetField<float>(vt, default_as<float>(id, i))};
                break;
            case FieldType::Float64:
                f = t->GetField<double>(vt, default_as<double>(id, i));
                break;
            case FieldType::DTypeScalar:
                if (const auto* s = t->GetStruct<const WireDTypeScalar*>(vt)) {
                    ir::DTypeScalar v;
                    v.dtype = static_cast<ir::DTypeEnum>(s->dtype);
                    for (int b = 0; b < 4; ++b) v.storage[b] = s->storage[b];
                    f = v;
                }
                break;
            case FieldType::Int32Vector:
                if (const auto* vec = t->GetPointer<const flatbuffers::Vector<int32_t>*>(vt))
                    f = std::vector<int32_t>(vec->begin(), vec->end());
                break;
            case FieldType::AxisDescVector:
                if (const auto* vec = t->GetPointer<const flatbuffers::Vector<const WireAxisDesc*>*>(vt)) {
                    std::vector<ir::AxisDesc> v;
                    v.reserve(vec->size());
                    for (const WireAxisDesc* d : *vec)
                        v.push_back({static_cast<ir::AxisDescMethod>(flatbuffers::EndianScalar(d->method)),
                                     flatbuffers::EndianScalar(d->axis)});
                    f = std::move(v);
                }
                break;
            case FieldType::IndexDescMaskVector:
                if (const auto* vec =
                        t->GetPointer<const flatbuffers::Vector<const WireIndexDescMaskItem*>*>(vt)) {
                    std::vector<ir::IndexDescMaskItem> v;
                    v.reserve(vec->size());
                    for (const WireIndexDescMaskItem* d : *vec)
                        v.push_back({d->axis, d->begin != 0, d->end != 0, d->step != 0, d->idx != 0});
                    f = std::move(v);
                }
                break;
            case FieldType::DTypeTable:
                f = decode_dtype(t);
                break;
        }
    }
    return out;
}

bool verify_param(flatbuffers::Verifier& v, ir::ParamTableId id, const void* t) {
    if (!t) return true;
    const ir::ParamTableDesc& table = ir::param_table(id);
    if (table.fields.size() == 1 && table.fields[0].type == FieldType::DTypeTable) return verify_dtype(v, t);
    const auto* tab = static_cast<const flatbuffers::Table*>(t);
    if (!tab->VerifyTableStart(v)) return false;
    for (size_t i = 0; i < table.fields.size(); ++i) {
        const voffset_t vt = slot(i);
        bool ok = true;
        switch (table.fields[i].type) {
            case FieldType::Bool:
            case FieldType::Int8:
            case FieldType::UInt8:
            case FieldType::DTypeEnum:
                ok = tab->VerifyField<uint8_t>(v, vt, 1);
                break;
            case FieldType::Int32:
            case FieldType::UInt32:
            case FieldType::Enum:
            case FieldType::Float32:
                ok = tab->VerifyField<uint32_t>(v, vt, 4);
                break;
            case FieldType::Int64:
            case FieldType::UInt64:
            case FieldType::Float64:
                ok = tab->VerifyField<uint64_t>(v, vt, 8);
                break;
            case FieldType::DTypeScalar:
                ok = tab->VerifyField<WireDTypeScalar>(v, vt, alignof(WireDTypeScalar));
                break;
            case FieldType::Int32Vector:
                ok = tab->VerifyOffset(v, vt) &&
                     v.VerifyVector(tab->GetPointer<const flatbuffers::Vector<int32_t>*>(vt));
                break;
            case FieldType::AxisDescVector:
                ok = tab->VerifyOffset(v, vt) &&
                     v.VerifyVector(tab->GetPointer<const flatbuffers::Vector<const WireAxisDesc*>*>(vt));
                break;
            case FieldType::IndexDescMaskVector:
                ok = tab->VerifyOffset(v, vt) &&
                     v.VerifyVector(
                         tab->GetPointer<const flatbuffers::Vector<const WireIndexDescMaskItem*>*>(vt));
                break;
            case FieldType::DTypeTable:
                ok = false;
                break;  // only ever a whole table, handled above
        }
        if (!ok) return false;
    }
    return v.EndTable();
}

}  // namespace mgedump::formats
