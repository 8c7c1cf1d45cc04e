// RNN, GRU and LSTM (opsets 7 to 14+) unrolled over time into MegEngine operators.
// The sequence length is static, so every time step is its own small graph of
// MatrixMul (the input and recurrent products, W and R seen transposed),
// Elemwise ADD of the biases, the gate activations and the state updates, exactly
// ONNX's equations:
//   RNN   Ht = f(Xt·Wᵀ + Ht−1·Rᵀ + Wb + Rb)
//   GRU   zt = f(Xt·Wzᵀ + Ht−1·Rzᵀ + Wbz + Rbz), rt likewise,
//         ht = g(Xt·Whᵀ + (rt ⊙ Ht−1)·Rhᵀ + Rbh + Wbh)            (linear_before_reset 0)
//         ht = g(Xt·Whᵀ + rt ⊙ (Ht−1·Rhᵀ + Rbh) + Wbh)            (linear_before_reset ≠ 0)
//         Ht = (1 − zt) ⊙ ht + zt ⊙ Ht−1
//   LSTM  it = f(Xt·Wiᵀ + Ht−1·Riᵀ + Pi ⊙ Ct−1 + Wbi + Rbi), ft likewise with Pf,
//         ct = g(Xt·Wcᵀ + Ht−1·Rcᵀ + Wbc + Rbc), Ct = ft ⊙ Ct−1 + it ⊙ ct,
//         ot = f(Xt·Woᵀ + Ht−1·Roᵀ + Po ⊙ Ct + Wbo + Rbo), Ht = ot ⊙ h(Ct)
// The input products of all time steps are one MatrixMul per gate on X seen as
// (seq·batch, input); Subtensor picks each step's rows. `clip` bounds every gate's
// activation input (Elemwise CLIP), not Ct before h, as ONNX Runtime does.
// sequence_lens shorter than the sequence mask the steps past each entry's length
// (Where), with ONNX Runtime's results (step_masks).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

enum class Cell { Rnn, Gru, Lstm };

// Input positions shared by the three operators.
constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kSeqLens = 4, kInitialH = 5, kInitialC = 6, kP = 7;

struct CellSpec {
    Cell cell;
    int64_t gates;       // blocks of hidden_size rows in W and R, in ONNX's order
    size_t activations;  // per direction: f (RNN); f, g (GRU); f, g, h (LSTM)
};

struct Dims {
    int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
};

ir::IndexDescMaskItem pick_item(int axis) { return {static_cast<int8_t>(axis), false, false, false, true}; }
ir::IndexDescMaskItem range_item(int axis) { return {static_cast<int8_t>(axis), true, true, false, false}; }

// x[d, begin:end] of a (dirs, rows, ...) tensor: W, R, B, P per direction and gate.
ir::VarId block(Importer& c, ir::VarId x, int64_t d, int64_t begin, int64_t end) {
    return c.emit("Subtensor", {x, c.const_i32({d}), c.const_i32({begin}), c.const_i32({end})},
                  {{"items", std::vector{pick_item(0), range_item(1)}}});
}


ir::VarId add(Importer& c, ir::VarId a, ir::VarId b) { return elemwise(c, "ADD", {a, b}); }
ir::VarId mul(Importer& c, ir::VarId a, ir::VarId b) { return elemwise(c, "MUL", {a, b}); }
// a · bᵀ for a (rows, k) and b (n, k).
ir::VarId times_transposed(Importer& c, ir::VarId a, ir::VarId b) {
    return c.emit("MatrixMul", {a, b}, {{"transposeA", false}, {"transposeB", true}});
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
    return s;
}

// The activation functions of each direction: the `activations` attribute (forward
// ones first, then reverse ones) or ONNX's defaults. Only those MegEngine has an
// exact Elemwise for are accepted; the parameterized ones are refused by name.
std::vector<std::string> activations(Importer& c, const CellSpec& spec, int64_t dirs) {
    std::vector<std::string> out;
    if (const auto* a = c.attr("activations")) {
        if (a->type() != onnx::AttributeProto::STRINGS) c.fail("attribute 'activations': expected a list of strings");
        out.assign(a->strings().begin(), a->strings().end());
        if (out.size() != spec.activations * static_cast<size_t>(dirs))
            c.fail(fmt::format("attribute 'activations' lists {} functions; {} per direction × {} direction(s) "
                               "are needed",
                               out.size(), spec.activations, dirs));
    } else {
        static constexpr std::array<const char*, 3> kRnn{"Tanh"}, kGates{"Sigmoid", "Tanh", "Tanh"};
        for (int64_t d = 0; d < dirs; ++d)
            for (size_t k = 0; k < spec.activations; ++k)
                out.emplace_back(spec.cell == Cell::Rnn ? kRnn[k] : kGates[k]);
    }
    for (const std::string& f : out) {
        const std::string l = lower(f);
        if (l != "sigmoid" && l != "tanh" && l != "relu")
            c.fail(fmt::format("activation '{}' is not supported (Sigmoid, Tanh and Relu are; the optional "
                               "parameterized activations are not mapped)",
                               f));
    }
    return out;
}

