// Einsum (opset 12+) as MegEngine operators, operand by operand:
//   - a label repeated within one operand is its diagonal: the two axes moved last
//     (Dimshuffle) and indexed by 0..n−1 both (IndexingMultiAxisVec), x[.., k, k] → [.., k];
//   - a label no other operand and not the output has is summed (Reduce SUM);
//   - two operands combine as one product: A laid out (batch, left, contracted),
//     B (batch, contracted, right), each Reshape'd to 3-D (2-D without batch
//     labels), BatchedMatrixMul / MatrixMul, Reshape to (batch.., left.., right..):
//     a contraction, an inner product (no left or right labels) and an outer
//     product (no contracted label: one product per element) alike;
//   - more operands fold left to right, keeping the labels later ones or the
//     output need;
//   - the result is summed over what the output lacks and put in the output's
//     order (Dimshuffle).
// Ellipsis ("...") dims are labels of their own, aligned from the right; operands
// whose ellipsis (or any label's) sizes differ, which numpy would broadcast, are
// refused, as are malformed equations, naming the equation.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

// A letter is its ASCII code; the p-th ellipsis dim counted from the right is kEllipsis + p.
constexpr int kEllipsis = 1000;
using Labels = std::vector<int>;

struct Operand {
    Labels labels;
    Shape shape;
    ir::VarId var;
};

struct Equation {
    std::vector<Labels> inputs;
    Labels output;
};

std::string strip_spaces(std::string s) {
    s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char ch) { return std::isspace(ch); }), s.end());
    return s;
}

// One term's labels for an operand of rank `rank` (-1: the output, whose
// ellipsis has `ellipsis_rank` dims).
Labels parse_term(Importer& c, const std::string& eq, std::string_view term, int64_t rank, int64_t ellipsis_rank) {
    const size_t dots = term.find("...");
    int64_t letters = 0;
    for (char ch : term) letters += std::isalpha(static_cast<unsigned char>(ch)) ? 1 : 0;
    const size_t expected = dots == std::string_view::npos ? term.size() : term.size() - 3;
    if (static_cast<size_t>(letters) != expected || (dots != std::string_view::npos && term.find("...", dots + 3) != std::string_view::npos))
        c.fail(fmt::format("equation '{}': term '{}' is not letters with at most one '...'", eq, term));
    const int64_t e = dots == std::string_view::npos ? 0 : (rank < 0 ? ellipsis_rank : rank - letters);
    if (rank >= 0 && (e < 0 || (dots == std::string_view::npos && letters != rank)))
        c.fail(fmt::format("equation '{}': term '{}' does not match an operand of rank {}", eq, term, rank));
    Labels out;
    for (size_t k = 0; k < term.size();) {
        if (k == dots) {
            for (int64_t p = e - 1; p >= 0; --p) out.push_back(kEllipsis + static_cast<int>(p));
            k += 3;
        } else {
            out.push_back(static_cast<unsigned char>(term[k++]));
        }
    }
    return out;
}

Equation parse(Importer& c, const std::string& eq) {
    const std::string s = strip_spaces(eq);
    const size_t arrow = s.find("->");
    const std::string lhs = s.substr(0, arrow);
    Equation out;
    int64_t max_ellipsis = 0;
    size_t begin = 0, k = 0;
    for (;; ++k) {
        const size_t comma = lhs.find(',', begin);
        const std::string_view term = std::string_view(lhs).substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
        if (k >= c.input_count())
            c.fail(fmt::format("equation '{}' has more terms than the node's {} inputs", eq, c.input_count()));
        const int64_t rank = static_cast<int64_t>(c.input(k).shape.size());
        out.inputs.push_back(parse_term(c, eq, term, rank, 0));
        if (term.find("...") != std::string_view::npos)
            max_ellipsis = std::max<int64_t>(max_ellipsis, rank - static_cast<int64_t>(term.size() - 3));
        if (comma == std::string::npos) break;
        begin = comma + 1;
    }
    if (k + 1 != c.input_count())
        c.fail(fmt::format("equation '{}' has {} input terms, the node {} inputs", eq, k + 1, c.input_count()));
    if (arrow != std::string::npos) {
        const std::string_view term = std::string_view(s).substr(arrow + 2);
        if (max_ellipsis > 0 && term.find("...") == std::string_view::npos)
            c.fail(fmt::format("equation '{}': the inputs' '...' dims are not in the output", eq));
        out.output = parse_term(c, eq, term, -1, max_ellipsis);
        std::set<int> seen;
        for (int l : out.output) {
            if (!seen.insert(l).second)
                c.fail(fmt::format("equation '{}': the output repeats a label", eq));
            bool found = false;
            for (const Labels& in : out.inputs) found = found || std::count(in.begin(), in.end(), l) > 0;
            if (!found) c.fail(fmt::format("equation '{}': an output label is in no input", eq));
        }
    } else {
        // Implicit output: the ellipsis dims, then the letters that occur once, sorted.
        for (int64_t p = max_ellipsis - 1; p >= 0; --p) out.output.push_back(kEllipsis + static_cast<int>(p));
        std::map<int, int> count;
        for (const Labels& in : out.inputs)
            for (int l : in)
                if (l < kEllipsis) ++count[l];
        for (auto [l, n] : count)
            if (n == 1) out.output.push_back(l);
    }
    return out;
}

