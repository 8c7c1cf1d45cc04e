// What a real run does with a graph a reader accepted, for the fuzz targets:
// dump it into memory, so that crashes behind a successful parse (validation,
// inference, the compatibility rewrites, the writers) are found too.
#pragma once

#include <initializer_list>

#include "engine/dump.h"
#include "engine/dump_options.h"
#include "ir/error.h"
#include "ir/graph.h"

namespace mgedump::fuzz {

// Dumps `g` with `options`; refusals (mgedump::Error) are expected answers.
inline void try_dump(const ir::Graph& g, const engine::DumpOptions& options) {
    try {
        (void)engine::dump_graph(g, options);
    } catch (const Error&) {
    }
}

// `mgedump dump`'s defaults (FBS_V2) and `batch`'s (FBS): both writers and their rewrites.
inline void try_dump_both_formats(const ir::Graph& g) {
    for (engine::DumpFormat f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpOptions options;
        options.dump_format = f;
        try_dump(g, options);
    }
}

}  // namespace mgedump::fuzz
