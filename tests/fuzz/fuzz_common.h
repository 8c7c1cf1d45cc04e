// Shared body of the reader fuzz targets.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "engine/dump.h"
#include "engine/redump.h"
#include "formats/model_reader.h"
#include "ir/error.h"

namespace mgedump::fuzz {

inline int read_and_redump(const std::vector<uint8_t>& file) {
    auto bytes = std::make_shared<std::vector<std::byte>>(file.size());
    if (!file.empty()) std::memcpy(bytes->data(), file.data(), file.size());
    std::vector<formats::LoadedModel> models;
    try {
        models = formats::read_models(ir::Bytes(*bytes), bytes);
    } catch (const FormatError&) {
        return 0;
    }
    // A file that loads must also dump again or be refused with one of our errors
    // (validation finds what a loader does not check, e.g. duplicate input names).
    for (const auto& m : models) {
        try {
            engine::dump_graph(m.graph, engine::redump_options(m));
        } catch (const Error&) {
        }
    }
    return 0;
}

}  // namespace mgedump::fuzz
