// numpy dtypes and arrays ↔ MegEngine dtypes and tensor bytes.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ir/blobs.h"
#include "ir/dtype.h"

namespace mgedump::python {

// A dtype argument: a numpy dtype or anything np.dtype() takes ("float32", np.int8),
// a MegEngine dtype name ("Float32"), or for quantized dtypes a dict as graph JSON
// spells them ({"dtype": "Quantized8Asymm", "scale": 0.1, "zero_point": 128}).
// Throws ValueError naming `what`.
ir::DType dtype_from_py(pybind11::handle value, std::string_view what);
// The numpy dtype of a MegEngine dtype; else its name, or the dict form for quantized dtypes.
pybind11::object dtype_to_py(const ir::DType& d);

// A tensor value from Python: C-contiguous numpy arrays (and other buffers) of a
// MegEngine dtype are viewed in place and kept alive, never copied. Anything else
// is converted as MegEngine converts it: float64 → float32, int64 → int32, Python
// scalars and lists through numpy, non-contiguous arrays made contiguous. With
// `dtype`, plain values are converted to it; quantized ones must already be their
// storage integers (int8 for QuantizedS8, uint8 for Quantized8Asymm, ...). A
// conversion never changes a value beyond rounding: an integer that does not fit,
// a fraction into an integer type or a float overflowing to inf is a ValueError.
struct TensorValue {
    ir::DType dtype;
    std::vector<uint32_t> shape;
    ir::Bytes bytes;
    std::shared_ptr<const void> keepalive;
};
TensorValue tensor_value_from_py(pybind11::handle value, std::string_view what,
                                 const std::optional<ir::DType>& dtype = std::nullopt);

// A read-only numpy view of tensor bytes that keeps `owner` alive (raw uint8 for
// dtypes numpy lacks).
pybind11::array tensor_value_to_py(const ir::DType& d, std::span<const uint32_t> shape, ir::Bytes bytes,
                                   const std::shared_ptr<const void>& owner);

// A shape argument: an iterable of non-negative ints below 2^32.
std::vector<uint32_t> shape_from_py(pybind11::handle value, std::string_view what);

}  // namespace mgedump::python
