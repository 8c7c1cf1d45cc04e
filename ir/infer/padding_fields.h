// Padding's per-dim offset fields (param::Padding front_offset_dim0..6 and
// back_offset_dim0..6), by dim: the rule and the evaluator read them in a loop,
// and field names are literals (ir::FieldName).
#pragma once

#include "ir/infer/context.h"

namespace mgedump::ir::padding {

inline constexpr FieldName kFrontOffset[kMaxNdim] = {"front_offset_dim0", "front_offset_dim1", "front_offset_dim2",
                                                     "front_offset_dim3", "front_offset_dim4", "front_offset_dim5",
                                                     "front_offset_dim6"};
inline constexpr FieldName kBackOffset[kMaxNdim] = {"back_offset_dim0", "back_offset_dim1", "back_offset_dim2",
                                                    "back_offset_dim3", "back_offset_dim4", "back_offset_dim5",
                                                    "back_offset_dim6"};

}  // namespace mgedump::ir::padding
