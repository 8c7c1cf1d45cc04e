# ONNX import (formats/onnx/*.cpp): Debian's libonnx-dev and libprotobuf-dev.
# onnx_proto carries ONNX_NAMESPACE=onnx and ONNX_ML=1 as interface definitions,
# so every target that sees formats/onnx/*.h agrees on the generated classes.
find_package(Protobuf REQUIRED)
find_package(ONNX CONFIG REQUIRED)
target_link_libraries(mgedump_formats PUBLIC onnx_proto protobuf::libprotobuf)

# The corpus check (tools/corpus_test.sh): real torchvision models exported to ONNX
# by tools/make_onnx_corpus.py, converted (onnx_corpus_check.cpp) and executed by the
# evaluator against PyTorch's outputs (onnx_corpus_eval_check.cpp). Not registered
# with ctest: it needs the generated corpus, which needs python3-torch, which the
# default suite must not.
file(GLOB MGEDUMP_CORPUS_TEST_SRCS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/corpus/*.cpp)
if(MGEDUMP_BUILD_TESTS AND MGEDUMP_CORPUS_TEST_SRCS)
  add_executable(mgedump_corpus_tests ${MGEDUMP_CORPUS_TEST_SRCS})
  target_compile_options(mgedump_corpus_tests PRIVATE ${MGEDUMP_WARNINGS})
  target_link_libraries(mgedump_corpus_tests PRIVATE mgedump_jobs GTest::gtest)
  target_compile_definitions(mgedump_corpus_tests PRIVATE MGEDUMP_SOURCE_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
endif()
