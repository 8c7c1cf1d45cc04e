#include <gtest/gtest.h>

#include "ir/dtype.h"

namespace mgedump::ir {
namespace {

TEST(DType, EveryWireDTypeHasANameThatMapsBack) {
    for (int i = 0; i < kDTypeCount; ++i) {
        auto t = static_cast<DTypeEnum>(i);
        auto back = dtype_from_name(dtype_name(t));
        ASSERT_TRUE(back.has_value()) << i;
        EXPECT_EQ(*back, t);
    }
    EXPECT_FALSE(dtype_from_name("Float64").has_value());
}

TEST(DType, WireValuesFollowDtypeFbsNumbering) {
    // spec §3.1: the append-only enum of dtype.fbs.
    EXPECT_EQ(dtype_name(static_cast<DTypeEnum>(0)), "Float32");
    EXPECT_EQ(dtype_name(static_cast<DTypeEnum>(8)), "Byte");
    EXPECT_EQ(dtype_name(static_cast<DTypeEnum>(11)), "Quantized8Asymm");
    EXPECT_EQ(dtype_name(static_cast<DTypeEnum>(18)), "Bool");
    EXPECT_EQ(dtype_name(static_cast<DTypeEnum>(21)), "Complex64");
}

TEST(DType, StorageSizesCoverWholeAndSubByteTypes) {
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::Float32, 3), 12u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::Float16, 3), 6u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::BFloat16, 5), 10u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::Int16, 2), 4u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::Uint16, 2), 4u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::QuantizedS32, 2), 8u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::Complex64, 2), 16u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::Bool, 7), 7u);
    // Sub-byte dtypes are packed and round up to whole bytes.
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::IntB1, 9), 2u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::IntB2, 5), 2u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::IntB4, 3), 2u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::Quantized4Asymm, 4), 2u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::QuantizedS1, 8), 1u);
    EXPECT_EQ(dtype_storage_bytes(DTypeEnum::QuantizedS4, 0), 0u);
}

TEST(DType, QuantizedTypesKnowWhetherTheyHaveAZeroPoint) {
    EXPECT_TRUE(dtype_is_quantized(DTypeEnum::QuantizedS8));
    EXPECT_FALSE(dtype_is_asymmetric(DTypeEnum::QuantizedS8));
    EXPECT_TRUE(dtype_is_asymmetric(DTypeEnum::Quantized8Asymm));
    EXPECT_TRUE(dtype_is_asymmetric(DTypeEnum::Quantized4Asymm));
    EXPECT_FALSE(dtype_is_quantized(DTypeEnum::Uint8));
    int quantized = 0;
    for (int i = 0; i < kDTypeCount; ++i) quantized += dtype_is_quantized(static_cast<DTypeEnum>(i));
    EXPECT_EQ(quantized, 7);  // S1, S4, S8, S16, S32, 4Asymm, 8Asymm
}

}  // namespace
}  // namespace mgedump::ir
