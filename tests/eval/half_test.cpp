// Float16 and BFloat16 rounding as MegDNN's types round: half_float to nearest
// with ties away from zero (half.hpp, HALF_ROUND_TIES_TO_EVEN 0), bfloat16 to
// nearest even. Expected bit patterns are IEEE binary16 / bfloat16 encodings
// worked out by hand from the values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/eval/half.h"

namespace mgedump::engine::eval {
namespace {

TEST(Half, ExactValuesConvertBothWays) {
    EXPECT_EQ(float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half(65504.0f), 0x7bff);  // largest finite half
    EXPECT_EQ(float_to_half(0x1p-24f), 0x0001);  // smallest subnormal
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);
    EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
    EXPECT_EQ(half_to_float(0x7c00), std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
}

TEST(Half, TiesRoundAwayFromZeroAsMegDNNDoes) {
    // 1 + 2^-11 lies halfway between 1 (0x3c00) and 1 + 2^-10 (0x3c01); ties to
    // even would give 0x3c00.
    EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3c01);
    EXPECT_EQ(float_to_half(-(1.0f + 0x1p-11f)), 0xbc01);
    // Below the tie rounds down, above rounds up.
    EXPECT_EQ(float_to_half(1.0f + 0x1p-12f), 0x3c00);
    EXPECT_EQ(float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    // Halfway between 0 and the smallest subnormal rounds up to it.
    EXPECT_EQ(float_to_half(0x1p-25f), 0x0001);
    EXPECT_EQ(float_to_half(0x1p-26f), 0x0000);
    // 65520 lies halfway between 65504 and the next step (infinity).
    EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);
}

TEST(BFloat16, TiesRoundToEven) {
    EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
    EXPECT_EQ(float_to_bfloat16(1.0f + 0x1p-8f), 0x3f80);         // tie, 0x3f80 is even
    EXPECT_EQ(float_to_bfloat16(1.0f + 3 * 0x1p-8f), 0x3f82);     // tie, up to even
    EXPECT_EQ(float_to_bfloat16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
    EXPECT_EQ(bfloat16_to_float(0x3f81), 1.0f + 0x1p-7f);
    EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
}

}  // namespace
}  // namespace mgedump::engine::eval
