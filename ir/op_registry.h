// The operator vocabulary: every operator mgedump knows, by name, with what
// validation and the passes need (arity, parameter tables, outputs, tensors).
// Wire identity (type ids, v2 type strings and versions) is derived from the
// registration tokens in formats/op_ids.h; nothing here knows about bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ir/ids.h"

namespace mgedump::ir {

// How an operator stores tensors of its own (MegEngine's TensorWriteMethod).
enum class OpTensors : uint8_t {
    None,            // no tensors
    Input,           // Host2DeviceCopy: one META_INPUT (or VALUE_INPUT) tensor
    Anonymous,       // ImmutableTensor: one VALUE_ANONYMOUS tensor with a value
    Shared,          // SharedDeviceTensor: one VALUE_SHARED tensor
    MultipleShared,  // MultipleDeviceTensorHolder: one VALUE_SHARED tensor per output
};

inline constexpr uint8_t kAnyCount = 255;

struct OpDef {
    // Name used by the builder and graph JSON: MegEngine's operator class name
    // without the "Forward" suffix ("Convolution", "Pooling", "Elemwise").
    std::string_view name;
    // MegEngine's typeinfo name, as reported in strip-info JSON ("ConvolutionForward").
    std::string_view typeinfo;
    // The v1 registration token hashed into FBS ids ("ConvolutionV2").
    std::string_view token;
    // Token of the version-2 FBS_V2 registration ("Convolution"), empty if the
    // operator has only a version-1 FBS_V2 entry.
    std::string_view token_v2;
    uint8_t min_inputs = 0;
    uint8_t max_inputs = 0;  // kAnyCount: no upper bound
    // Param tables written, in order: the first is `param`, the rest go to
    // `additional_params`. Names of ir::param_tables() entries.
    std::span<const std::string_view> params;
    // Numbered outputs; kAnyCount when the builder must say (Split, holders).
    uint8_t outputs = 1;
    OpTensors tensors = OpTensors::None;
    // Whether MegDNN adds a (volatile, never numbered) workspace output; it shows
    // up as a "Byte" dtype in strip-info JSON.
    bool workspace = false;
};

std::span<const OpDef> op_defs();
const OpDef& op_def(OpTypeId id);
// By name, typeinfo name, token or v2 token; invalid id when unknown.
OpTypeId find_op(std::string_view name_or_token);

}  // namespace mgedump::ir
