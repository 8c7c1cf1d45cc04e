// ir/opr_fields.h: reading back an operator's maker, type and param fields by
// name, as the dim bounds and the ONNX importer's indexing lowering do.
#include "ir/opr_fields.h"

#include <gtest/gtest.h>

#include "ir/builder.h"

namespace mgedump::ir {
namespace {

const DType kF32 = DType::of(DTypeEnum::Float32);

TEST(OprFields, TheMakerOfAVarAndItsTypeName) {
    GraphBuilder b;
    const VarId x = b.input("x", kF32, {2, 3});
    const VarId y = b.op("Elemwise", {x}, {{"mode", "RELU"}});
    b.output(y, "y");
    Graph g = b.finish();
    const OprId relu = maker_of(g, y);
    ASSERT_TRUE(relu.valid());
    EXPECT_EQ(type_name_of(g, relu), "Elemwise");
    EXPECT_EQ(g.inputs_of(relu)[0], x);
    EXPECT_EQ(type_name_of(g, maker_of(g, x)), "Host2DeviceCopy");

    // A file read back may record no owner, or one past the operators.
    g.vars.owner[y.value] = OprId();
    EXPECT_FALSE(maker_of(g, y).valid());
    g.vars.owner[y.value] = OprId(static_cast<uint32_t>(g.oprs.size()));
    EXPECT_FALSE(maker_of(g, y).valid());
}

TEST(OprFields, FieldsAreFoundByNameInEveryParamTableOfTheOperator) {
    GraphBuilder b;
    const VarId x = b.input("x", kF32, {1, 1, 8, 8});
    const VarId w = b.constant<float>({1, 1, 1, 1}, {1.0f});
    const VarId y = b.op("Convolution", {x, w}, {{"stride_h", 2}, {"ExecutionPolicy.strategy", "PROFILE"}});
    b.output(y, "y");
    const Graph g = b.finish();
    const OprId conv = maker_of(g, y);
    EXPECT_EQ(int_field_of(g, conv, "stride_h"), 2);
    EXPECT_EQ(int_field_of(g, conv, "stride_w"), 1);  // the default
    // "strategy" is in the second table, ExecutionPolicy (PROFILE = 2).
    EXPECT_EQ(int_field_of(g, conv, "strategy"), 2);
    EXPECT_EQ(enum_name_of(g, conv, "strategy"), "PROFILE");
    EXPECT_EQ(enum_name_of(g, conv, "stride_h"), "");  // not an enum field
    EXPECT_EQ(field_of(g, conv, "no_such_field"), nullptr);
    EXPECT_EQ(int_field_of(g, conv, "no_such_field"), std::nullopt);
    EXPECT_EQ(field_as<double>(g, conv, "stride_h"), nullptr);  // held as int64_t
}

TEST(OprFields, EnumNamesAreTheSchemasAndListsKeepTheirType) {
    GraphBuilder b;
    const VarId x = b.input("x", kF32, {4, 5});
    const VarId m = b.op("Reduce", {x}, {{"mode", "MAX"}, {"axis", 1}});
    const VarId first = b.constant<int32_t>({1}, {1});
    const IndexDescMaskItem from_first{0, true, false, false, false};
    const VarId s = b.op("Subtensor", {x, first}, {{"items", std::vector{from_first}}});
    b.output(m, "m");
    b.output(s, "s");
    const Graph g = b.finish();
    EXPECT_EQ(enum_name_of(g, maker_of(g, m), "mode"), "MAX_");
    EXPECT_EQ(int_field_of(g, maker_of(g, m), "axis"), 1);
    const auto* items = field_as<std::vector<IndexDescMaskItem>>(g, maker_of(g, s), "items");
    ASSERT_NE(items, nullptr);
    EXPECT_EQ(*items, std::vector{from_first});
    EXPECT_EQ(int_field_of(g, maker_of(g, s), "items"), std::nullopt);
}

}  // namespace
}  // namespace mgedump::ir
