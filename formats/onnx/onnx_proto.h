// ONNX's message classes (onnx::ModelProto and the rest), generated at build time
// from the onnx.proto of Debian's libonnx-dev for protobuf-lite (cmake/onnx.cmake).
// Include this, never <onnx/onnx_pb.h>: Debian's own generated classes have the
// same names and need full protobuf, whose loading was a third of the time
// `mgedump dump` spent starting up.
#pragma once

#include <mgedump_onnx/onnx.pb.h>
