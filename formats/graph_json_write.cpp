// ir::Graph → graph JSON (format: formats/GRAPH_JSON.md). The writer uses the
// friendly "inputs"/"constants" forms where they reproduce the operator exactly and
// the general operator form otherwise, so parsing its output gives the graph back.
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <map>
#include <unordered_map>

#include "formats/base64.h"
#include "formats/graph_json.h"
#include "formats/graph_json_detail.h"
#include "formats/npy.h"
#include "ir/describe.h"
#include "ir/error.h"
#include "ir/op_registry.h"

namespace mgedump::formats {
namespace {

using namespace graph_json;
using ir::OprId;
using ir::VarId;

constexpr std::string_view kDefaultCompNode = "xpux:0";

// Every operator, producers before consumers; table order where it already is one
// (passes may append producers after their consumers).
std::vector<OprId> dependency_order(const ir::Graph& g) {
    const size_t n = g.oprs.size();
    std::vector<uint8_t> state(n, 0);  // 0 unseen, 1 on the stack, 2 emitted
    std::vector<OprId> order;
    order.reserve(n);
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // operator, next input to visit
    for (uint32_t root = 0; root < n; ++root) {
        if (state[root]) continue;
        state[root] = 1;
        stack.push_back({root, 0});
        while (!stack.empty()) {
            const uint32_t o = stack.back().first;
            auto inputs = g.inputs_of(OprId(o));
            if (stack.back().second < inputs.size()) {
                VarId v = inputs[stack.back().second++];
                if (v.value >= g.vars.size())
                    throw GraphError(fmt::format("{}: input var {} does not exist", ir::describe_opr(g, OprId(o)), v.value));
                const uint32_t p = g.vars.owner[v.value].value;
                if (state[p] == 1) throw GraphError(fmt::format("{}: is part of a cycle", ir::describe_opr(g, OprId(o))));
                if (state[p] == 0) {
                    state[p] = 1;
                    stack.push_back({p, 0});
                }
            } else {
                state[o] = 2;
                order.push_back(OprId(o));
                stack.pop_back();
            }
        }
    }
    return order;
}

bool same_dims(std::span<const uint32_t> a, std::span<const uint32_t> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// Arrays of scalars and small flat objects on one line, everything else indented:
// shapes and axis descriptions stay readable.
void pretty(const Json& j, int indent, int level, std::string& out) {
    auto scalar = [](const Json& e) { return !e.is_structured(); };
    auto flat = [&](const Json& e) {
        if (e.is_array()) return std::all_of(e.begin(), e.end(), scalar);
        if (e.is_object()) {
            for (auto& [k, v] : e.items())
                if (!scalar(v) && !(v.is_array() && std::all_of(v.begin(), v.end(), scalar))) return false;
            return e.dump().size() <= 80;
        }
        return true;
    };
    if (indent < 0 || !j.is_structured() || (flat(j) && (j.is_array() || level > 0))) {
        if (j.is_object() && !j.empty()) {  // one line, but with spaces after ':' and ','
            out += '{';
            bool first = true;
            for (auto& [k, v] : j.items()) {
                out += first ? "" : ", ";
                first = false;
                out += Json(k).dump() + ": ";
                pretty(v, -1, level + 1, out);
            }
            out += '}';
        } else if (j.is_array() && !j.empty()) {
            out += '[';
            for (size_t i = 0; i < j.size(); ++i) {
                if (i) out += ", ";
                pretty(j[i], -1, level + 1, out);
            }
            out += ']';
        } else {
            out += j.dump();
        }
        return;
    }
    const std::string pad(size_t(indent) * size_t(level + 1), ' '), end_pad(size_t(indent) * size_t(level), ' ');
    const bool obj = j.is_object();
    out += obj ? "{\n" : "[\n";
    size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i) {
        out += pad;
        if (obj) out += Json(it.key()).dump() + ": ";
        pretty(*it, indent, level + 1, out);
        out += i + 1 < j.size() ? ",\n" : "\n";
    }
    out += end_pad + (obj ? "}" : "]");
}

class Writer {
public:
    Writer(const ir::Graph& g, const GraphJsonWriteOptions& o) : g_(g), opt_(o) {}

