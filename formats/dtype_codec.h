// The dtype.fbs DType table (spec §3.1), shared by both file formats and by the
// TypeCvt param (OperatorParam union member 67).
#pragma once

#include <flatbuffers/flatbuffers.h>

#include "formats/fbb.h"

#include "ir/dtype.h"

namespace mgedump::formats {

// As MegEngine's hand-written helper builds it: null offset for an invalid dtype;
// otherwise a LinearQuantizationParam first (quantized types only; zero_point only for
// asymmetric ones), then the DType table with fields added type, param_type, param.
flatbuffers::Offset<void> encode_dtype(Fbb& fbb, const ir::DType& dtype);
// Reads an already verified DType table; null → DType::none(). Throws FormatError for
// a DTypeEnum value this build does not know.
ir::DType decode_dtype(const flatbuffers::Table* t);
// Verifier for a DType table and its quantization param; null passes (an absent dtype).
bool verify_dtype(flatbuffers::Verifier& v, const void* t);

}  // namespace mgedump::formats
