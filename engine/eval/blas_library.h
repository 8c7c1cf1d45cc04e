// OpenBLAS, loaded when the evaluator's first matrix product needs it (dlopen),
// not when mgedump starts: a dump never multiplies, and a linked OpenBLAS cost
// every run its 12,000 symbol bindings and its thread pool at load (a twentieth
// of `mgedump dump resnet50.onnx`). Debian's libopenblas0 provides it.
#pragma once

#include <cblas.h>

namespace mgedump::engine::eval {

struct BlasLibrary {
    decltype(&cblas_sgemm) sgemm = nullptr;
    decltype(&cblas_dgemm) dgemm = nullptr;
};

// The library, loaded and configured by the first call (once, whichever thread
// makes it: its kernels chosen for this CPU, its own threads off); later calls
// return it at once. Throws Error naming the library when it cannot be loaded.
const BlasLibrary& blas_library();

}  // namespace mgedump::engine::eval