    std::string write() {
        const std::vector<OprId> order = dependency_order(g_);
        pick_default_comp_node();
        find_unique_names();

        is_output_.assign(g_.vars.size(), false);
        for (VarId v : g_.outputs) is_output_.at(v.value) = true;
        // Holders without inputs may go first, so sections keep a dependency order.
        std::vector<Form> forms(g_.oprs.size(), Form::General);
        for (OprId o : order) forms[o.value] = form_of(o);
        std::vector<OprId> inputs, constants, general;
        // A holder that is a graph output keeps its original_id only in the general
        // form (the only one with overrides); demoting it renumbers, so repeat.
        for (bool changed = true; changed;) {
            inputs.clear(), constants.clear(), general.clear();
            for (OprId o : order)
                (forms[o.value] == Form::Input ? inputs : forms[o.value] == Form::Constant ? constants : general)
                    .push_back(o);
            number_vars({&inputs, &constants, &general});
            changed = false;
            for (const auto* list : {&inputs, &constants})
                for (OprId o : *list)
                    if (!original_id_kept(g_.output_var(o, 0))) forms[o.value] = Form::General, changed = true;
        }
        name_refs();

        Json root = Json::object();
        root["format"] = "mgedump-graph";
        root["version"] = 1;
        if (default_cn_ != kDefaultCompNode) root["comp_node"] = default_cn_;
        if (!inputs.empty()) {
            Json& arr = root["inputs"] = Json::array();
            for (OprId o : inputs) arr.push_back(write_input(o));
        }
        if (!constants.empty()) {
            Json& arr = root["constants"] = Json::array();
            for (OprId o : constants) arr.push_back(write_constant(o));
        }
        Json& ops = root["operators"] = Json::array();
        for (OprId o : general) ops.push_back(write_operator(o));
        Json outs = Json::array();
        for (VarId v : g_.outputs) outs.push_back(ref_.at(v.value));
        root["outputs"] = std::move(outs);

        std::string text;
        pretty(root, opt_.indent, 0, text);
        text += '\n';
        return text;
    }

private:
    enum class Form { Input, Constant, General };

    void number_vars(std::initializer_list<const std::vector<OprId>*> lists) {
        new_index_.assign(g_.vars.size(), 0);
        uint32_t next = 0;
        for (const auto* list : lists)
            for (OprId o : *list)
                for (uint32_t k = 0; k < g_.oprs.outputs[o.value].count; ++k)
                    new_index_[g_.output_var(o, k).value] = next++;
    }

    // Only graph outputs have their original_id written (OutputVar.original_id); the
    // reader gives every var its own index, so others need nothing.
    bool original_id_kept(VarId v) const {
        return !is_output_[v.value] || g_.vars.original_id[v.value] == new_index_[v.value];
    }

    void pick_default_comp_node() {
        std::map<std::string_view, size_t> counts;
        for (size_t t = 0; t < g_.tensors.size(); ++t)
            if (g_.tensors.comp_node[t].valid()) ++counts[g_.str(g_.tensors.comp_node[t])];
        size_t best = 0;
        default_cn_ = std::string(kDefaultCompNode);
        for (auto& [cn, n] : counts)
            if (n > best || (n == best && cn == kDefaultCompNode)) best = n, default_cn_ = std::string(cn);
    }

    // A var is referred to by its name when that is non-empty and unique, else by a
    // made-up "%<n>" (n: its index in the re-read graph, so writing is a fixed
    // point) that no var is named.
    void find_unique_names() {
        for (size_t v = 0; v < g_.vars.size(); ++v)
            if (g_.vars.name[v].valid()) ++name_uses_[g_.str(g_.vars.name[v])];
        unique_name_.assign(g_.vars.size(), false);
        for (size_t v = 0; v < g_.vars.size(); ++v) {
            std::string_view name = g_.str(g_.vars.name[v]);
            unique_name_[v] = g_.vars.name[v].valid() && !name.empty() && name_uses_[name] == 1;
        }
    }