ir::VarId dimshuffle(Importer& c, ir::VarId v, const std::vector<int32_t>& pattern) {
    bool identity = true;
    for (size_t k = 0; k < pattern.size(); ++k) identity = identity && pattern[k] == static_cast<int32_t>(k);
    return identity ? v : c.emit("Dimshuffle", {v}, {{"pattern", pattern}});
}

ir::VarId reshape_if(Importer& c, ir::VarId v, const Shape& from, const Shape& to) {
    const Shape t = to.empty() ? Shape{1} : to, f = from.empty() ? Shape{1} : from;
    return f == t ? v : c.reshape(v, t);
}

// `x` with its axes in the order of `want` (a permutation of its labels).
void permute(Importer& c, Operand& x, const Labels& want) {
    std::vector<int32_t> pattern;
    Shape shape;
    for (int l : want) {
        const auto at = std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin();
        pattern.push_back(static_cast<int32_t>(at));
        shape.push_back(x.shape[static_cast<size_t>(at)]);
    }
    x.var = dimshuffle(c, x.var, pattern);
    x.labels = want;
    x.shape = shape;
}

// x[.., k, .., k, ..] for every label that occurs twice: the two axes moved last
// and indexed by 0..n−1 both; the label stays once, as the last axis.
void take_diagonals(Importer& c, const std::string& eq, Operand& x) {
    for (;;) {
        size_t a = 0, b = 0;
        for (a = 0; a < x.labels.size(); ++a) {
            auto it = std::find(x.labels.begin() + static_cast<std::ptrdiff_t>(a) + 1, x.labels.end(), x.labels[a]);
            if (it != x.labels.end()) {
                b = static_cast<size_t>(it - x.labels.begin());
                break;
            }
        }
        if (a == x.labels.size()) return;
        const int64_t n = x.shape[a];
        if (x.shape[b] != n)
            c.fail(fmt::format("equation '{}': the repeated label's axes have sizes {} and {}", eq, n, x.shape[b]));
        std::vector<int32_t> pattern;
        Labels labels;
        Shape shape;
        for (size_t k = 0; k < x.labels.size(); ++k)
            if (k != a && k != b) {
                pattern.push_back(static_cast<int32_t>(k));
                labels.push_back(x.labels[k]);
                shape.push_back(x.shape[k]);
            }
        pattern.push_back(static_cast<int32_t>(a));
        pattern.push_back(static_cast<int32_t>(b));
        ir::VarId moved = dimshuffle(c, x.var, pattern);
        std::vector<std::byte> bytes(static_cast<size_t>(n) * 4);
        for (int64_t k = 0; k < n; ++k) {
            const auto v = static_cast<int32_t>(k);
            std::memcpy(bytes.data() + 4 * k, &v, 4);
        }
        const ir::VarId index = c.const_var(ir::DTypeEnum::Int32, {n}, std::move(bytes));
        const auto r = static_cast<int8_t>(x.labels.size());
        std::vector<ir::IndexDescMaskItem> items{{static_cast<int8_t>(r - 2), false, false, false, true},
                                                 {static_cast<int8_t>(r - 1), false, false, false, true}};
        x.var = c.emit("IndexingMultiAxisVec", {moved, index, index}, {{"items", items}});
        labels.push_back(x.labels[a]);
        shape.push_back(n);
        x.labels = labels;
        x.shape = shape;
    }
}

// `x` summed over the labels `keep` does not hold.
void sum_out(Importer& c, Operand& x, const std::set<int>& keep) {
    std::vector<int64_t> axes;
    Labels labels;
    Shape shape;
    for (size_t k = 0; k < x.labels.size(); ++k) {
        if (keep.count(x.labels[k])) {
            labels.push_back(x.labels[k]);
            shape.push_back(x.shape[k]);
        } else {
            axes.push_back(static_cast<int64_t>(k));
        }
    }
    if (axes.empty()) return;
    Shape kept = x.shape;
    for (int64_t a : axes) kept[static_cast<size_t>(a)] = 1;
    x.var = reshape_if(c, reduce_axes(c, x.var, "SUM", axes), kept, shape);
    x.labels = labels;
    x.shape = shape;
}

