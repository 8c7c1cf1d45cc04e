// The 3-D convolution params as MegDNN reads them (param::Convolution3D): the
// rule (ir/infer/rules_conv.cpp) and the evaluator's kernel read them here, with
// MegEngine's refusals of a zero stride or dilation.
#pragma once

#include <cstdint>

#include "ir/infer/context.h"

namespace mgedump::ir::conv {

struct Conv3d {
    uint32_t pad[3], stride[3], dil[3];  // by axis: d, h, w
    bool group, ndhwc, io16;
};

inline Conv3d read_conv3d(const InferContext& ctx) {
    static constexpr const char* kAxes[3] = {"d", "h", "w"};
    static constexpr FieldName kPads[3] = {"pad_d", "pad_h", "pad_w"};
    static constexpr FieldName kStrides[3] = {"stride_d", "stride_h", "stride_w"};
    static constexpr FieldName kDilates[3] = {"dilate_d", "dilate_h", "dilate_w"};
    Conv3d p{};
    for (int i = 0; i < 3; ++i) {
        p.pad[i] = static_cast<uint32_t>(ctx.int_field(kPads[i]));
        p.stride[i] = static_cast<uint32_t>(ctx.int_field(kStrides[i]));
        p.dil[i] = static_cast<uint32_t>(ctx.int_field(kDilates[i]));
        if (p.stride[i] == 0) ctx.fail("stride_{} is 0: a stride of 0 is refused", kAxes[i]);
        if (p.dil[i] == 0) ctx.fail("dilate_{} is 0: dilation must be positive", kAxes[i]);
    }
    p.group = ctx.enum_field("sparse") == "GROUP";
    p.ndhwc = ctx.enum_field("format") == "NDHWC";
    p.io16 = ctx.enum_field("data_type") == "FLOAT_IO16xC32";
    return p;
}

}  // namespace mgedump::ir::conv