    void name_refs() {
        ref_.resize(g_.vars.size());
        for (size_t v = 0; v < g_.vars.size(); ++v) {
            if (unique_name_[v]) {
                ref_[v] = std::string(g_.str(g_.vars.name[v]));
                continue;
            }
            std::string r = fmt::format("%{}", new_index_[v]);
            while (name_uses_.count(r)) r += '_';
            ref_[v] = r;
        }
    }

    bool ref_is_name(VarId v) const { return unique_name_[v.value]; }

    // The dtype/shape the reader gives var k of `o` before any override.
    std::pair<ir::DType, std::span<const uint32_t>> derived(OprId o, uint32_t k) const {
        ir::Range tensors = g_.oprs.tensors[o.value];
        if (k < tensors.count) {
            ir::TensorId t(tensors.begin + k);
            return {g_.tensors.dtype[t.value], g_.tensor_shape(t)};
        }
        ir::DType d = g_.oprs.output_dtype[o.value];
        auto in = g_.inputs_of(o);
        if (!d.valid && !in.empty()) d = g_.vars.dtype[in[0].value];
        return {d, {}};
    }

    bool var_is_plain(OprId o, uint32_t k) const {
        VarId v = g_.output_var(o, k);
        auto [dtype, shape] = derived(o, k);
        return !(g_.vars.flags[v.value] & ir::kVarVolatile) && g_.vars.dtype[v.value] == dtype &&
               same_dims(g_.var_shape(v), shape) && original_id_kept(v) && !states_types(o, k);
    }

    // With output_types, an operator output's known dtype and shape are written even
    // when derived; a holder's are its tensor's, already in its tensor entry.
    bool states_types(OprId o, uint32_t k) const {
        if (!opt_.output_types || k < g_.oprs.tensors[o.value].count) return false;
        VarId v = g_.output_var(o, k);
        return g_.vars.dtype[v.value].valid || !g_.vars.shape[v.value].empty();
    }

    Form form_of(OprId o) const {
        const ir::OpDef& def = ir::op_def(g_.oprs.type[o.value]);
        const bool h2d = def.name == "Host2DeviceCopy", immutable = def.name == "ImmutableTensor",
                   shared = def.name == "SharedDeviceTensor";
        if (!h2d && !immutable && !shared) return Form::General;
        if (g_.oprs.outputs[o.value].count != 1 || g_.oprs.tensors[o.value].count != 1 ||
            !g_.oprs.blobs[o.value].empty() || g_.oprs.priority[o.value] != 0 ||
            !g_.oprs.comp_nodes[o.value].empty() || g_.oprs.output_dtype[o.value].valid ||
            g_.oprs.params[o.value].count != def.params.size() || !g_.inputs_of(o).empty())
            return Form::General;
        VarId v = g_.output_var(o, 0);
        const uint32_t t = g_.oprs.tensors[o.value].begin;
        std::string_view name = g_.str(g_.oprs.name[o.value]);
        if (!g_.oprs.name[o.value].valid() || name.empty() || !ref_is_name(v) || g_.str(g_.vars.name[v.value]) != name)
            return Form::General;
        if (!g_.tensors.comp_node[t].valid() || g_.tensors.format_type[t] != 1 || !g_.tensors.dtype[t].valid)
            return Form::General;
        if (g_.vars.dtype[v.value] != g_.tensors.dtype[t] || !same_dims(g_.var_shape(v), g_.tensor_shape(ir::TensorId(t))) ||
            (g_.vars.flags[v.value] & ir::kVarVolatile))
            return Form::General;
        const ir::TensorMethod m = g_.tensors.method[t];
        const bool has_value = g_.tensors.blob[t].valid();
        const bool tensor_named = g_.tensors.name[t].valid() && g_.str(g_.tensors.name[t]) == name;
        if (h2d && tensor_named &&
            ((m == ir::TensorMethod::MetaInput && !has_value) || (m == ir::TensorMethod::ValueInput && has_value)))
            return Form::Input;
        if (immutable && !g_.tensors.name[t].valid() && m == ir::TensorMethod::ValueAnonymous && has_value)
            return Form::Constant;
        if (shared && tensor_named && m == ir::TensorMethod::ValueShared && has_value) return Form::Constant;
        return Form::General;
    }