struct Step {
    Importer& c;
    int32_t elem_type;
    std::optional<float> clip;

    ir::VarId act(const std::string& f, ir::VarId x) const {
        if (clip) x = elemwise(c, "CLIP", {x, scalar_as(c, -*clip, elem_type), scalar_as(c, *clip, elem_type)});
        const std::string l = lower(f);
        return elemwise(c, l == "sigmoid" ? "SIGMOID" : l == "tanh" ? "TANH" : "RELU", {x});
    }
};

// One direction's weights, sliced per gate: W_g (hidden, input), R_g (hidden,
// hidden), the bias added to the input product, the recurrent bias GRU's h gate
// keeps apart, and LSTM's peepholes Pi, Po, Pf.
struct DirectionWeights {
    std::vector<ir::VarId> w, r, input_bias;
    std::optional<ir::VarId> gru_rbh;
    std::vector<ir::VarId> peep;
};

DirectionWeights direction_weights(Importer& c, const CellSpec& spec, const Dims& n, int64_t d) {
    DirectionWeights out;
    const int64_t h = n.hidden, gh = spec.gates * h;
    for (int64_t g = 0; g < spec.gates; ++g) {
        out.w.push_back(block(c, c.var(kW), d, g * h, (g + 1) * h));
        out.r.push_back(block(c, c.var(kR), d, g * h, (g + 1) * h));
    }
    if (c.has_input(kB)) {
        for (int64_t g = 0; g < spec.gates; ++g) {
            ir::VarId wb = block(c, c.var(kB), d, g * h, (g + 1) * h);
            ir::VarId rb = block(c, c.var(kB), d, gh + g * h, gh + (g + 1) * h);
            if (spec.cell == Cell::Gru && g == 2) {
                out.input_bias.push_back(wb);
                out.gru_rbh = rb;
            } else {
                out.input_bias.push_back(add(c, wb, rb));
            }
        }
    }
    if (spec.cell == Cell::Lstm && c.has_input(kP))
        for (int64_t g = 0; g < 3; ++g) out.peep.push_back(block(c, c.var(kP), d, g * h, (g + 1) * h));
    return out;
}

// The input product of every time step for each gate: (seq, batch, hidden), or
// (batch, hidden) when seq is 1.
std::vector<ir::VarId> input_products(Importer& c, const CellSpec& spec, const Dims& n, ir::VarId x_rows,
                                      const DirectionWeights& wd) {
    std::vector<ir::VarId> out;
    for (int64_t g = 0; g < spec.gates; ++g) {
        ir::VarId p = times_transposed(c, x_rows, wd.w[g]);
        if (!wd.input_bias.empty()) p = add(c, p, wd.input_bias[g]);
        if (n.seq > 1) p = c.reshape(p, {n.seq, n.batch, n.hidden});
        out.push_back(p);
    }
    return out;
}

// A (batch, hidden) constant of zeros (all-zero bytes in every float format).
ir::VarId zeros(Importer& c, const Dims& n, int32_t elem_type) {
    const ir::DTypeEnum dtype = onnx_var_dtype(elem_type, c);
    const size_t bytes = static_cast<size_t>(n.batch * n.hidden) * (dtype == ir::DTypeEnum::Float32 ? 4 : 2);
    return c.const_var(dtype, {n.batch, n.hidden}, std::vector<std::byte>(bytes));
}

// The initial state of direction d ((dirs, batch, hidden), layout 1: (batch, dirs,
// hidden)), or zeros.
ir::VarId initial_state(Importer& c, size_t input, const Dims& n, int64_t d, bool batch_first, int32_t elem_type) {
    if (c.has_input(input)) return pick_along(c, c.var(input), batch_first ? 1 : 0, d);
    return zeros(c, n, elem_type);
}

