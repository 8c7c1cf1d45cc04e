// TfIdfVectorizer (opset 9) on integer tokens, as onnxruntime counts (its
// tfidfvectorizer.cc, whose outputs are ONNX's test data): every position of a row
// is a 1-gram (once, whatever the skips); an n-gram of n ≥ 2 starts at every
// position s and takes x[s], x[s + d], …, x[s + (n − 1)·d] for each distance
// d = 1 … max_skip_count + 1, each occurrence counted. Y[ngram_indexes[j]] counts
// pool n-gram j; the n-grams outside [min_gram_length, max_gram_length] count 0.
//
// Written out with static shapes: for each length n and distance d, the row's
// windows x[:, (k − 1)·d : (k − 1)·d + L] (k = 1 … n, L = C − (n − 1)·d; `Subtensor`)
// are compared with token k of every pool n-gram of that length at once
// (`ElemwiseMultiType EQ`, (N, L, 1) against (1, 1, P)), ANDed over k, `TypeCvt`
// to Float32 and summed over the positions (`Reduce SUM`); the sums of every
// length and distance, in pool order, times a constant 0/1 matrix that sends
// n-gram j to column ngram_indexes[j] (`MatrixMul`) give the counts: whole
// numbers, exact in Float32 while they stay below 2^24.
// mode TF is the counts; IDF the weight (1 without weights) where a count is
// positive; TFIDF count · weight. Refused: string pools (MegEngine has no string
// dtype), weights with ngram_indexes other than 0, 1, 2, … (onnxruntime indexes
// the weights by output column, ONNX's text by pool n-gram: they agree only
// then), pool tokens outside Int32 (MegEngine holds INT64 tokens as Int32).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// The pool n-grams of one length: their ids (pool order) and tokens, token k of
// every n-gram in tokens[k].
struct GramSet {
    int64_t n = 0;
    std::vector<int64_t> ids;
    std::vector<std::vector<int64_t>> tokens;
};

std::vector<GramSet> read_pool(Importer& c, int64_t min_n, int64_t max_n, int64_t& nr_ids) {
    const std::vector<int64_t> pool = c.attr_ints("pool_int64s");
    const std::vector<int64_t> counts = c.attr_ints("ngram_counts");
    if (pool.empty()) c.fail("pool_int64s is empty (pool_strings: MegEngine has no string dtype)");
    if (counts.empty()) c.fail("ngram_counts is empty");
    std::vector<GramSet> sets;
    nr_ids = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
        const int64_t n = static_cast<int64_t>(i) + 1;
        const int64_t begin = counts[i];
        const int64_t end = i + 1 < counts.size() ? counts[i + 1] : static_cast<int64_t>(pool.size());
        if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()))
            c.fail(fmt::format("ngram_counts[{}] = {} is outside pool_int64s' {} items", i, begin, pool.size()));
        if ((end - begin) % n != 0)
            c.fail(fmt::format("the {} items of {}-grams do not make whole {}-grams", end - begin, n, n));
        GramSet s{n, {}, std::vector<std::vector<int64_t>>(static_cast<size_t>(n))};
        for (int64_t at = begin; at < end; at += n, ++nr_ids) {
            s.ids.push_back(nr_ids);
            for (int64_t k = 0; k < n; ++k) {
                const int64_t t = pool[static_cast<size_t>(at + k)];
                if (t < INT32_MIN || t > INT32_MAX)
                    c.fail(fmt::format("pool token {} does not fit Int32, which holds the INT64 tokens", t));
                s.tokens[static_cast<size_t>(k)].push_back(t);
            }
        }
        if (n >= min_n && n <= max_n && !s.ids.empty()) sets.push_back(std::move(s));
    }
    return sets;
}

// Σ over positions of [every token k of the window equals the n-gram's token k],
// (N, P) for the P n-grams of `s` at distance d; nullopt when no window fits.
std::optional<ir::VarId> count_at(Importer& c, ir::VarId x, int64_t rows, int64_t cols, const GramSet& s,
                                  int64_t d) {
    const int64_t windows = cols - (s.n - 1) * d;
    if (windows <= 0) return std::nullopt;
    const int64_t grams = static_cast<int64_t>(s.ids.size());
    const std::vector<ir::IndexDescMaskItem> range{ir::IndexDescMaskItem{1, true, true, false, false}};
    std::optional<ir::VarId> all;
    for (int64_t k = 0; k < s.n; ++k) {
        const int64_t from = k * d;
        ir::VarId w = c.emit("Subtensor", {x, c.const_i32({from}), c.const_i32({from + windows})}, {{"items", range}});
        w = c.reshape(w, {rows, windows, 1});
        ir::VarId t = int32_tensor(c, s.tokens[static_cast<size_t>(k)], {1, 1, grams});
        ir::VarId hit = bool_elemwise(c, "EQ", {w, t});
        all = all ? elemwise(c, "AND", {*all, hit}) : hit;
    }
    ir::VarId n = type_cvt(c, *all, ir::DTypeEnum::Float32);
    return c.reshape(reduce_axes(c, n, "SUM", {1}), {rows, grams});
}