    // dtype (flat: "dtype" + "scale"/"zero_point"), shape and the value of tensor t.
    void write_tensor_body(Json& e, uint32_t t, std::string_view hint) {
        const ir::DType d = g_.tensors.dtype[t];
        if (d.valid) {
            Json dj = dtype_to_json(d);
            if (dj.is_object()) {
                for (auto& [k, v] : dj.items()) e[k] = v;
            } else {
                e["dtype"] = dj;
            }
        }
        auto shape = g_.tensor_shape(ir::TensorId(t));
        e["shape"] = std::vector<uint32_t>(shape.begin(), shape.end());
        const ir::StrId cn = g_.tensors.comp_node[t];
        if (!cn.valid()) e["comp_node"] = nullptr;
        else if (g_.str(cn) != default_cn_) e["comp_node"] = std::string(g_.str(cn));
        if (g_.tensors.blob[t].valid()) write_value(e, d.type, shape, g_.blobs.bytes(g_.tensors.blob[t]), hint);
    }

    void write_value(Json& e, ir::DTypeEnum t, std::span<const uint32_t> shape, ir::Bytes bytes, std::string_view hint) {
        if (ir::element_count(shape) <= opt_.max_inline_values)
            if (auto values = bytes_to_values(bytes, t)) {
                e["values"] = std::move(*values);
                return;
            }
        // A tensor of one repeated value (initialisers, tests) reads best as "fill".
        const size_t size = ir::dtype_bits(t) / 8;
        if (has_json_elements(t) && bytes.size() > size && bytes.size() % size == 0) {
            bool uniform = true;
            for (size_t off = size; off < bytes.size() && uniform; off += size)
                uniform = std::memcmp(bytes.data(), bytes.data() + off, size) == 0;
            if (uniform)
                if (auto v = decode_element(bytes.data(), t)) {
                    e["fill"] = std::move(*v);
                    return;
                }
        }
        if (!opt_.json_dir.empty() && bytes.size() > opt_.npy_threshold_bytes && npy_descr(t)) {
            e["npy"] = write_npy_file(t, shape, bytes, hint);
            return;
        }
        e["base64"] = base64_encode(bytes);
    }