// sequence_lens as ONNX Runtime applies it: step t updates batch entry b only while
// t < lens[b] (a reverse direction thus starts at step lens[b] − 1 from the initial
// state), Y is 0 beyond the length, Y_h / Y_c are the last updated state and 0 for a
// length of 0. Per step, a Bool (batch, hidden) mask: LT(t, lens) broadcast along
// hidden (`ElemwiseMultiType LT`, `Broadcast`); nothing when every length is seq.
std::vector<ir::VarId> step_masks(Importer& c, const Dims& n) {
    if (!c.has_input(kSeqLens)) return {};
    const Value& lens = c.input(kSeqLens);
    if (lens.elem_type != onnx::TensorProto::INT32 && lens.elem_type != onnx::TensorProto::INT64)
        c.fail(fmt::format("sequence_lens (input #4) is {}, expected INT32", onnx_elem_name(lens.elem_type)));
    if (lens.shape != Shape{n.batch})
        c.fail(fmt::format("sequence_lens (input #4) has shape [{}], expected [{}]", fmt::join(lens.shape, ","),
                           n.batch));
    if (lens.is_const) {
        const std::vector<int64_t> v = c.const_ints(kSeqLens, "sequence_lens");
        for (int64_t l : v)
            if (l < 0 || l > n.seq)
                c.fail(fmt::format("sequence_lens [{}] has a length outside [0, {}]", fmt::join(v, ","), n.seq));
        if (std::all_of(v.begin(), v.end(), [&](int64_t l) { return l == n.seq; })) return {};
    }
    const ir::VarId column = c.reshape(c.var(kSeqLens), {n.batch, 1});
    const ir::VarId target = c.const_i32({n.batch, n.hidden});
    std::vector<ir::VarId> masks;
    for (int64_t t = 0; t < n.seq; ++t)
        masks.push_back(c.emit("Broadcast", {bool_elemwise(c, "LT", {c.const_i32({t}), column}), target}));
    return masks;
}

void check_shape(Importer& c, size_t i, std::string_view what, const Shape& want) {
    if (c.has_input(i) && c.input(i).shape != want)
        c.fail(fmt::format("{} (input #{}) has shape [{}], expected [{}]", what, i, fmt::join(c.input(i).shape, ","),
                           fmt::join(want, ",")));
}

// (batch, hidden) pieces stacked along a new leading axis: (pieces, batch, hidden).
ir::VarId stack(Importer& c, const std::vector<ir::VarId>& pieces, const Dims& n) {
    std::vector<ir::VarId> rows;
    for (ir::VarId p : pieces) rows.push_back(c.reshape(p, {1, n.batch, n.hidden}));
    if (rows.size() == 1) return rows[0];
    return c.emit("Concat", rows, {int_param("axis", 0)});
}

