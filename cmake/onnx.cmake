# ONNX import (formats/onnx/*.cpp): ONNX's message classes, generated here from the
# onnx.proto of Debian's libonnx-dev for protobuf-lite (libprotobuf-dev,
# protobuf-compiler). Debian's own libonnx_proto is built for full protobuf: linking
# it loaded libprotobuf (3.3 MB, 6,200 relocations), libz and the descriptor
# registration of every ONNX message at every start of `mgedump`, for reflection
# the importer never uses (#17: a start was a third of the gap to `cp`).
# Everything that includes formats/onnx/onnx_proto.h sees these classes; nothing
# may also link Debian's onnx_proto (the same class names).
find_package(Protobuf REQUIRED)
find_path(MGEDUMP_ONNX_PROTO_DIR onnx/onnx.proto PATHS /usr/include
          DOC "directory holding onnx/onnx.proto (Debian: libonnx-dev)")
if(NOT MGEDUMP_ONNX_PROTO_DIR)
  message(FATAL_ERROR "onnx/onnx.proto not found (Debian: apt-get install libonnx-dev; tools/setup.sh does)")
endif()
if(NOT Protobuf_PROTOC_EXECUTABLE)
  message(FATAL_ERROR "protoc not found (Debian: apt-get install protobuf-compiler; tools/setup.sh does)")
endif()
# A copy under a name of our own (mgedump_onnx/onnx.proto → mgedump_onnx/onnx.pb.h),
# so that no include of Debian's onnx/*.pb.h can reach these classes by accident. The
# package stays `onnx`: the classes are onnx::ModelProto and the rest, the wire the same.
set(MGEDUMP_ONNX_GEN_DIR ${CMAKE_BINARY_DIR}/generated)
file(READ ${MGEDUMP_ONNX_PROTO_DIR}/onnx/onnx.proto mgedump_onnx_proto_text)
if(NOT mgedump_onnx_proto_text MATCHES "\noption optimize_for = LITE_RUNTIME;")
  string(APPEND mgedump_onnx_proto_text "\noption optimize_for = LITE_RUNTIME;\n")
endif()
file(CONFIGURE OUTPUT ${MGEDUMP_ONNX_GEN_DIR}/mgedump_onnx/onnx.proto CONTENT "${mgedump_onnx_proto_text}" @ONLY)
add_custom_command(
  OUTPUT ${MGEDUMP_ONNX_GEN_DIR}/mgedump_onnx/onnx.pb.cc ${MGEDUMP_ONNX_GEN_DIR}/mgedump_onnx/onnx.pb.h
  COMMAND ${Protobuf_PROTOC_EXECUTABLE} -I${MGEDUMP_ONNX_GEN_DIR} --cpp_out=${MGEDUMP_ONNX_GEN_DIR}
          ${MGEDUMP_ONNX_GEN_DIR}/mgedump_onnx/onnx.proto
  DEPENDS ${MGEDUMP_ONNX_GEN_DIR}/mgedump_onnx/onnx.proto
  COMMENT "protoc (lite): ONNX's messages")
add_library(mgedump_onnx_proto STATIC ${MGEDUMP_ONNX_GEN_DIR}/mgedump_onnx/onnx.pb.cc)
# Generated code: included as a system header so that our warning flags stay off it.
target_include_directories(mgedump_onnx_proto SYSTEM PUBLIC $<BUILD_INTERFACE:${MGEDUMP_ONNX_GEN_DIR}>)
target_link_libraries(mgedump_onnx_proto PUBLIC protobuf::libprotobuf-lite)
target_link_libraries(mgedump_formats PUBLIC mgedump_onnx_proto)

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