    std::string write_npy_file(ir::DTypeEnum t, std::span<const uint32_t> shape, ir::Bytes bytes, std::string_view hint) {
        std::string safe;
        for (char c : hint) safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
        const std::string file = fmt::format("{:04}_{}.npy", npy_count_++, safe.empty() ? "tensor" : safe);
        const std::filesystem::path dir = opt_.json_dir / opt_.npy_subdir;
        std::filesystem::create_directories(dir);
        const std::vector<std::byte> image = encode_npy(t, shape, bytes);
        std::ofstream out(dir / file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
        if (!out) throw FormatError(fmt::format("{}: cannot write", (dir / file).string()));
        return (std::filesystem::path(opt_.npy_subdir) / file).generic_string();
    }

    // Fields that differ from `defaults`, named "Table.field" when two of the
    // operator's tables share the field name.
    void write_params(Json& e, OprId o, const std::vector<ir::ParamValue>& defaults) {
        const ir::OpDef& def = ir::op_def(g_.oprs.type[o.value]);
        auto params = g_.params_of(o);
        if (params.size() != def.params.size())
            throw GraphError(fmt::format("{}: has {} params, {} writes {}", ir::describe_opr(g_, o), params.size(),
                                         def.name, def.params.size()));
        Json out = Json::object();
        for (size_t i = 0; i < params.size(); ++i) {
            const ir::ParamTableDesc& t = ir::param_table(params[i].table);
            if (t.name != def.params[i] || params[i].fields.size() != t.fields.size())
                throw GraphError(fmt::format("{}: param {} is {}, expected {}", ir::describe_opr(g_, o), i, t.name,
                                             def.params[i]));
            for (size_t f = 0; f < t.fields.size(); ++f) {
                // Dimshuffle.ndim is filled in from the input by the builder when left
                // out, so the writer always states it.
                const bool always = def.name == "Dimshuffle" && t.fields[f].name == "ndim";
                if (params[i].fields[f] == defaults[i].fields[f] && !always) continue;
                bool shared = false;
                for (size_t j = 0; j < params.size(); ++j)
                    shared = shared || (j != i && ir::find_field(ir::param_table(params[j].table), t.fields[f].name) >= 0);
                const std::string key = shared ? fmt::format("{}.{}", t.name, t.fields[f].name) : std::string(t.fields[f].name);
                out[key] = param_to_json(params[i].fields[f], t.fields[f]);
            }
        }
        if (!out.empty()) e["params"] = std::move(out);
    }

    std::vector<ir::ParamValue> default_params(OprId o) const {
        std::vector<ir::ParamValue> d;
        for (std::string_view name : ir::op_def(g_.oprs.type[o.value]).params)
            d.push_back(ir::default_param(ir::find_param_table(name)));
        return d;
    }

    Json write_input(OprId o) {
        const uint32_t t = g_.oprs.tensors[o.value].begin;
        Json e = Json::object();
        e["name"] = std::string(g_.str(g_.oprs.name[o.value]));
        write_tensor_body(e, t, e["name"].get<std::string>());
        // The reader turns dump_default_value on for inputs with a value.
        std::vector<ir::ParamValue> defaults = default_params(o);
        if (g_.tensors.blob[t].valid()) {
            const ir::ParamTableDesc& table = ir::param_table(defaults[0].table);
            defaults[0].fields[ir::find_field(table, "dump_default_value")] = int64_t{1};
        }
        write_params(e, o, defaults);
        return e;
    }

    Json write_constant(OprId o) {
        const uint32_t t = g_.oprs.tensors[o.value].begin;
        Json e = Json::object();
        e["name"] = std::string(g_.str(g_.oprs.name[o.value]));
        if (g_.tensors.method[t] == ir::TensorMethod::ValueShared) e["param"] = true;
        write_tensor_body(e, t, e["name"].get<std::string>());
        return e;
    }

    Json write_operator(OprId o) {
        const ir::OpDef& def = ir::op_def(g_.oprs.type[o.value]);
        Json e = Json::object();
        e["op"] = std::string(def.name);
        const bool named = g_.oprs.name[o.value].valid();
        // Left out, the reader would name it "<Op><index>"; null keeps it unnamed.
        e["name"] = named ? Json(std::string(g_.str(g_.oprs.name[o.value]))) : Json(nullptr);
        auto in = g_.inputs_of(o);
        if (!in.empty()) {
            Json refs = Json::array();
            for (VarId v : in) refs.push_back(ref_[v.value]);
            e["inputs"] = std::move(refs);
        }
        write_params(e, o, default_params(o));

        const uint32_t nr_out = g_.oprs.outputs[o.value].count;
        VarId first = g_.output_var(o, 0);
        const bool implicit_outputs = def.outputs == 1 && nr_out == 1 && named && !e["name"].get<std::string>().empty() &&
                                      ref_is_name(first) && g_.str(g_.vars.name[first.value]) == e["name"].get<std::string>() &&
                                      var_is_plain(o, 0);
        if (!implicit_outputs) {
            Json outs = Json::array();
            for (uint32_t k = 0; k < nr_out; ++k) outs.push_back(write_output(o, k));
            e["outputs"] = std::move(outs);
        }
        if (g_.oprs.priority[o.value] != 0) e["priority"] = g_.oprs.priority[o.value];
        auto cns = g_.comp_nodes_of(o);
        if (!cns.empty()) {
            Json list = Json::array();
            for (ir::StrId c : cns) list.push_back(std::string(g_.str(c)));
            e["comp_node"] = std::move(list);
        }
        if (g_.oprs.output_dtype[o.value].valid) e["output_dtype"] = dtype_to_json(g_.oprs.output_dtype[o.value]);

        const ir::Range tensors = g_.oprs.tensors[o.value];
        if (!tensors.empty()) {
            Json list = Json::array();
            for (uint32_t t = tensors.begin; t < tensors.end(); ++t) list.push_back(write_op_tensor(o, t));
            e["tensors"] = std::move(list);
        }
        auto blobs = g_.blobs_of(o);
        if (!blobs.empty()) {
            Json list = Json::array();
            for (ir::BlobId b : blobs) list.push_back(base64_encode(g_.blobs.bytes(b)));
            e["blobs"] = std::move(list);
        }
        return e;
    }

    Json write_output(OprId o, uint32_t k) {
        VarId v = g_.output_var(o, k);
        if (ref_is_name(v) && var_is_plain(o, k)) return ref_[v.value];
        Json e = Json::object();
        if (!ref_is_name(v)) e["ref"] = ref_[v.value];
        e["name"] = g_.vars.name[v.value].valid() ? Json(std::string(g_.str(g_.vars.name[v.value]))) : Json(nullptr);
        auto [dtype, shape] = derived(o, k);
        const ir::DType d = g_.vars.dtype[v.value];
        const bool state = states_types(o, k);
        if (d != dtype || (state && d.valid)) e["dtype"] = d.valid ? dtype_to_json(d) : Json(nullptr);
        auto vs = g_.var_shape(v);
        if (!same_dims(vs, shape) || (state && !vs.empty()))
            e["shape"] = std::vector<uint32_t>(vs.begin(), vs.end());
        if (g_.vars.flags[v.value] & ir::kVarVolatile) e["volatile"] = true;
        if (!original_id_kept(v)) e["original_id"] = g_.vars.original_id[v.value];
        return e;
    }

    Json write_op_tensor(OprId o, uint32_t t) {
        const ir::OpDef& def = ir::op_def(g_.oprs.type[o.value]);
        Json e = Json::object();
        e["name"] = g_.tensors.name[t].valid() ? Json(std::string(g_.str(g_.tensors.name[t]))) : Json(nullptr);
        static constexpr std::string_view kMethods[] = {"META_INPUT", "VALUE_INPUT", "VALUE_SHARED", "VALUE_ANONYMOUS"};
        const ir::TensorMethod m = g_.tensors.method[t];
        const bool has_value = g_.tensors.blob[t].valid();
        const ir::TensorMethod implied = def.tensors == ir::OpTensors::Input
                                             ? (has_value ? ir::TensorMethod::ValueInput : ir::TensorMethod::MetaInput)
                                         : def.tensors == ir::OpTensors::Anonymous ? ir::TensorMethod::ValueAnonymous
                                                                                   : ir::TensorMethod::ValueShared;
        if (m != implied) e["method"] = std::string(kMethods[static_cast<size_t>(m)]);
        if (g_.tensors.format_type[t] != 1) e["format"] = g_.tensors.format_type[t];
        std::string hint = g_.tensors.name[t].valid() ? std::string(g_.str(g_.tensors.name[t]))
                                                      : std::string(g_.str(g_.oprs.name[o.value]));
        write_tensor_body(e, t, hint);
        return e;
    }

    const ir::Graph& g_;
    const GraphJsonWriteOptions& opt_;
    std::string default_cn_;
    std::unordered_map<std::string_view, uint32_t> name_uses_;
    std::vector<bool> unique_name_;        // per VarId
    std::vector<std::string> ref_;         // per VarId
    std::vector<uint32_t> new_index_;      // per VarId: its index in the re-read graph
    std::vector<bool> is_output_;          // per VarId
    int npy_count_ = 0;
};

}  // namespace

std::string graph_to_json(const ir::Graph& g, const GraphJsonWriteOptions& options) {
    return Writer(g, options).write();
}

}  // namespace mgedump::formats