int64_t size_of(const Operand& x, int label) {
    return x.shape[static_cast<size_t>(std::find(x.labels.begin(), x.labels.end(), label) - x.labels.begin())];
}

// A·B contracted over their shared labels `needed` does not hold.
Operand contract(Importer& c, const std::string& eq, Operand a, Operand b, const std::set<int>& needed) {
    Labels batch, left, contracted, right;
    for (int l : a.labels) {
        const bool in_b = std::count(b.labels.begin(), b.labels.end(), l) > 0;
        if (in_b && size_of(a, l) != size_of(b, l))
            c.fail(fmt::format("equation '{}': a label has size {} in one operand and {} in another (broadcasting "
                               "is not supported)",
                               eq, size_of(a, l), size_of(b, l)));
        (in_b ? (needed.count(l) ? batch : contracted) : left).push_back(l);
    }
    for (int l : b.labels)
        if (!std::count(a.labels.begin(), a.labels.end(), l)) right.push_back(l);
    auto product = [&](const Operand& x, const Labels& ls) {
        int64_t p = 1;
        for (int l : ls) p *= size_of(x, l);
        return p;
    };
    const int64_t nb = product(a, batch), nl = product(a, left), nk = product(a, contracted), nr = product(b, right);
    Labels a_order = batch, b_order = batch;
    a_order.insert(a_order.end(), left.begin(), left.end());
    a_order.insert(a_order.end(), contracted.begin(), contracted.end());
    b_order.insert(b_order.end(), contracted.begin(), contracted.end());
    b_order.insert(b_order.end(), right.begin(), right.end());
    permute(c, a, a_order);
    permute(c, b, b_order);
    Operand out;
    out.labels = batch;
    out.labels.insert(out.labels.end(), left.begin(), left.end());
    out.labels.insert(out.labels.end(), right.begin(), right.end());
    for (int l : batch) out.shape.push_back(size_of(a, l));
    for (int l : left) out.shape.push_back(size_of(a, l));
    for (int l : right) out.shape.push_back(size_of(b, l));
    if (batch.empty()) {
        const ir::VarId y = c.emit("MatrixMul", {reshape_if(c, a.var, a.shape, {nl, nk}), reshape_if(c, b.var, b.shape, {nk, nr})});
        out.var = reshape_if(c, y, {nl, nr}, out.shape);
    } else {
        const ir::VarId y = c.emit("BatchedMatrixMul", {reshape_if(c, a.var, a.shape, {nb, nl, nk}),
                                                        reshape_if(c, b.var, b.shape, {nb, nk, nr})});
        out.var = reshape_if(c, y, {nb, nl, nr}, out.shape);
    }
    return out;
}

void einsum(Importer& c) {
    c.check_attrs({"equation"});
    const std::string eq = c.attr_string("equation", "");
    if (eq.empty()) c.fail("attribute 'equation' is missing");
    for (size_t k = 0; k < c.input_count(); ++k) {
        require_float(c, k);
        if (c.input(k).elem_type != c.input(0).elem_type)
            c.fail(fmt::format("input #{} is {}, input #0 {}", k, onnx_elem_name(c.input(k).elem_type),
                               onnx_elem_name(c.input(0).elem_type)));
    }
    const Equation e = parse(c, eq);
    std::vector<Operand> ops;
    for (size_t k = 0; k < e.inputs.size(); ++k) {
        ops.push_back({e.inputs[k], c.input(k).shape, c.var(k)});
        take_diagonals(c, eq, ops.back());
    }
    // The labels needed once operand k has been folded in: the output's and those of
    // every later operand.
    auto needed_after = [&](size_t k) {
        std::set<int> s(e.output.begin(), e.output.end());
        for (size_t j = k + 1; j < ops.size(); ++j) s.insert(ops[j].labels.begin(), ops[j].labels.end());
        return s;
    };
    Operand acc = ops[0];
    for (size_t k = 1; k < ops.size(); ++k) {
        // A label only one side has and nothing after needs is summed first.
        std::set<int> keep = needed_after(k);
        std::set<int> keep_a = keep, keep_b = keep;
        keep_a.insert(ops[k].labels.begin(), ops[k].labels.end());
        keep_b.insert(acc.labels.begin(), acc.labels.end());
        sum_out(c, acc, keep_a);
        sum_out(c, ops[k], keep_b);
        acc = contract(c, eq, acc, ops[k], keep);
    }
    sum_out(c, acc, std::set<int>(e.output.begin(), e.output.end()));
    permute(c, acc, e.output);
    c.set_output_var(0, acc.var, c.input(0).elem_type, acc.shape);
}

constexpr OpHandler kHandlers[] = {
    {"Einsum", einsum},
};

}  // namespace

std::span<const OpHandler> einsum_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
