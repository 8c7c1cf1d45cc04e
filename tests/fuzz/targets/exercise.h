// What a real run does with a graph a reader accepted, for the fuzz targets:
// dump it into memory, so that crashes behind a successful parse (validation,
// inference, the compatibility rewrites, the writers) are found too, and dump
// it again as a graph nobody inferred, which must give the same bytes.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <span>
#include <optional>
#include <stdexcept>
#include <vector>

#include "engine/dump.h"
#include "engine/dump_options.h"
#include "ir/error.h"
#include "ir/graph.h"
#include "ir/infer.h"
#include "tests/never_inferred.h"

namespace mgedump::fuzz {

// The bytes of `g` dumped with `options`, or nothing when the dump refuses it
// (refusals, mgedump::Error, are expected answers).
inline std::optional<std::vector<std::byte>> dumped(const ir::Graph& g, const engine::DumpOptions& options) {
    try {
        return engine::dump_graph(g, options).bytes.to_bytes();
    } catch (const Error&) {
        return std::nullopt;
    }
}

// Whether inference gives back every shape and dtype g's var table records: a
// read file's MiddleTensor shape stays as the file says even where inference
// says otherwise (formats/model_reader.cpp), and that record is what a graph
// nobody inferred lacks.
inline bool inference_gives_back_the_table(const ir::Graph& g) {
    ir::InferState state;
    try {
        state = ir::infer_graph(g);
    } catch (const Error&) {
        return false;
    }
    for (uint32_t v = 0; v < g.vars.size(); ++v) {
        const std::span<const uint32_t> recorded = g.var_shape(ir::VarId(v));
        const std::span<const uint32_t> inferred = state.shapes[v].dims();
        if (!recorded.empty() && !std::equal(recorded.begin(), recorded.end(), inferred.begin(), inferred.end()))
            return false;
        if (g.vars.dtype[v].valid && state.dtypes[v].valid && !(g.vars.dtype[v] == state.dtypes[v])) return false;
    }
    return true;
}

// Dumps `g` with `options`, and, when inference gives back what its table
// records, the same graph as one nobody inferred (tests/never_inferred.h): the
// dump infers that itself, and must write the same bytes, or refuse both. A
// difference is a finding (the exception stops libFuzzer; the regression
// replay reports it).
inline void try_dump(const ir::Graph& g, const engine::DumpOptions& options) {
    const std::optional<std::vector<std::byte>> built = dumped(g, options);
    if (!inference_gives_back_the_table(g)) return;
    const std::optional<std::vector<std::byte>> never_inferred = dumped(test::as_never_inferred(g), options);
    if (built.has_value() != never_inferred.has_value())
        throw std::logic_error(built ? "the dump refuses the graph nobody inferred but writes it built"
                                     : "the dump writes the graph nobody inferred but refuses it built");
    if (built && *built != *never_inferred)
        throw std::logic_error("the dump of the graph nobody inferred writes other bytes than the graph built");
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