void recurrent(Importer& c, const CellSpec& spec) {
    std::vector<std::string_view> known{"activation_alpha", "activation_beta", "activations", "clip", "direction",
                                        "hidden_size"};
    if (c.opset() >= 14) known.push_back("layout");
    if (spec.cell == Cell::Gru) known.push_back("linear_before_reset");
    if (spec.cell == Cell::Lstm) known.push_back("input_forget");
    for (const auto& a : c.node().attribute())
        if (std::find(known.begin(), known.end(), a.name()) == known.end())
            c.fail(fmt::format("attribute '{}' is not supported", a.name()));
    require_float(c, kX);
    const Value& x = c.input(kX);
    const int32_t et = x.elem_type;
    const bool batch_first = c.attr_int("layout", 0) != 0;
    if (x.shape.size() != 3) c.fail(fmt::format("X must have rank 3, has shape [{}]", fmt::join(x.shape, ",")));

    const std::string direction = c.attr_string("direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
        c.fail(fmt::format("direction '{}' is not one of forward, reverse, bidirectional", direction));
    Dims n;
    n.dirs = direction == "bidirectional" ? 2 : 1;
    n.seq = x.shape[batch_first ? 1 : 0];
    n.batch = x.shape[batch_first ? 0 : 1];
    n.input = x.shape[2];
    const Value& r = c.input(kR);
    if (r.shape.size() != 3) c.fail("R must have rank 3 (num_directions, gates·hidden_size, hidden_size)");
    n.hidden = r.shape[2];
    if (c.has_attr("hidden_size") && c.attr_int("hidden_size", 0) != n.hidden)
        c.fail(fmt::format("hidden_size={} differs from R's last dimension {}", c.attr_int("hidden_size", 0),
                           n.hidden));
    const int64_t gh = spec.gates * n.hidden;
    check_shape(c, kW, "W", {n.dirs, gh, n.input});
    check_shape(c, kR, "R", {n.dirs, gh, n.hidden});
    check_shape(c, kB, "B", {n.dirs, 2 * gh});
    const Shape state = batch_first ? Shape{n.batch, n.dirs, n.hidden} : Shape{n.dirs, n.batch, n.hidden};
    check_shape(c, kInitialH, "initial_h", state);
    if (spec.cell == Cell::Lstm) {
        check_shape(c, kInitialC, "initial_c", state);
        check_shape(c, kP, "P", {n.dirs, 3 * n.hidden});
        if (c.attr_int("input_forget", 0) != 0)
            c.fail("input_forget=1 (coupled input and forget gates) is not supported");
    }
    for (size_t i : {kW, kR, kB, kInitialH, kInitialC, kP})
        if (c.has_input(i) && (spec.cell == Cell::Lstm || i < kInitialC) && c.input(i).elem_type != et)
            c.fail(fmt::format("input #{} is {}, X is {}", i, onnx_elem_name(c.input(i).elem_type),
                               onnx_elem_name(et)));
    const std::vector<ir::VarId> masks = step_masks(c, n);
    const std::optional<ir::VarId> zero =
        masks.empty() ? std::nullopt : std::optional<ir::VarId>(zeros(c, n, et));
    const std::vector<std::string> acts = activations(c, spec, n.dirs);
    const bool linear_before_reset = c.attr_int("linear_before_reset", 0) != 0;
    std::optional<float> clip;
    if (c.has_attr("clip")) {
        clip = static_cast<float>(c.attr_float("clip", 0.0));
        if (!(*clip > 0)) c.fail(fmt::format("clip={} must be positive", *clip));
    }
    const Step step{c, et, clip};

    ir::VarId x_seq = c.var(kX);  // (seq, batch, input)
    if (batch_first) x_seq = c.emit("Dimshuffle", {x_seq}, {{"pattern", std::vector<int32_t>{1, 0, 2}}});
    const ir::VarId x_rows = c.reshape(x_seq, {n.seq * n.batch, n.input});

    std::vector<std::vector<ir::VarId>> ys(static_cast<size_t>(n.dirs));  // per direction, in time order
    std::vector<ir::VarId> last_h, last_c;
    for (int64_t d = 0; d < n.dirs; ++d) {
        const bool reverse = direction == "reverse" || d == 1;
        const std::string* f = &acts[static_cast<size_t>(d) * spec.activations];
        const DirectionWeights wd = direction_weights(c, spec, n, d);
        const std::vector<ir::VarId> xp = input_products(c, spec, n, x_rows, wd);
        ir::VarId h = initial_state(c, kInitialH, n, d, batch_first, et);
        ir::VarId cell = spec.cell == Cell::Lstm ? initial_state(c, kInitialC, n, d, batch_first, et) : h;
        std::vector<ir::VarId>& y = ys[static_cast<size_t>(d)];
        y.resize(static_cast<size_t>(n.seq));
        for (int64_t k = 0; k < n.seq; ++k) {
            const int64_t t = reverse ? n.seq - 1 - k : k;
            // One index constant shared by the gates' picks (none for a single step).
            const std::optional<ir::VarId> step_index =
                n.seq > 1 ? std::optional<ir::VarId>(c.const_i32({t})) : std::nullopt;
            auto x_t = [&](int64_t g) {
                if (!step_index) return xp[g];
                return c.emit("Subtensor", {xp[g], *step_index}, {{"items", std::vector{pick_item(0)}}});
            };
            // Each operand of a step is emitted in its own statement: C++ leaves the
            // order of a call's arguments open, and GCC and clang emitted them in
            // opposite orders, numbering the vars differently (GCC's order kept).
            auto pre = [&](int64_t g) {
                const ir::VarId recurrent = times_transposed(c, h, wd.r[g]);
                return add(c, x_t(g), recurrent);
            };
            ir::VarId h_new, c_new = cell;
            if (spec.cell == Cell::Rnn) {
                h_new = step.act(f[0], pre(0));
            } else if (spec.cell == Cell::Gru) {
                const ir::VarId z = step.act(f[0], pre(0)), rg = step.act(f[0], pre(1));
                ir::VarId hh;
                if (linear_before_reset) {
                    ir::VarId hr = times_transposed(c, h, wd.r[2]);
                    if (wd.gru_rbh) hr = add(c, hr, *wd.gru_rbh);
                    const ir::VarId reset = mul(c, rg, hr);
                    hh = add(c, x_t(2), reset);
                } else {
                    ir::VarId hr = times_transposed(c, mul(c, rg, h), wd.r[2]);
                    if (wd.gru_rbh) hr = add(c, hr, *wd.gru_rbh);
                    hh = add(c, x_t(2), hr);
                }
                hh = step.act(f[1], hh);
                const ir::VarId one_minus_z = elemwise(c, "SUB", {scalar_as(c, 1.0, et), z});
                const ir::VarId kept = mul(c, z, h);
                h_new = add(c, mul(c, one_minus_z, hh), kept);
            } else {
                // Gates in ONNX's order i, o, f, c; peepholes i, o, f.
                auto peep = [&](ir::VarId v, size_t p, ir::VarId state) {
                    return wd.peep.empty() ? v : add(c, v, mul(c, wd.peep[p], state));
                };
                const ir::VarId i = step.act(f[0], peep(pre(0), 0, cell));
                const ir::VarId fg = step.act(f[0], peep(pre(2), 2, cell));
                const ir::VarId cg = step.act(f[1], pre(3));
                const ir::VarId written = mul(c, i, cg);
                c_new = add(c, mul(c, fg, cell), written);
                const ir::VarId o = step.act(f[0], peep(pre(1), 1, c_new));
                const std::string l = lower(f[2]);
                h_new = mul(c, o, elemwise(c, l == "sigmoid" ? "SIGMOID" : l == "tanh" ? "TANH" : "RELU", {c_new}));
            }
            if (masks.empty()) {
                h = h_new;
                cell = c_new;
                y[static_cast<size_t>(t)] = h;
            } else {
                // Where selects exactly; entries past their length keep their state.
                const ir::VarId valid = masks[static_cast<size_t>(t)];
                y[static_cast<size_t>(t)] = c.emit("Where", {valid, h_new, *zero});
                h = c.emit("Where", {valid, h_new, h});
                if (spec.cell == Cell::Lstm) cell = c.emit("Where", {valid, c_new, cell});
            }
        }
        // A length of 0 gives zero final states (the step-0 mask is 0 < lens).
        last_h.push_back(masks.empty() ? h : c.emit("Where", {masks[0], h, *zero}));
        last_c.push_back(masks.empty() || spec.cell != Cell::Lstm ? cell : c.emit("Where", {masks[0], cell, *zero}));
    }

    auto wanted = [&](size_t i) { return c.output_count() > i && !c.node().output(static_cast<int>(i)).empty(); };
    if (wanted(0)) {
        std::vector<ir::VarId> pieces;  // (t, d) order: (seq·dirs, batch, hidden)
        for (int64_t t = 0; t < n.seq; ++t)
            for (int64_t d = 0; d < n.dirs; ++d) pieces.push_back(ys[static_cast<size_t>(d)][static_cast<size_t>(t)]);
        ir::VarId y = c.reshape(stack(c, pieces, n), {n.seq, n.dirs, n.batch, n.hidden});
        Shape shape{n.seq, n.dirs, n.batch, n.hidden};
        if (batch_first) {
            y = c.emit("Dimshuffle", {y}, {{"pattern", std::vector<int32_t>{2, 0, 1, 3}}});
            shape = {n.batch, n.seq, n.dirs, n.hidden};
        }
        c.set_output_var(0, y, et, shape);
    }
    auto final_state = [&](size_t i, const std::vector<ir::VarId>& per_dir) {
        if (!wanted(i)) return;
        ir::VarId s = stack(c, per_dir, n);  // (dirs, batch, hidden)
        if (batch_first) s = c.emit("Dimshuffle", {s}, {{"pattern", std::vector<int32_t>{1, 0, 2}}});
        c.set_output_var(i, s, et, state);
    };
    final_state(1, last_h);
    if (spec.cell == Cell::Lstm) final_state(2, last_c);
}

void rnn(Importer& c) { recurrent(c, {Cell::Rnn, 1, 1}); }
void gru(Importer& c) { recurrent(c, {Cell::Gru, 3, 2}); }
void lstm(Importer& c) { recurrent(c, {Cell::Lstm, 4, 3}); }

constexpr OpHandler kHandlers[] = {
    {"RNN", rnn},
    {"GRU", gru},
    {"LSTM", lstm},
};

}  // namespace

std::span<const OpHandler> recurrent_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
