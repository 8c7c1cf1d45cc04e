#include "tools/cli/input_kind.h"

#include <array>
#include <filesystem>
#include <fstream>

#include "formats/model_reader.h"
#include "ir/error.h"

namespace mgedump::cli {

InputKind input_kind(const std::string& path) {
    const std::filesystem::path p(path);
    if (p.extension() == ".onnx") return InputKind::Onnx;
    std::array<char, 16> head{};
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), head.size());
    try {
        formats::detect_format(ir::Bytes(reinterpret_cast<const std::byte*>(head.data()), size_t(in.gcount())));
        return InputKind::Mge;
    } catch (const FormatError&) {
        // A damaged model is still a model: the model reader's error says more.
        return p.extension() == ".mge" ? InputKind::Mge : InputKind::GraphJson;
    }
}

std::string_view input_kind_name(InputKind k) {
    switch (k) {
        case InputKind::Mge: return ".mge";
        case InputKind::GraphJson: return "graph JSON";
        case InputKind::Onnx: return "ONNX";
    }
    return "?";
}

}  // namespace mgedump::cli
