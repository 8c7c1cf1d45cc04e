# Benchmarks (bench/): Google Benchmark suites (mgedump_bench), the comparison
# driver against the memcpy limit, a naive FlatBuffers dumper and ONNX protobuf
# (mgedump_compare), the batch scaling driver (mgedump_scaling), and the
# evaluator's forward time (mgedump_eval_bench; bench/eval_vs_torch.py runs it
# against PyTorch in the same run).
if(MGEDUMP_BUILD_BENCH)
  find_package(benchmark REQUIRED)

  file(GLOB MGEDUMP_BENCH_SUPPORT_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bench/support/*.cpp)
  add_library(mgedump_bench_support STATIC ${MGEDUMP_BENCH_SUPPORT_SRCS})
  target_compile_options(mgedump_bench_support PRIVATE ${MGEDUMP_WARNINGS})
  target_link_libraries(mgedump_bench_support PUBLIC mgedump_jobs)

  file(GLOB MGEDUMP_BENCH_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bench/suites/*.cpp)
  add_executable(mgedump_bench ${MGEDUMP_BENCH_SRCS})
  target_compile_options(mgedump_bench PRIVATE ${MGEDUMP_WARNINGS})
  target_link_libraries(mgedump_bench PRIVATE mgedump_bench_support benchmark::benchmark_main ${MGEDUMP_ALLOCATOR})

  file(GLOB MGEDUMP_COMPARE_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bench/compare/*.cpp)
  if(MGEDUMP_COMPARE_SRCS)
    add_executable(mgedump_compare ${MGEDUMP_COMPARE_SRCS})
    target_compile_options(mgedump_compare PRIVATE ${MGEDUMP_WARNINGS})
    # The ONNX row serializes the model's ModelProto with protobuf itself (the ONNX
    # classes mgedump_formats links, cmake/onnx.cmake).
    target_link_libraries(mgedump_compare PRIVATE mgedump_bench_support CLI11::CLI11 ${MGEDUMP_ALLOCATOR})
  endif()

  file(GLOB MGEDUMP_SCALING_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bench/scaling/*.cpp)
  if(MGEDUMP_SCALING_SRCS)
    add_executable(mgedump_scaling ${MGEDUMP_SCALING_SRCS})
    target_compile_options(mgedump_scaling PRIVATE ${MGEDUMP_WARNINGS})
    target_link_libraries(mgedump_scaling PRIVATE mgedump_bench_support ${MGEDUMP_ALLOCATOR})
  endif()

  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/bench/eval_bench.cpp)
    add_executable(mgedump_eval_bench ${CMAKE_CURRENT_SOURCE_DIR}/bench/eval_bench.cpp)
    target_compile_options(mgedump_eval_bench PRIVATE ${MGEDUMP_WARNINGS})
    # OpenBLAS directly too: the driver reports which of its kernels the GEMM runs.
    target_link_libraries(mgedump_eval_bench PRIVATE mgedump_bench_support CLI11::CLI11 PkgConfig::OPENBLAS
                          ${MGEDUMP_ALLOCATOR})
  endif()
endif()
