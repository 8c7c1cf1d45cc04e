// Float16 (IEEE binary16) and BFloat16 as their bits, to and from float: the
// graph JSON's element values and the ONNX importer's FLOAT16 / BFLOAT16
// constants. float to half or bfloat16 rounds to nearest even, as numpy's
// astype does (MegDNN's own half rounds ties away: engine/eval/half.h).
#pragma once

#include <cstdint>

namespace mgedump::formats {

uint16_t float_to_half(float f);
float half_to_float(uint16_t h);  // exact
uint16_t float_to_bfloat16(float f);
float bfloat16_to_float(uint16_t b);  // exact

}  // namespace mgedump::formats
