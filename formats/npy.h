// NumPy .npy arrays (format versions 1.0, 2.0 and 3.0), read strictly: little-endian,
// C order, plain numeric dtypes only. Reading maps the file and returns a view of
// the data plus a keep-alive, so large weights referenced from graph JSON are never
// copied (ir::BlobStore::add_view).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/blobs.h"
#include "ir/dtype.h"

namespace mgedump::formats {

struct NpyHeader {
    std::string descr;             // e.g. "<f4", "|u1"
    std::vector<uint64_t> shape;
    bool fortran_order = false;
    uint64_t data_offset = 0;      // where the data starts in the file
};

// Parses magic, version and header dict of a whole .npy file image. Throws
// FormatError prefixed by `what` (usually the path).
NpyHeader parse_npy_header(ir::Bytes file, std::string_view what);

// The MegEngine dtype an array with this descr is when the JSON declares none
// ("<f4" → Float32); nullopt for descrs with no MegEngine counterpart ("<f8").
std::optional<ir::DTypeEnum> npy_default_dtype(std::string_view descr);
// The descr an array of `t` is stored as ("|i1" for QuantizedS8, "<u2" for the raw
// bits of BFloat16); nullopt for the sub-byte dtypes, which numpy cannot hold.
std::optional<std::string_view> npy_descr(ir::DTypeEnum t);

struct NpyArray {
    ir::DTypeEnum dtype = ir::DTypeEnum::Float32;
    std::vector<uint32_t> shape;
    ir::Bytes data;                          // points into the mapping
    std::shared_ptr<const void> keepalive;   // unmaps when the last holder goes
    ir::FileRegion region;                   // where `data` lies in the file
};

// Maps and checks `path`. With `dtype`, the file's descr must be the one that
// dtype is stored as; without, the descr's default dtype is used. Throws FormatError
// naming the path for a bad header, big-endian or Fortran data, an unsupported
// descr, a dtype mismatch, or a file shorter or longer than its header says, and
// LimitError for a shape of more than kMaxTensorElements (formats/tensor_limits.h).
NpyArray read_npy(const std::filesystem::path& path, std::optional<ir::DTypeEnum> dtype = std::nullopt);
// As read_npy(path, Int32), and a file of 64-bit integers ('<i8') is taken too,
// each element checked to fit in 32 bits and narrowed into an owned copy (no
// region): ONNX's INT64 tensors are held as Int32 (formats/onnx), and a model's
// index or token inputs are usually saved as int64. An element that does not
// fit is a FormatError naming the path, the element and its value.
NpyArray read_npy_narrowing_int64(const std::filesystem::path& path);

// A version 1.0 file image (2.0 if the header needs it), header padded to 64 bytes
// as numpy does. Throws FormatError for dtypes without a descr.
std::vector<std::byte> encode_npy(ir::DTypeEnum dtype, std::span<const uint32_t> shape, ir::Bytes data);

}  // namespace mgedump::formats
