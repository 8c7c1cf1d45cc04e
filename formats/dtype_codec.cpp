#include "formats/dtype_codec.h"

#include <fmt/format.h>

#include "ir/error.h"

namespace mgedump::formats {
namespace {

// dtype.fbs slots (vtable offsets = 4 + 2 * slot).
constexpr flatbuffers::voffset_t kTypeSlot = 4;
constexpr flatbuffers::voffset_t kParamTypeSlot = 6;
constexpr flatbuffers::voffset_t kParamSlot = 8;
constexpr flatbuffers::voffset_t kScaleSlot = 4;
constexpr flatbuffers::voffset_t kZeroPointSlot = 6;
// DTypeParam union members.
constexpr uint8_t kParamNone = 0;
constexpr uint8_t kParamLinearQuantization = 1;

bool known_dtype(int8_t v) { return v >= 0 && v < ir::kDTypeCount; }

}  // namespace

flatbuffers::Offset<void> encode_dtype(Fbb& fbb, const ir::DType& dtype) {
    if (!dtype.valid) return {};
    const auto type = static_cast<int8_t>(dtype.type);
    if (!known_dtype(type)) throw Error(fmt::format("cannot write unknown DTypeEnum value {}", type));

    flatbuffers::Offset<void> param;
    uint8_t param_type = kParamNone;
    if (ir::dtype_is_quantized(dtype.type)) {
        // Generated CreateLinearQuantizationParam order: scale (4 bytes) before zero_point (1 byte).
        const uint8_t zero_point = ir::dtype_is_asymmetric(dtype.type) ? dtype.zero_point : 0;
        auto start = fbb.StartTable();
        fbb.AddElement<float>(kScaleSlot, dtype.scale, 0.0f);
        fbb.AddElement<uint8_t>(kZeroPointSlot, zero_point, 0);
        param = flatbuffers::Offset<void>(fbb.EndTable(start));
        param_type = kParamLinearQuantization;
    }
    // MegEngine builds this table by hand, so this is its order, not flatc's size order.
    auto start = fbb.StartTable();
    fbb.AddElement<int8_t>(kTypeSlot, type, 0);
    fbb.AddElement<uint8_t>(kParamTypeSlot, param_type, kParamNone);
    fbb.AddOffset(kParamSlot, param);
    return flatbuffers::Offset<void>(fbb.EndTable(start));
}

ir::DType decode_dtype(const flatbuffers::Table* t) {
    if (!t) return ir::DType::none();
    const auto type = t->GetField<int8_t>(kTypeSlot, 0);
    if (!known_dtype(type))
        throw FormatError(fmt::format("DType table has unknown DTypeEnum value {}", type));
    ir::DType out = ir::DType::of(static_cast<ir::DTypeEnum>(type));
    if (!ir::dtype_is_quantized(out.type)) return out;
    const auto* param = t->GetPointer<const flatbuffers::Table*>(kParamSlot);
    if (param && t->GetField<uint8_t>(kParamTypeSlot, kParamNone) == kParamLinearQuantization) {
        out.scale = param->GetField<float>(kScaleSlot, 0.0f);
        if (ir::dtype_is_asymmetric(out.type)) out.zero_point = param->GetField<uint8_t>(kZeroPointSlot, 0);
    }
    return out;
}

bool verify_dtype(flatbuffers::Verifier& v, const void* t) {
    if (!t) return true;
    const auto* table = static_cast<const flatbuffers::Table*>(t);
    if (!table->VerifyTableStart(v) || !table->VerifyField<int8_t>(v, kTypeSlot, 1) ||
        !table->VerifyField<uint8_t>(v, kParamTypeSlot, 1) || !table->VerifyOffset(v, kParamSlot))
        return false;
    // Like generated union verifiers, an unknown DTypeParam member is accepted unread.
    if (table->GetField<uint8_t>(kParamTypeSlot, kParamNone) == kParamLinearQuantization) {
        const auto* param = table->GetPointer<const flatbuffers::Table*>(kParamSlot);
        if (param && (!param->VerifyTableStart(v) || !param->VerifyField<float>(v, kScaleSlot, 4) ||
                      !param->VerifyField<uint8_t>(v, kZeroPointSlot, 1) || !v.EndTable()))
            return false;
    }
    return v.EndTable();
}

}  // namespace mgedump::formats