void tfidf_vectorizer(Importer& c) {
    c.check_attrs({"max_gram_length", "max_skip_count", "min_gram_length", "mode", "ngram_counts", "ngram_indexes",
                   "pool_int64s", "pool_strings", "weights"});
    if (c.has_attr("pool_strings")) c.fail("pool_strings: MegEngine has no string dtype");
    const Value& x = c.input(0);
    if (x.elem_type != P::INT32 && x.elem_type != P::INT64)
        c.fail(fmt::format("X is {}; integer tokens (INT32, INT64) only", onnx_elem_name(x.elem_type)));
    if (x.shape.empty() || x.shape.size() > 2)
        c.fail(fmt::format("X has rank {}; TfIdfVectorizer takes (C) or (N, C)", x.shape.size()));
    const int64_t rows = x.shape.size() == 2 ? x.shape[0] : 1, cols = x.shape.back();
    const int64_t min_n = c.attr_int("min_gram_length", 0), max_n = c.attr_int("max_gram_length", 0);
    const int64_t max_skip = c.attr_int("max_skip_count", 0);
    if (min_n < 1 || max_n < min_n || max_skip < 0)
        c.fail(fmt::format("min_gram_length {}, max_gram_length {}, max_skip_count {}: need 1 ≤ min ≤ max, skips ≥ 0",
                           min_n, max_n, max_skip));
    const std::string mode = c.attr_string("mode", "");
    if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
        c.fail(fmt::format("mode '{}' is not one of TF, IDF, TFIDF", mode));
    int64_t nr_ids = 0;
    const std::vector<GramSet> sets = read_pool(c, min_n, max_n, nr_ids);
    const std::vector<int64_t> out_index = c.attr_ints("ngram_indexes");
    if (static_cast<int64_t>(out_index.size()) != nr_ids)
        c.fail(fmt::format("ngram_indexes has {} entries for the pool's {} n-grams", out_index.size(), nr_ids));
    int64_t width = 0;
    for (int64_t o : out_index) {
        if (o < 0) c.fail(fmt::format("ngram_indexes holds {}; indexes are non-negative", o));
        width = std::max(width, o + 1);
    }
    std::vector<float> weights;
    if (const onnx::AttributeProto* a = c.attr("weights")) {
        weights.assign(a->floats().begin(), a->floats().end());
        if (weights.size() != out_index.size())
            c.fail(fmt::format("weights has {} entries for {} n-grams", weights.size(), out_index.size()));
        for (size_t j = 0; j < out_index.size(); ++j)
            if (out_index[j] != static_cast<int64_t>(j))
                c.fail("weights with ngram_indexes other than 0, 1, 2, …: onnxruntime indexes the weights by "
                       "output column, ONNX's definition by pool n-gram; they differ");
    }
    const Shape out = x.shape.size() == 2 ? Shape{rows, width} : Shape{width};
    ir::VarId tokens = c.var(0);
    if (x.shape.size() == 1) tokens = c.reshape(tokens, {1, cols});

    // The counts of every pool n-gram in range, in pool order, then the 0/1 matrix.
    std::vector<ir::VarId> parts;
    std::vector<int64_t> part_ids;
    for (const GramSet& s : sets) {
        std::optional<ir::VarId> sum;
        const int64_t last_distance = s.n == 1 ? 1 : max_skip + 1;
        for (int64_t d = 1; d <= last_distance; ++d)
            if (auto n = count_at(c, tokens, rows, cols, s, d)) sum = sum ? elemwise(c, "ADD", {*sum, *n}) : *n;
        if (!sum) continue;
        parts.push_back(*sum);
        part_ids.insert(part_ids.end(), s.ids.begin(), s.ids.end());
    }
    ir::VarId y;
    if (parts.empty()) {
        // No n-gram fits a row: every count is 0.
        y = broadcast_to(c, c.const_f32(0), {1}, {rows, width});
    } else {
        ir::VarId counts = concat(c, parts, 1);
        std::vector<float> route(part_ids.size() * static_cast<size_t>(width), 0.f);
        for (size_t j = 0; j < part_ids.size(); ++j)
            route[j * static_cast<size_t>(width) + static_cast<size_t>(out_index[static_cast<size_t>(part_ids[j])])] = 1;
        Value r = float_const(route, {static_cast<int64_t>(part_ids.size()), width});
        y = c.emit("MatrixMul", {counts, c.materialize(r, "ngram routes")});
    }
    if (mode != "TF") {
        Value weight_values = float_const(weights.empty() ? std::vector<float>{1.f} : weights,
                                          {1, weights.empty() ? 1 : width});
        ir::VarId w = c.materialize(weight_values, "idf weights");
        if (mode == "IDF") {
            ir::VarId seen = bool_elemwise(c, "LT", {c.const_f32(0), y});
            y = elemwise(c, "MUL", {type_cvt(c, seen, ir::DTypeEnum::Float32), w});
        } else if (!weights.empty()) {
            y = elemwise(c, "MUL", {y, w});
        }
    }
    if (x.shape.size() == 1) y = c.reshape(y, out);
    c.set_output_var(0, y, P::FLOAT, out);
}

constexpr OpHandler kHandlers[] = {
    {"TfIdfVectorizer", tfidf_vectorizer},
};

}  // namespace

std::span<const OpHandler> tfidf_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
