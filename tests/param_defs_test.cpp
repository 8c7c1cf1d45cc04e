#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "ir/error.h"
#include "ir/param_schema.h"

namespace mgedump::ir {
namespace {

ParamTableId table_id(std::string_view name) {
    ParamTableId id = find_param_table(name);
    EXPECT_TRUE(id.valid()) << name;
    return id;
}

const FieldValue& default_of(std::string_view table, std::string_view field) {
    ParamTableId id = table_id(table);
    int index = find_field(param_table(id), field);
    EXPECT_GE(index, 0) << table << "." << field;
    return field_default(id, static_cast<size_t>(index));
}

bool holds_expected_kind(FieldType t, const FieldValue& v) {
    switch (t) {
        case FieldType::UInt64:
            return std::holds_alternative<uint64_t>(v);
        case FieldType::Float32:
        case FieldType::Float64:
            return std::holds_alternative<double>(v);
        case FieldType::Int32Vector:
            return std::holds_alternative<std::vector<int32_t>>(v);
        case FieldType::AxisDescVector:
            return std::holds_alternative<std::vector<AxisDesc>>(v);
        case FieldType::IndexDescMaskVector:
            return std::holds_alternative<std::vector<IndexDescMaskItem>>(v);
        case FieldType::DTypeScalar:
            return std::holds_alternative<DTypeScalar>(v);
        case FieldType::DTypeTable:
            return std::holds_alternative<DType>(v);
        default:
            return std::holds_alternative<int64_t>(v);
    }
}

TEST(ParamDefs, TablesAreTheNinetyNineUnionMembersInUnionOrder) {
    auto tables = param_tables();
    ASSERT_EQ(tables.size(), 99u);
    EXPECT_EQ(tables[0].name, "Empty");
    EXPECT_EQ(tables[2].name, "Convolution");
    EXPECT_EQ(tables[16].name, "Elemwise");
    EXPECT_EQ(tables[20].name, "DeprecatedParam");
    EXPECT_EQ(tables[50].name, "ParamDType");
    EXPECT_EQ(tables[56].name, "Reserved0");
    EXPECT_EQ(tables[62].name, "Host2DeviceCopy");
    EXPECT_EQ(tables[66].name, "DType");
    EXPECT_EQ(tables[98].name, "MultinomialRNG");
}

TEST(ParamDefs, PlaceholderTablesHaveNoFields) {
    for (auto name : {"Empty", "DeprecatedParam", "Reserved0"})
        EXPECT_TRUE(param_table(table_id(name)).fields.empty()) << name;
}

TEST(ParamDefs, TheDTypeMemberIsOneWholeDTypeTableField) {
    const auto& t = param_table(table_id("DType"));
    ASSERT_EQ(t.fields.size(), 1u);
    EXPECT_EQ(t.fields[0].name, "dtype");
    EXPECT_EQ(t.fields[0].type, FieldType::DTypeTable);
    EXPECT_EQ(std::get<DType>(field_default(table_id("DType"), 0)), DType::of(DTypeEnum::Float32));
}

TEST(ParamDefs, FindParamTableFindsEveryTableByNameAndNothingElse) {
    auto tables = param_tables();
    for (uint32_t i = 0; i < tables.size(); ++i) EXPECT_EQ(find_param_table(tables[i].name), ParamTableId{i});
    EXPECT_FALSE(find_param_table("Conv").valid());
    EXPECT_FALSE(find_param_table("param.Convolution").valid());
    EXPECT_FALSE(find_param_table("").valid());
    EXPECT_THROW(param_table(ParamTableId{}), Error);
    EXPECT_THROW(param_table(ParamTableId{99}), Error);
}

TEST(ParamDefs, FieldsAreInSlotOrder) {
    const auto& conv = param_table(table_id("Convolution"));
    ASSERT_EQ(conv.fields.size(), 10u);
    EXPECT_EQ(find_field(conv, "mode"), 0);
    EXPECT_EQ(find_field(conv, "sparse"), 7);
    EXPECT_EQ(find_field(conv, "format"), 8);
    EXPECT_EQ(find_field(conv, "compute_mode"), 9);
    EXPECT_EQ(find_field(conv, "groups"), -1);
    EXPECT_EQ(param_table(table_id("MultiHeadAttn")).fields.size(), 23u);
    EXPECT_EQ(find_field(param_table(table_id("MultiHeadAttn")), "out_prob"), 22);
    EXPECT_EQ(param_table(table_id("Padding")).fields.size(), 16u);
    EXPECT_EQ(find_field(param_table(table_id("ConvBias")), "nonlineMode"), 0);
}

TEST(ParamDefs, EveryDefaultOfEveryTableParsesToTheKindItsTypeStores) {
    auto tables = param_tables();
    for (uint32_t t = 0; t < tables.size(); ++t) {
        ParamValue all;
        ASSERT_NO_THROW(all = default_param(ParamTableId{t})) << tables[t].name;
        ASSERT_EQ(all.fields.size(), tables[t].fields.size());
        for (size_t f = 0; f < tables[t].fields.size(); ++f) {
            const FieldDesc& field = tables[t].fields[f];
            const FieldValue* v = nullptr;
            ASSERT_NO_THROW(v = &field_default(ParamTableId{t}, f)) << tables[t].name << "." << field.name;
            EXPECT_TRUE(holds_expected_kind(field.type, *v)) << tables[t].name << "." << field.name;
            EXPECT_EQ(all.fields[f], *v);
            if (field.type == FieldType::Enum) {
                EXPECT_NE(field.enum_type, nullptr) << field.name;
            }
        }
    }
    EXPECT_THROW(field_default(table_id("Axis"), 1), Error);
}

TEST(ParamDefs, DefaultsHaveTheSchemaValues) {
    EXPECT_EQ(std::get<int64_t>(default_of("Reduce", "axis")), 2147483647);
    EXPECT_EQ(std::get<uint64_t>(default_of("ExecutionPolicy", "workspace_limit")),
              std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(std::get<int64_t>(default_of("ExecutionPolicy", "strategy")), 1);  // HEURISTIC
    EXPECT_EQ(std::get<int64_t>(default_of("OptionalAxisV1", "axis")), 7);
    EXPECT_EQ(std::get<int64_t>(default_of("OptionalAxis", "axis")), -1);
    EXPECT_EQ(std::get<int64_t>(default_of("FakeQuant", "qmin")), std::numeric_limits<int32_t>::min());
    EXPECT_EQ(std::get<int64_t>(default_of("Convolution", "stride_h")), 1);
    EXPECT_EQ(std::get<int64_t>(default_of("Cumsum", "exclusive")), 1);
    EXPECT_EQ(std::get<int64_t>(default_of("Pooling", "mode")), 0);       // MAX_
    EXPECT_EQ(std::get<int64_t>(default_of("WarpAffine", "format")), 1);  // NHWC
    EXPECT_EQ(std::get<int64_t>(default_of("Resize3D", "format")), 1);    // NDHWC
    EXPECT_EQ(std::get<int64_t>(default_of("ParamDType", "dtype")), static_cast<int64_t>(DTypeEnum::Byte));
    EXPECT_EQ(std::get<int64_t>(default_of("PermutationRNG", "dtype")),
              static_cast<int64_t>(DTypeEnum::Int32));
    EXPECT_EQ(std::get<uint64_t>(default_of("MultinomialRNG", "num_samples")), 1u);
    EXPECT_EQ(std::get<double>(default_of("MGBSleep", "seconds")), 0.0);
    EXPECT_EQ(std::get<DTypeScalar>(default_of("MGBAddUpdate", "beta")), DTypeScalar{});
    EXPECT_TRUE(std::get<std::vector<int32_t>>(default_of("Dimshuffle", "pattern")).empty());
}

TEST(ParamDefs, Float32DefaultsAreTheNearestFloatNotTheNearestDouble) {
    double alpha = std::get<double>(default_of("LRN", "alpha"));
    EXPECT_EQ(alpha, static_cast<double>(1e-4f));
    EXPECT_NE(alpha, 1e-4);
    EXPECT_EQ(std::get<double>(default_of("LayerNorm", "eps")), static_cast<double>(1e-5f));
    EXPECT_EQ(std::get<double>(default_of("CondTake", "eps")), static_cast<double>(1e-06f));
    EXPECT_EQ(std::get<double>(default_of("LRN", "beta")), 0.75);
    EXPECT_EQ(std::get<double>(default_of("LRN", "k")), 2.0);
    // Float64 fields keep double precision.
    EXPECT_EQ(std::get<double>(default_of("BN", "epsilon")), 1e-4);
}

TEST(ParamDefs, DefaultTextIsKeptAsTheSchemaStatesIt) {
    const auto& lrn = param_table(table_id("LRN"));
    EXPECT_EQ(lrn.fields[find_field(lrn, "alpha")].default_text, "1e-4");
    const auto& pooling = param_table(table_id("Pooling"));
    EXPECT_EQ(pooling.fields[0].default_text, "MAX_");
    const auto& nms = param_table(table_id("NMSKeep"));
    EXPECT_EQ(nms.fields[0].default_text, "");  // "(implicit)" zero
}

TEST(ParamEnums, LookupByNameAndValue) {
    const EnumDesc* mode = find_enum("ElemwiseMode");
    ASSERT_NE(mode, nullptr);
    ASSERT_NE(find_enum_member(*mode, "ADD"), nullptr);
    EXPECT_EQ(find_enum_member(*mode, "ADD")->value, 16u);
    ASSERT_NE(find_enum_member(*mode, 18u), nullptr);
    EXPECT_EQ(find_enum_member(*mode, 18u)->name, "MAX_");
    EXPECT_EQ(find_enum_member(*mode, "MAX"), nullptr);
    EXPECT_EQ(find_enum_member(*mode, 86u), nullptr);
    EXPECT_EQ(find_enum_member(*mode, "SIGN")->value, 85u);
    EXPECT_EQ(find_enum("NoSuchEnum"), nullptr);
}

TEST(ParamEnums, OnlyExecutionPolicyStrategyIsBitFlagsAndItsMembersAreSingleBits) {
    for (const EnumDesc* e : param_enums()) {
        EXPECT_EQ(e->bit_flags, e->name == "ExecutionPolicyStrategy") << e->name;
        std::set<std::string_view> names;
        std::set<uint32_t> values;
        for (const EnumMember& m : e->members) {
            EXPECT_TRUE(names.insert(m.name).second) << e->name << "." << m.name;
            EXPECT_TRUE(values.insert(m.value).second) << e->name << "." << m.name;
            if (e->bit_flags) {
                EXPECT_EQ(std::popcount(m.value), 1) << m.name;
            }
        }
    }
    const EnumDesc* s = find_enum("ExecutionPolicyStrategy");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(find_enum_member(*s, "OPTIMIZED")->value, 8u);
}

TEST(ParamEnums, EveryEnumFieldPointsIntoTheEnumRegistry) {
    std::set<const EnumDesc*> known(param_enums().begin(), param_enums().end());
    for (const auto& t : param_tables())
        for (const auto& f : t.fields) {
            if (f.enum_type) {
                EXPECT_TRUE(known.count(f.enum_type)) << t.name << "." << f.name;
            }
        }
    // Enum aliases reuse their source type (spec §3.5).
    const auto& bias = param_table(find_param_table("ConvBias"));
    EXPECT_EQ(bias.fields[find_field(bias, "mode")].enum_type, find_enum("ConvolutionV0Mode"));
}

TEST(ParamEnums, TheDTypeEnumMatchesTheIrDTypeNames) {
    const EnumDesc* e = find_enum("DTypeEnum");
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->members.size(), static_cast<size_t>(kDTypeCount));
    for (const EnumMember& m : e->members) EXPECT_EQ(dtype_name(static_cast<DTypeEnum>(m.value)), m.name);
}

}  // namespace
}  // namespace mgedump::ir

namespace mgedump::test {
namespace {

// find_enum_member by value looks at members[value] first; that must give the
// same member as the first one in declaration order with that value.
TEST(ParamDefs, EnumLookupByValueFindsTheFirstMemberWithIt) {
    for (const ir::EnumDesc* e : ir::param_enums())
        for (const ir::EnumMember& m : e->members) {
            const ir::EnumMember* first = nullptr;
            for (const ir::EnumMember& c : e->members)
                if (c.value == m.value) {
                    first = &c;
                    break;
                }
            EXPECT_EQ(ir::find_enum_member(*e, m.value), first) << e->name << "." << m.name;
        }
}

}  // namespace
}  // namespace mgedump::test
