#include "engine/eval/blas_library.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "ir/error.h"

namespace mgedump::engine::eval {
namespace {

// The runtime library's soname first (libopenblas0), then the development link
// (libopenblas-dev) for a machine that has only that.
constexpr const char* kLibraryNames[] = {"libopenblas.so.0", "libopenblas.so"};

template <class F>
F symbol(void* handle, const char* name) {
    return reinterpret_cast<F>(dlsym(handle, name));
}

// A DYNAMIC_ARCH OpenBLAS (Debian's) picks its kernels by CPU model when it is
// loaded. 0.3.21 does not know newer Intel models (Sapphire Rapids, or a VM's
// generic "Intel Xeon Processor") and falls back to its SSE3 "Prescott" kernels,
// 3-4x slower than the AVX2 / AVX-512 ones the CPU runs. OPENBLAS_CORETYPE is
// the documented override, read when the kernels are chosen, so the selection is
// run again with it set. A user's OPENBLAS_CORETYPE is left alone; a build
// without DYNAMIC_ARCH (no such functions) keeps its own kernels.
void choose_kernels(void* handle) {
    auto corename = symbol<const char* (*)()>(handle, "openblas_get_corename");
    auto dynamic_init = symbol<void (*)()>(handle, "gotoblas_dynamic_init");
    auto dynamic_quit = symbol<void (*)()>(handle, "gotoblas_dynamic_quit");
    if (!corename || !dynamic_init || !dynamic_quit || std::getenv("OPENBLAS_CORETYPE")) return;
    const char* core = corename();
    if (!core || std::strcmp(core, "Prescott") != 0) return;
    const char* better = nullptr;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        better = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        better = "Haswell";
    if (!better) return;
    // Only on such a CPU, once: the one setenv mgedump makes.
    setenv("OPENBLAS_CORETYPE", better, 0);
    dynamic_quit();
    dynamic_init();
}

BlasLibrary load() {
    void* handle = nullptr;
    std::string errors;
    for (const char* name : kLibraryNames) {
        handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (handle) break;
        const char* why = dlerror();
        errors += fmt::format("{}{}", errors.empty() ? "" : "; ", why ? why : name);
    }
    if (!handle)
        throw Error(fmt::format("evaluator: cannot load OpenBLAS for its matrix products ({}); on Debian: "
                                "apt-get install libopenblas0",
                                errors));
    BlasLibrary lib;
    lib.sgemm = symbol<decltype(lib.sgemm)>(handle, "cblas_sgemm");
    lib.dgemm = symbol<decltype(lib.dgemm)>(handle, "cblas_dgemm");
    if (!lib.sgemm || !lib.dgemm)
        throw Error("evaluator: the OpenBLAS library loaded has no cblas_sgemm / cblas_dgemm");
    choose_kernels(handle);
    // OpenBLAS's own thread pool would fight the TBB arena for the cores: the
    // evaluator splits large products over TBB itself (engine/eval/gemm.h).
    if (auto set_threads = symbol<void (*)(int)>(handle, "openblas_set_num_threads")) set_threads(1);
    return lib;  // the handle stays open for the life of the process
}

}  // namespace

const BlasLibrary& blas_library() {
    // A failed load throws out of call_once, which lets the next call try again.
    static BlasLibrary library;
    static std::once_flag once;
    std::call_once(once, [] { library = load(); });
    return library;
}

}  // namespace mgedump::engine::eval
