#include "formats/param_codec.h"

#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "formats/dtype_codec.h"
#include "ir/error.h"
#include "ir/param_schema.h"

namespace mgedump::formats {
namespace {

using flatbuffers::FieldIndexToOffset;
using ir::FieldType;
using ir::FieldValue;
using ir::ParamTableId;
using ir::ParamValue;
using Bytes = std::vector<uint8_t>;

ParamTableId table_id(std::string_view name) {
    ParamTableId id = ir::find_param_table(name);
    EXPECT_TRUE(id.valid()) << name;
    return id;
}

template <class T>
int64_t bump(int64_t v) {
    return v == std::numeric_limits<T>::max() ? v - 1 : v + 1;
}

// A value different from the field's default that is still legal for its type.
FieldValue non_default(const ir::FieldDesc& f, const FieldValue& d) {
    switch (f.type) {
        case FieldType::Bool:
            return int64_t{1 - std::get<int64_t>(d)};
        case FieldType::Int8:
            return bump<int8_t>(std::get<int64_t>(d));
        case FieldType::UInt8:
            return bump<uint8_t>(std::get<int64_t>(d));
        case FieldType::Int32:
            return bump<int32_t>(std::get<int64_t>(d));
        case FieldType::UInt32:
            return bump<uint32_t>(std::get<int64_t>(d));
        case FieldType::Int64:
            return bump<int64_t>(std::get<int64_t>(d));
        case FieldType::UInt64: {
            uint64_t v = std::get<uint64_t>(d);
            return v == std::numeric_limits<uint64_t>::max() ? v - 1 : v + 1;
        }
        case FieldType::Float32:
            return double{static_cast<float>(std::get<double>(d)) + 1.5f};
        case FieldType::Float64:
            return std::get<double>(d) + 1.5;
        case FieldType::Enum: {
            int64_t v = std::get<int64_t>(d);
            if (f.enum_type->bit_flags) return int64_t{2 | 4};  // PROFILE | REPRODUCIBLE
            for (const ir::EnumMember& m : f.enum_type->members)
                if (m.value != v) return int64_t{m.value};
            return v + 1;  // a one-member enum: still a distinct number on the wire
        }
        case FieldType::DTypeEnum: {
            auto v = std::get<int64_t>(d) == static_cast<int64_t>(ir::DTypeEnum::Int8) ? ir::DTypeEnum::Uint8
                                                                                       : ir::DTypeEnum::Int8;
            return int64_t{static_cast<int8_t>(v)};
        }
        case FieldType::DTypeScalar:
            return ir::DTypeScalar{ir::DTypeEnum::Int32, {1, 2, 3, 4}};
        case FieldType::Int32Vector:
            return std::vector<int32_t>{3, -1, 0, 2};
        case FieldType::AxisDescVector:
            return std::vector<ir::AxisDesc>{{ir::AxisDescMethod::REMOVE, -2},
                                             {ir::AxisDescMethod::ADD_1, 5}};
        case FieldType::IndexDescMaskVector:
            return std::vector<ir::IndexDescMaskItem>{{1, true, false, true, false},
                                                      {-3, false, true, false, true}};
        case FieldType::DTypeTable:
            return ir::DType::quantized(ir::DTypeEnum::Quantized8Asymm, 0.25f, 7);
    }
    return d;
}

ParamValue non_default_param(ParamTableId id) {
    ParamValue v = ir::default_param(id);
    const auto& desc = ir::param_table(id);
    for (size_t i = 0; i < desc.fields.size(); ++i) v.fields[i] = non_default(desc.fields[i], v.fields[i]);
    return v;
}

Bytes finish(const ParamValue& value) {
    formats::Fbb fbb;
    fbb.Finish(encode_param(fbb, value));
    return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

const flatbuffers::Table* root(const Bytes& buf) {
    return flatbuffers::GetRoot<flatbuffers::Table>(buf.data());
}

uint16_t vtable_size(const flatbuffers::Table* t) {
    return flatbuffers::ReadScalar<uint16_t>(t->GetVTable());
}

Bytes from_hex(std::string_view hex) {
    Bytes out;
    for (size_t i = 0; i + 1 < hex.size();) {
        if (hex[i] == ' ') {
            ++i;
            continue;
        }
        out.push_back(static_cast<uint8_t>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
        i += 2;
    }
    return out;
}

// A table's position-independent bytes: its vtable without the table-size word, and
// its fields' bytes. (The table size counts the alignment padding EndTable adds after
// the fields, which depends on what was written before; it is not the table's own.)
struct TableBytes {
    Bytes slots, fields;
    bool operator==(const TableBytes&) const = default;
};
TableBytes table_bytes(const flatbuffers::Table* t, size_t field_width) {
    const uint8_t* vt = t->GetVTable();
    const auto vt_size = flatbuffers::ReadScalar<uint16_t>(vt);
    size_t end = 4;
    for (size_t at = 4; at < vt_size; at += 2)
        if (auto o = flatbuffers::ReadScalar<uint16_t>(vt + at)) end = std::max<size_t>(end, o + field_width);
    const auto* p = reinterpret_cast<const uint8_t*>(t);
    return {Bytes(vt + 4, vt + vt_size), Bytes(p + 4, p + end)};
}

TEST(ParamCodec, UnionIndicesFollowTheTableOrder) {
    for (uint32_t i = 0; i < ir::param_tables().size(); ++i) {
        EXPECT_EQ(param_union_index(ParamTableId{i}), i + 1);
        EXPECT_EQ(param_table_for_union(static_cast<uint8_t>(i + 1)), ParamTableId{i});
    }
    EXPECT_EQ(param_union_index(table_id("Elemwise")), 17);
    EXPECT_EQ(param_union_index(table_id("ParamDType")), 51);
    EXPECT_EQ(param_union_index(table_id("DType")), 67);
    EXPECT_EQ(param_union_index(ParamTableId{}), 0);
    EXPECT_FALSE(param_table_for_union(0).valid());
    EXPECT_FALSE(param_table_for_union(100).valid());
    EXPECT_FALSE(param_table_for_union(255).valid());
}

TEST(ParamCodec, EveryUnionMemberRoundTripsWithNonDefaultValues) {
    for (int u = 1; u <= 99; ++u) {
        ParamTableId id = param_table_for_union(static_cast<uint8_t>(u));
        const auto& desc = ir::param_table(id);
        SCOPED_TRACE(desc.name);
        ParamValue value = non_default_param(id);
        Bytes buf = finish(value);
        flatbuffers::Verifier v(buf.data(), buf.size());
        ASSERT_TRUE(verify_param(v, id, root(buf)));
        EXPECT_EQ(decode_param(id, root(buf)), value);
        if (id == table_id("DType")) continue;  // its slots are the DType table's, checked below
        for (size_t f = 0; f < desc.fields.size(); ++f)
            EXPECT_TRUE(root(buf)->CheckField(FieldIndexToOffset(static_cast<uint16_t>(f))))
                << desc.fields[f].name;
    }
}

TEST(ParamCodec, AllDefaultsWriteOnlyVectorsAndStructs) {
    for (int u = 1; u <= 99; ++u) {
        ParamTableId id = param_table_for_union(static_cast<uint8_t>(u));
        const auto& desc = ir::param_table(id);
        SCOPED_TRACE(desc.name);
        ParamValue value = ir::default_param(id);
        Bytes buf = finish(value);
        flatbuffers::Verifier v(buf.data(), buf.size());
        ASSERT_TRUE(verify_param(v, id, root(buf)));
        EXPECT_EQ(decode_param(id, root(buf)), value);
        bool scalars_only = true;
        for (size_t f = 0; f < desc.fields.size(); ++f) {
            FieldType t = desc.fields[f].type;
            bool always = t == FieldType::DTypeScalar || t == FieldType::Int32Vector ||
                          t == FieldType::AxisDescVector || t == FieldType::IndexDescMaskVector;
            scalars_only = scalars_only && !always;
            if (t != FieldType::DTypeTable) {
                EXPECT_EQ(root(buf)->CheckField(FieldIndexToOffset(static_cast<uint16_t>(f))), always)
                    << desc.fields[f].name;
            }
        }
        // An empty vtable (4 bytes: its own size and the table size) means no field was written.
        if (scalars_only) {
            EXPECT_EQ(vtable_size(root(buf)), 4);
        }
    }
}

TEST(ParamCodec, ANullTableDecodesToAllDefaults) {
    for (auto name : {"Convolution", "Dimshuffle", "MGBAddUpdate", "DType", "ExecutionPolicy"})
        EXPECT_EQ(decode_param(table_id(name), nullptr), ir::default_param(table_id(name))) << name;
    flatbuffers::Verifier v(nullptr, 0);
    EXPECT_TRUE(verify_param(v, table_id("Convolution"), nullptr));
}

TEST(ParamCodec, RejectsValuesThatDoNotFitTheirField) {
    ParamTableId conv = table_id("Convolution");
    ParamValue bad = ir::default_param(conv);
    bad.fields[1] = int64_t{-1};  // pad_h: uint
    formats::Fbb fbb;
    try {
        encode_param(fbb, bad);
        FAIL() << "negative uint accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Convolution"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("pad_h"), std::string::npos) << e.what();
    }
    bad.fields[1] = uint64_t{1};  // wrong carrier type
    EXPECT_THROW(encode_param(fbb, bad), Error);
    bad = ir::default_param(conv);
    bad.fields.pop_back();
    EXPECT_THROW(encode_param(fbb, bad), Error);

    ParamValue flag = ir::default_param(table_id("MatrixMul"));
    flag.fields[0] = int64_t{2};  // transposeA: bool
    EXPECT_THROW(encode_param(fbb, flag), Error);

    ParamValue eye = ir::default_param(table_id("Eye"));
    eye.fields[1] = int64_t{ir::kDTypeCount};  // no such dtype
    EXPECT_THROW(encode_param(fbb, eye), Error);

    ParamValue cvt = ir::default_param(table_id("DType"));
    cvt.fields[0] = ir::DType::none();
    EXPECT_THROW(encode_param(fbb, cvt), Error);
}

TEST(ParamCodec, VerifierRejectsAVectorThatRunsPastTheBuffer) {
    ParamValue value = ir::default_param(table_id("Dimshuffle"));
    value.fields[0] = std::vector<int32_t>{0, 2, 1};
    Bytes buf = finish(value);
    auto* vec = root(buf)->GetPointer<const flatbuffers::Vector<int32_t>*>(FieldIndexToOffset(0));
    ASSERT_NE(vec, nullptr);
    size_t at = reinterpret_cast<const uint8_t*>(vec) - buf.data();
    {
        flatbuffers::Verifier ok(buf.data(), buf.size());
        EXPECT_TRUE(verify_param(ok, table_id("Dimshuffle"), root(buf)));
    }
    flatbuffers::WriteScalar<uint32_t>(buf.data() + at, 1000);
    flatbuffers::Verifier v(buf.data(), buf.size());
    EXPECT_FALSE(verify_param(v, table_id("Dimshuffle"), root(buf)));
}

TEST(ParamCodec, VerifierRejectsAFieldOutsideTheBuffer) {
    ParamTableId bn = table_id("BN");
    Bytes buf = finish(non_default_param(bn));
    flatbuffers::Verifier v(buf.data(), buf.size() - 8);
    EXPECT_FALSE(verify_param(v, bn, root(buf)));
}

TEST(ParamCodec, AddsLargerFieldsFirstAndWithinASizeTheLastDeclaredFirst) {
    // BN: param_dim(u32) fwd_mode(u32) epsilon(f64) avg_factor(f64) scale(f32) bias(f32).
    // The builder grows downwards, so the first field added sits highest in the table.
    ParamTableId bn = table_id("BN");
    Bytes buf = finish(non_default_param(bn));
    auto offset = [&](uint16_t slot) {
        return flatbuffers::ReadScalar<uint16_t>(root(buf)->GetVTable() + FieldIndexToOffset(slot));
    };
    EXPECT_GT(offset(3), offset(2));  // avg_factor, epsilon
    EXPECT_GT(offset(2), offset(5));  // epsilon, bias
    EXPECT_GT(offset(5), offset(4));  // bias, scale
    EXPECT_GT(offset(4), offset(1));  // scale, fwd_mode
    EXPECT_GT(offset(1), offset(0));  // fwd_mode, param_dim
}

// Whole finished buffers, each confirmed byte for byte against the CreateXxx helpers
// that flatc 2.0.8 generated from a schema transcribed from spec Appendix A (a one-off
// check outside the repo), and consistent with the rule in spec §2.4: larger fields
// first, reverse declaration order within a size, inline structs ordered as 4 bytes.
TEST(ParamCodec, MatchesFlatcGeneratedHelpersByteForByte) {
    ParamValue bn = ir::default_param(table_id("BN"));
    bn.fields = {int64_t{2}, int64_t{1}, 1e-5, 0.5, 2.0, 0.5};  // DIM_1C11, INFERENCE
    EXPECT_EQ(finish(bn),
              (Bytes{0x14, 0x00, 0x00, 0x00, 0x10, 0x00, 0x24, 0x00, 0x04, 0x00, 0x08, 0x00, 0x14, 0x00,
                     0x1c, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
                     0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x3f, 0xf1, 0x68,
                     0xe3, 0x88, 0xb5, 0xf8, 0xe4, 0x3e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f}));

    ParamValue add_update = ir::default_param(table_id("MGBAddUpdate"));
    add_update.fields = {ir::DTypeScalar{ir::DTypeEnum::Float32, {0x00, 0x00, 0x80, 0x3f}},  // 1.0f
                         ir::DTypeScalar{ir::DTypeEnum::Float32, {0x00, 0x00, 0x00, 0x3f}},  // 0.5f
                         ir::DTypeScalar{}};
    EXPECT_EQ(finish(add_update),
              (Bytes{0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x14, 0x00, 0x05, 0x00,
                     0x0a, 0x00, 0x0f, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                     0x80, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00}));

    ParamValue axes = ir::default_param(table_id("AxisAddRemove"));
    axes.fields = {
        std::vector<ir::AxisDesc>{{ir::AxisDescMethod::ADD_1, 0}, {ir::AxisDescMethod::REMOVE, -1}}};
    EXPECT_EQ(finish(axes),
              (Bytes{0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x08, 0x00, 0x04, 0x00, 0x06, 0x00,
                     0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                     0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff}));

    ParamValue policy = ir::default_param(table_id("ExecutionPolicy"));
    policy.fields = {int64_t{2 | 4}, uint64_t{1} << 20};  // PROFILE | REPRODUCIBLE
    EXPECT_EQ(finish(policy), (Bytes{0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x10,
                                     0x00, 0x04, 0x00, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00, 0x06, 0x00,
                                     0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00}));
}

// Appendix C.1 of the spec (the worked FBS v1 example), copied from the spec.
constexpr std::string_view kSpecExampleV1 =
    "4d 47 42 43 00 00 00 00 00 00 00 00 00 00 00 00 "
    "0c 00 00 00 00 00 00 00 00 00 80 3f 00 00 00 40 "
    "00 00 40 40 c4 01 00 00 1c 00 00 00 6d 67 62 31 "
    "00 00 00 00 10 00 20 00 1c 00 10 00 00 00 0c 00 "
    "08 00 04 00 10 00 00 00 94 01 00 00 18 00 00 00 "
    "20 00 00 00 01 18 26 a9 2a f5 c0 0a 00 00 00 00 "
    "b8 8b 01 00 01 00 00 00 02 00 00 00 07 00 00 00 "
    "03 00 00 00 d8 00 00 00 6c 00 00 00 14 00 00 00 "
    "10 00 1c 00 14 00 0b 00 04 00 10 00 00 00 0c 00 "
    "10 00 00 00 18 00 00 00 00 00 00 11 18 00 00 00 "
    "24 00 00 00 da b6 78 92 dd 9b b3 eb 16 ff ff ff "
    "10 00 00 00 01 00 00 00 04 00 00 00 03 00 00 00 "
    "6f 75 74 00 02 00 00 00 00 00 00 00 01 00 00 00 "
    "14 00 10 00 08 00 00 00 00 00 00 00 00 00 00 00 "
    "00 00 04 00 14 00 00 00 0c 00 00 00 b1 a2 d5 bb "
    "56 28 d5 60 01 00 00 00 14 00 00 00 00 00 0e 00 "
    "14 00 00 00 04 00 08 00 0c 00 10 00 0e 00 00 00 "
    "20 00 00 00 14 00 00 00 0c 00 00 00 0c 00 00 00 "
    "04 00 04 00 04 00 00 00 92 ff ff ff 78 00 00 00 "
    "01 00 00 00 03 00 00 00 14 00 1c 00 10 00 0f 00 "
    "08 00 00 00 00 00 00 00 00 00 04 00 14 00 00 00 "
    "18 00 00 00 78 00 00 00 00 00 00 3f 29 92 70 fd "
    "89 98 d0 21 00 00 00 00 01 00 00 00 10 00 00 00 "
    "0c 00 14 00 04 00 08 00 0c 00 10 00 0c 00 00 00 "
    "3c 00 00 00 2c 00 00 00 14 00 00 00 04 00 00 00 "
    "c8 ff ff ff 00 00 06 00 08 00 04 00 06 00 00 00 "
    "04 00 00 00 06 00 00 00 78 70 75 78 3a 30 00 00 "
    "02 00 00 00 01 00 00 00 03 00 00 00 04 00 00 00 "
    "64 61 74 61 00 00 00 00 04 00 06 00 04 00 00 00 "
    "00 00 0a 00 08 00 00 00 00 00 04 00 0a 00 00 00 "
    "04 00 00 00 00 00 00 00 00 00 00 00";

struct SpecExample {
    Bytes file = from_hex(kSpecExampleV1);
    const uint8_t* fbs() const { return file.data() + 36 + 4; }  // after the size prefix
    size_t fbs_size() const { return flatbuffers::ReadScalar<uint32_t>(file.data() + 36); }
    const flatbuffers::Table* op(size_t i) const {
        auto* graph = flatbuffers::GetRoot<flatbuffers::Table>(fbs());
        auto* oprs = graph->GetPointer<const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::Table>>*>(
            FieldIndexToOffset(3));
        return oprs->Get(static_cast<flatbuffers::uoffset_t>(i));
    }
    uint8_t param_type(size_t i) const { return op(i)->GetField<uint8_t>(FieldIndexToOffset(1), 0); }
    const flatbuffers::Table* param(size_t i) const {
        return op(i)->GetPointer<const flatbuffers::Table*>(FieldIndexToOffset(2));
    }
};

TEST(ParamCodec, ReadsTheParamsOfTheSpecWorkedExample) {
    SpecExample ex;
    ASSERT_EQ(ex.file.size(), 492u);
    ASSERT_EQ(ex.fbs_size(), 452u);
    ASSERT_EQ(ex.param_type(0), 63);  // Host2DeviceCopy
    ASSERT_EQ(ex.param_type(2), 17);  // Elemwise
    flatbuffers::Verifier v(ex.fbs(), ex.fbs_size());
    ParamTableId h2d = param_table_for_union(63), elemwise = param_table_for_union(17);
    EXPECT_TRUE(verify_param(v, h2d, ex.param(0)));
    EXPECT_TRUE(verify_param(v, elemwise, ex.param(2)));
    EXPECT_EQ(decode_param(h2d, ex.param(0)), ir::default_param(h2d));
    ParamValue add = ir::default_param(elemwise);
    add.fields[0] = int64_t{16};  // ADD
    EXPECT_EQ(decode_param(elemwise, ex.param(2)), add);
}

TEST(ParamCodec, WritesTheSameParamTablesAsTheSpecWorkedExample) {
    SpecExample ex;
    ParamTableId h2d = param_table_for_union(63), elemwise = param_table_for_union(17);
    ParamValue add = ir::default_param(elemwise);
    add.fields[0] = int64_t{16};
    Bytes ours = finish(add);
    EXPECT_EQ(table_bytes(root(ours), 4), table_bytes(ex.param(2), 4));
    EXPECT_EQ(table_bytes(root(ours), 4).slots, (Bytes{0x04, 0x00}));  // mode at +4
    EXPECT_EQ(table_bytes(root(ours), 4).fields, (Bytes{0x10, 0x00, 0x00, 0x00}));
    Bytes empty = finish(ir::default_param(h2d));
    EXPECT_EQ(table_bytes(root(empty), 1), table_bytes(ex.param(0), 1));
    EXPECT_TRUE(table_bytes(root(empty), 1).slots.empty());
}

// --- DType -------------------------------------------------------------------

Bytes finish_dtype(const ir::DType& d) {
    formats::Fbb fbb;
    fbb.Finish(encode_dtype(fbb, d));
    return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(DTypeCodec, AnUnsetDTypeIsANullOffset) {
    formats::Fbb fbb;
    EXPECT_TRUE(encode_dtype(fbb, ir::DType::none()).IsNull());
    EXPECT_EQ(decode_dtype(nullptr), ir::DType::none());
}

TEST(DTypeCodec, Float32IsAnEmptyTable) {
    Bytes buf = finish_dtype(ir::DType::of(ir::DTypeEnum::Float32));
    EXPECT_EQ(vtable_size(root(buf)), 4);
    EXPECT_EQ(decode_dtype(root(buf)), ir::DType::of(ir::DTypeEnum::Float32));
}

TEST(DTypeCodec, EveryDTypeRoundTrips) {
    for (int i = 0; i < ir::kDTypeCount; ++i) {
        auto t = static_cast<ir::DTypeEnum>(i);
        ir::DType d = ir::DType::of(t);
        if (ir::dtype_is_quantized(t))
            d = ir::DType::quantized(t, 0.125f, ir::dtype_is_asymmetric(t) ? 3 : 0);
        Bytes buf = finish_dtype(d);
        flatbuffers::Verifier v(buf.data(), buf.size());
        EXPECT_TRUE(verify_dtype(v, root(buf))) << ir::dtype_name(t);
        EXPECT_EQ(decode_dtype(root(buf)), d) << ir::dtype_name(t);
        EXPECT_EQ(root(buf)->CheckField(FieldIndexToOffset(2)), ir::dtype_is_quantized(t))
            << ir::dtype_name(t);
    }
}

TEST(DTypeCodec, SymmetricTypesWriteNoZeroPoint) {
    Bytes buf = finish_dtype(ir::DType::quantized(ir::DTypeEnum::QuantizedS8, 0.5f, 9));
    auto* param = root(buf)->GetPointer<const flatbuffers::Table*>(FieldIndexToOffset(2));
    ASSERT_NE(param, nullptr);
    EXPECT_EQ(root(buf)->GetField<uint8_t>(FieldIndexToOffset(1), 0), 1);  // LinearQuantizationParam
    EXPECT_EQ(param->GetField<float>(FieldIndexToOffset(0), 0.0f), 0.5f);
    EXPECT_FALSE(param->CheckField(FieldIndexToOffset(1)));
    EXPECT_EQ(decode_dtype(root(buf)), ir::DType::quantized(ir::DTypeEnum::QuantizedS8, 0.5f, 0));
}

TEST(DTypeCodec, FieldsAreAddedInMegEnginesHandWrittenOrder) {
    // type, then param_type, then param: the first added sits highest in the table,
    // the reverse of what flatc's size-ordered CreateDType would produce.
    Bytes buf = finish_dtype(ir::DType::quantized(ir::DTypeEnum::Quantized8Asymm, 0.5f, 128));
    auto offset = [&](uint16_t slot) {
        return flatbuffers::ReadScalar<uint16_t>(root(buf)->GetVTable() + FieldIndexToOffset(slot));
    };
    EXPECT_GT(offset(0), offset(1));
    EXPECT_GT(offset(1), offset(2));
}

TEST(DTypeCodec, AnUnknownDTypeValueIsAFormatError) {
    formats::Fbb fbb;
    auto start = fbb.StartTable();
    fbb.AddElement<int8_t>(FieldIndexToOffset(0), 42, 0);
    fbb.Finish(flatbuffers::Offset<void>(fbb.EndTable(start)));
    EXPECT_THROW(decode_dtype(flatbuffers::GetRoot<flatbuffers::Table>(fbb.GetBufferPointer())), FormatError);
}

}  // namespace
}  // namespace mgedump::formats
