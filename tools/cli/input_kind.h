// What a file given to the CLI is: a .mge model (either format, known by its
// magic), an ONNX model (no magic: known by its .onnx name) or graph JSON
// (everything else). dump reads graph JSON and ONNX; inspect, convert and verify
// read all three.
#pragma once

#include <string>
#include <string_view>

namespace mgedump::cli {

enum class InputKind { Mge, GraphJson, Onnx };

// Reads at most the first 16 bytes. A file that cannot be read is classified by
// its name; the reader's error then says why.
InputKind input_kind(const std::string& path);
std::string_view input_kind_name(InputKind k);  // "graph JSON", "ONNX", ".mge"

}  // namespace mgedump::cli
