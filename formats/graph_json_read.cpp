// Graph JSON → ir::Graph (format: formats/GRAPH_JSON.md). Every check names its
// JSON place, so a person can fix a hand-written file from the message alone.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "formats/base64.h"
#include "formats/graph_json.h"
#include "formats/graph_json_detail.h"
#include "formats/json_depth.h"
#include "formats/npy.h"
#include "formats/tensor_limits.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "ir/op_registry.h"

namespace mgedump::formats {
namespace {

using namespace graph_json;
using ir::VarId;

constexpr std::string_view kFormatName = "mgedump-graph";
constexpr int kFormatVersion = 1;

void check_keys(const Json& obj, std::initializer_list<std::string_view> keys, std::string_view ctx) {
    for (auto& [k, v] : obj.items()) {
        bool ok = false;
        for (std::string_view allowed : keys) ok = ok || k == allowed;
        if (!ok) fail(ctx, fmt::format("unknown key \"{}\" (expected one of: {})", k, fmt::join(keys, ", ")));
    }
}

const Json* find(const Json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

const std::string& string_at(const Json& obj, const char* key, std::string_view ctx) {
    const Json* j = find(obj, key);
    if (!j) fail(ctx, fmt::format("missing key \"{}\"", key));
    if (!j->is_string()) fail(ctx, fmt::format("\"{}\": expected a string, got {}", key, kind_of(*j)));
    return j->get_ref<const std::string&>();
}

const Json& array_at(const Json& obj, const char* key, std::string_view ctx) {
    static const Json kEmpty = Json::array();
    const Json* j = find(obj, key);
    if (!j) return kEmpty;
    if (!j->is_array()) fail(ctx, fmt::format("\"{}\": expected a list, got {}", key, kind_of(*j)));
    return *j;
}

std::vector<uint32_t> parse_shape(const Json& j, std::string_view ctx) {
    if (!j.is_array()) fail(ctx, fmt::format("shape: expected a list of integers, got {}", kind_of(j)));
    std::vector<uint32_t> shape;
    for (size_t i = 0; i < j.size(); ++i) {
        const Json& d = j[i];
        if (!d.is_number_integer() || (!d.is_number_unsigned() && d.get<int64_t>() < 0) ||
            d.get<uint64_t>() > UINT32_MAX)
            fail(ctx, fmt::format("shape[{}]: expected an integer in [0, 4294967295], got {}", i,
                                  d.is_number() ? d.dump() : kind_of(d)));
        shape.push_back(static_cast<uint32_t>(d.get<uint64_t>()));
    }
    (void)checked_element_count(shape, ctx);
    return shape;
}

// Rejects repeated keys in any object: nlohmann would silently keep one of them.
Json parse_strict(std::string_view text, std::string_view label) {
    if (auto at = json_too_deep_at(text, /*comments=*/true))
        throw LimitError(fmt::format("{}: JSON nests deeper than {} levels (byte {})", label, kMaxJsonDepth, *at));
    std::vector<std::set<std::string>> open_objects;
    Json::parser_callback_t cb = [&](int, Json::parse_event_t ev, Json& parsed) {
        switch (ev) {
            case Json::parse_event_t::object_start: open_objects.emplace_back(); break;
            case Json::parse_event_t::object_end: open_objects.pop_back(); break;
            case Json::parse_event_t::key:
                if (!open_objects.back().insert(parsed.get<std::string>()).second)
                    fail(label, fmt::format("duplicate key \"{}\" in an object", parsed.get<std::string>()));
                break;
            default: break;
        }
        return true;
    };
    try {
        return Json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/true, /*ignore_comments=*/true);
    } catch (const Json::exception& e) {  // parse_error, and out_of_range for a number past a double (1e309)
        fail(label, fmt::format("invalid JSON: {}", e.what()));
    }
}

struct TensorValue {
    ir::DType dtype;
    std::vector<uint32_t> shape;
    ir::BlobId blob;  // invalid: no value given
};

struct VarRef {
    VarId var;
    std::string defined_at;
};

class Reader {
public:
    explicit Reader(const GraphJsonReadOptions& options) : opt_(options) {}

    ir::Graph read(std::string_view text) {
        const Json root = parse_strict(text, opt_.label);
        const std::string top = opt_.label;
        if (!root.is_object()) fail(top, fmt::format("expected a JSON object at the top, got {}", kind_of(root)));
        check_keys(root, {"format", "version", "comp_node", "inputs", "constants", "operators", "outputs"}, top);
        if (string_at(root, "format", top) != kFormatName)
            fail(top, fmt::format("\"format\": expected \"{}\", got \"{}\"", kFormatName,
                                  root["format"].get<std::string>()));
        const Json* version = find(root, "version");
        if (!version) fail(top, "missing key \"version\"");
        if (*version != kFormatVersion)
            fail(top, fmt::format("\"version\": this mgedump reads version {}, got {}", kFormatVersion, version->dump()));
        if (find(root, "comp_node")) default_cn_ = string_at(root, "comp_node", top);

        const Json& inputs = array_at(root, "inputs", top);
        for (size_t i = 0; i < inputs.size(); ++i) read_input(inputs[i], fmt::format("inputs[{}]", i));
        const Json& constants = array_at(root, "constants", top);
        for (size_t i = 0; i < constants.size(); ++i) read_constant(constants[i], fmt::format("constants[{}]", i));
        const Json& operators = array_at(root, "operators", top);
        for (size_t i = 0; i < operators.size(); ++i) read_operator(operators[i], fmt::format("operators[{}]", i));

        const Json* outputs = find(root, "outputs");
        if (!outputs) fail(top, "missing key \"outputs\" (the vars to dump)");
        read_outputs(*outputs);
        try {
            return b_.finish();
        } catch (const GraphError& e) {
            throw GraphError(fmt::format("{}: {}", opt_.label, e.what()));
        }
    }

private:
    std::string at(std::string_view path) const { return fmt::format("{}: {}", opt_.label, path); }
    ir::Graph& g() { return b_.graph(); }

    VarId resolve(const Json& ref, std::string_view ctx) {
        if (!ref.is_string()) fail(ctx, fmt::format("expected a var name, got {}", kind_of(ref)));
        auto it = refs_.find(ref.get<std::string>());
        if (it == refs_.end())
            fail(ctx, fmt::format("no var named \"{}\" is defined before this point", ref.get<std::string>()));
        return it->second.var;
    }

    // `where` is the defining entry's JSON path, quoted when a later entry reuses the name.
    void define(const std::string& ref, VarId v, std::string_view ctx, std::string_view where) {
        auto [it, fresh] = refs_.emplace(ref, VarRef{v, std::string(where)});
        if (!fresh) fail(ctx, fmt::format("var name \"{}\" is already defined by {}", ref, it->second.defined_at));
    }

    // dtype/scale/zero_point/shape and at most one of values/base64/npy/fill.
    TensorValue read_value(const Json& e, std::string_view ctx, bool value_required) {
        TensorValue t;
        const char* source = nullptr;
        for (const char* k : {"values", "base64", "npy", "fill"}) {
            if (!find(e, k)) continue;
            if (source) fail(ctx, fmt::format("give only one of \"{}\" and \"{}\"", source, k));
            source = k;
        }
        if (value_required && !source) fail(ctx, "needs a value: one of \"values\", \"base64\", \"npy\", \"fill\"");
        const Json* dtype = find(e, "dtype");
        const Json* scale = find(e, "scale");
        const Json* zp = find(e, "zero_point");
        const Json* shape = find(e, "shape");
        bool have_dtype = dtype != nullptr;
        if (dtype) t.dtype = parse_dtype(*dtype, scale, zp, ctx);
        else if (scale || zp) fail(ctx, "\"scale\"/\"zero_point\" given without \"dtype\"");
        if (shape) t.shape = parse_shape(*shape, ctx);

        if (source && std::string_view(source) == "npy") {
            const std::string& rel = string_at(e, "npy", ctx);
            std::filesystem::path p = std::filesystem::path(rel).is_absolute() ? std::filesystem::path(rel)
                                                                                 : opt_.base_dir / rel;
            run_side_file_check(opt_.check_side_file, p, fmt::format("{}: npy \"{}\"", ctx, rel));
            NpyArray a;
            try {
                a = read_npy(p, have_dtype ? std::optional(t.dtype.type) : std::nullopt);
            } catch (const FormatError& err) {
                fail(ctx, fmt::format("npy \"{}\": {}", rel, err.what()));
            } catch (const LimitError& err) {
                // Still a LimitError (the caller tells a limit from a mistake), now saying where in the JSON.
                throw LimitError(fmt::format("{}: npy \"{}\": {}", ctx, rel, err.what()));
            }
            if (opt_.npy_files_read) opt_.npy_files_read->push_back(p);
            if (!have_dtype) t.dtype = ir::DType::of(a.dtype);
            if (shape && t.shape != a.shape)
                fail(ctx, fmt::format("npy \"{}\": its shape [{}] does not match the declared shape [{}]", rel,
                                      fmt::join(a.shape, ", "), fmt::join(t.shape, ", ")));
            t.shape = a.shape;
            t.blob = g().blobs.add_view(a.data, std::move(a.keepalive), a.region);
            return t;
        }
        if (!have_dtype) fail(ctx, "missing key \"dtype\"");
        if (!shape) fail(ctx, "missing key \"shape\"");
        if (!source) return t;
        const uint64_t elements = ir::element_count(t.shape);
        if (const uint64_t bytes = ir::dtype_storage_bytes(t.dtype.type, elements); bytes > kMaxInlineTensorBytes)
            throw LimitError(fmt::format("{}: \"{}\": {} of shape [{}] is {} bytes; values in the JSON are limited "
                                         "to 1 GiB (give larger ones as \"npy\")",
                                         ctx, source, ir::dtype_name(t.dtype.type), fmt::join(t.shape, ", "), bytes));
        const std::string_view src(source);
        if (src == "values") {
            t.blob = g().blobs.add_owned(values_to_bytes(e["values"], t.dtype.type, elements, ctx));
        } else if (src == "fill") {
            t.blob = g().blobs.add_owned(fill_bytes(e["fill"], t.dtype.type, elements, ctx));
        } else {
            auto bytes = base64_decode(string_at(e, "base64", ctx));
            if (!bytes) fail(ctx, "\"base64\": not valid base64");
            const uint64_t need = ir::dtype_storage_bytes(t.dtype.type, elements);
            if (bytes->size() != need)
                fail(ctx, fmt::format("\"base64\": decodes to {} bytes, but {} of shape [{}] needs {}", bytes->size(),
                                      ir::dtype_name(t.dtype.type), fmt::join(t.shape, ", "), need));
            t.blob = g().blobs.add_owned(std::move(*bytes));
        }
        return t;
    }

    ir::StrId comp_node_of(const Json& e, std::string_view ctx) {
        const Json* cn = find(e, "comp_node");
        if (!cn) return g().strings.intern(default_cn_);
        if (cn->is_null()) return ir::StrId();
        if (!cn->is_string()) fail(ctx, fmt::format("\"comp_node\": expected a string, got {}", kind_of(*cn)));
        return g().strings.intern(cn->get<std::string>());
    }

    // One operator holding one tensor, its output var typed and shaped like it.
    VarId add_holder(std::string_view op, const std::string& name, std::vector<ir::ParamValue> params,
                     ir::TensorMethod method, bool tensor_named, const TensorValue& t, ir::StrId cn) {
        ir::OpOptions options;
        options.name = name;
        ir::OprId o = b_.add_op(ir::find_op(op), {}, std::move(params), options);
        b_.add_tensor(o, tensor_named ? name : std::string_view{}, method, t.dtype, t.shape, "", t.blob);
        g().tensors.comp_node.back() = cn;
        VarId v = g().output_var(o, 0);
        g().vars.dtype[v.value] = t.dtype;
        g().vars.shape[v.value] = g().tensors.shape.back();
        return v;
    }

    void read_input(const Json& e, const std::string& path) {
        std::string ctx = at(path);
        if (!e.is_object()) fail(ctx, fmt::format("expected an object, got {}", kind_of(e)));
        const std::string& name = string_at(e, "name", ctx);
        if (name.empty()) fail(ctx, "\"name\" must not be empty (inputs are found by name)");
        ctx = at(fmt::format("{} (\"{}\")", path, name));
        check_keys(e, {"name", "dtype", "scale", "zero_point", "shape", "comp_node", "params", "values", "base64",
                       "npy", "fill"},
                   ctx);
        TensorValue t = read_value(e, ctx, false);
        const bool has_value = t.blob.valid();
        const ir::OpDef& def = ir::op_def(ir::find_op("Host2DeviceCopy"));
        // A default value is only dumped with dump_default_value, so giving one implies it.
        ir::ParamArgs args;
        if (has_value) args.emplace_back("dump_default_value", true);
        append_param_args(e, def, ctx, args);
        auto params = ir::make_params(def, args, ctx);
        VarId v = add_holder("Host2DeviceCopy", name, std::move(params),
                             has_value ? ir::TensorMethod::ValueInput : ir::TensorMethod::MetaInput, true, t,
                             comp_node_of(e, ctx));
        define(name, v, ctx, path);
    }

    void read_constant(const Json& e, const std::string& path) {
        std::string ctx = at(path);
        if (!e.is_object()) fail(ctx, fmt::format("expected an object, got {}", kind_of(e)));
        const std::string& name = string_at(e, "name", ctx);
        if (name.empty()) fail(ctx, "\"name\" must not be empty");
        ctx = at(fmt::format("{} (\"{}\")", path, name));
        check_keys(e, {"name", "param", "dtype", "scale", "zero_point", "shape", "comp_node", "values", "base64",
                       "npy", "fill"},
                   ctx);
        bool param = false;
        if (const Json* p = find(e, "param")) {
            if (!p->is_boolean()) fail(ctx, fmt::format("\"param\": expected true or false, got {}", kind_of(*p)));
            param = p->get<bool>();
        }
        TensorValue t = read_value(e, ctx, true);
        VarId v = param ? add_holder("SharedDeviceTensor", name, {}, ir::TensorMethod::ValueShared, true, t,
                                     comp_node_of(e, ctx))
                        : add_holder("ImmutableTensor", name, {}, ir::TensorMethod::ValueAnonymous, false, t,
                                     comp_node_of(e, ctx));
        define(name, v, ctx, path);
    }

    // "params": {"field": value, "Table.field": value}, converted by field type.
    void append_param_args(const Json& e, const ir::OpDef& def, std::string_view ctx, ir::ParamArgs& args) {
        const Json* params = find(e, "params");
        if (!params) return;
        if (!params->is_object()) fail(ctx, fmt::format("\"params\": expected an object, got {}", kind_of(*params)));
        for (auto& [key, value] : params->items()) {
            const std::string pctx = fmt::format("{}: param \"{}\"", ctx, key);
            std::string_view table_part, field_part = key;
            if (auto dot = key.find('.'); dot != std::string::npos) {
                table_part = std::string_view(key).substr(0, dot);
                field_part = std::string_view(key).substr(dot + 1);
            }
            const ir::FieldDesc* field = nullptr;
            std::string_view found_in;
            for (std::string_view tname : def.params) {
                if (!table_part.empty() && tname != table_part) continue;
                const ir::ParamTableDesc& t = ir::param_table(ir::find_param_table(tname));
                int idx = ir::find_field(t, field_part);
                if (idx < 0) continue;
                if (field)
                    fail(pctx, fmt::format("the field is in both {} and {}; write \"{}.{}\"", found_in, tname,
                                           found_in, field_part));
                field = &t.fields[idx];
                found_in = tname;
            }
            if (!field) {
                std::vector<std::string> known;
                for (std::string_view tname : def.params)
                    for (const ir::FieldDesc& f : ir::param_table(ir::find_param_table(tname)).fields)
                        known.emplace_back(f.name);
                fail(pctx, known.empty() ? fmt::format("{} takes no params", def.name)
                                         : fmt::format("{} has no such field (fields: {})", def.name,
                                                       fmt::join(known, ", ")));
            }
            args.emplace_back(key, param_from_json(value, *field, pctx));
        }
    }

    void read_operator(const Json& e, const std::string& path) {
        std::string ctx = at(path);
        if (!e.is_object()) fail(ctx, fmt::format("expected an object, got {}", kind_of(e)));
        std::string name;
        if (const Json* n = find(e, "name"); n && !n->is_null()) {
            if (!n->is_string()) fail(ctx, fmt::format("\"name\": expected a string or null, got {}", kind_of(*n)));
            name = n->get<std::string>();
            ctx = at(fmt::format("{} (\"{}\")", path, name));
        }
        const std::string& op = string_at(e, "op", ctx);
        const ir::OpTypeId type = ir::find_op(op);
        if (!type.valid()) fail(ctx, fmt::format("unknown operator \"{}\"", op));
        const ir::OpDef& def = ir::op_def(type);
        ctx = at(name.empty() ? fmt::format("{} ({})", path, def.name)
                              : fmt::format("{} (\"{}\", {})", path, name, def.name));
        check_keys(e, {"op", "name", "inputs", "params", "outputs", "priority", "comp_node", "output_dtype",
                       "tensors", "blobs"},
                   ctx);

        std::vector<VarId> inputs;
        const Json& in = array_at(e, "inputs", ctx);
        for (size_t i = 0; i < in.size(); ++i) inputs.push_back(resolve(in[i], fmt::format("{}: inputs[{}]", ctx, i)));
        if (inputs.size() < def.min_inputs || (def.max_inputs != ir::kAnyCount && inputs.size() > def.max_inputs)) {
            std::string expected = def.max_inputs == ir::kAnyCount ? fmt::format("at least {}", def.min_inputs)
                                   : def.min_inputs == def.max_inputs
                                       ? fmt::format("{}", def.min_inputs)
                                       : fmt::format("{} to {}", def.min_inputs, def.max_inputs);
            fail(ctx, fmt::format("has {} inputs, {} takes {}", inputs.size(), def.name, expected));
        }

        ir::ParamArgs args;
        append_param_args(e, def, ctx, args);
        std::vector<ir::ParamValue> params = ir::make_params(def, args, ctx);
        // The builder completes some fields from the inputs (Dimshuffle.ndim); a value
        // the document states is kept as stated.
        const std::vector<ir::ParamValue> as_given = params;

        ir::OpOptions options;
        options.name = name;
        if (const Json* p = find(e, "priority")) {
            if (!p->is_number_integer() || p->get<int64_t>() < INT32_MIN || p->get<int64_t>() > INT32_MAX)
                fail(ctx, fmt::format("\"priority\": expected a 32-bit integer, got {}", kind_of(*p)));
            options.priority = static_cast<int32_t>(p->get<int64_t>());
        }
        if (const Json* cn = find(e, "comp_node")) {
            if (cn->is_string()) options.comp_nodes.push_back(cn->get<std::string>());
            else if (cn->is_array()) {
                for (const Json& c : *cn) {
                    if (!c.is_string()) fail(ctx, fmt::format("\"comp_node\": expected strings, got {}", kind_of(c)));
                    options.comp_nodes.push_back(c.get<std::string>());
                }
            } else {
                fail(ctx, fmt::format("\"comp_node\": expected a string or a list of strings, got {}", kind_of(*cn)));
            }
        }
        if (const Json* d = find(e, "output_dtype")) options.output_dtype = parse_dtype(*d, nullptr, nullptr, ctx + ": output_dtype");

        const Json& tensors = array_at(e, "tensors", ctx);
        const Json* outs = find(e, "outputs");
        if (outs && !outs->is_array()) fail(ctx, fmt::format("\"outputs\": expected a list, got {}", kind_of(*outs)));
        uint32_t nr_out = def.outputs;
        if (outs) nr_out = static_cast<uint32_t>(outs->size());
        else if (def.outputs == ir::kAnyCount && def.tensors == ir::OpTensors::MultipleShared)
            nr_out = static_cast<uint32_t>(tensors.size());
        else if (def.outputs == ir::kAnyCount)
            fail(ctx, fmt::format("{} has a variable number of outputs: list them in \"outputs\"", def.name));
        if (def.outputs != ir::kAnyCount && nr_out != def.outputs)
            fail(ctx, fmt::format("\"outputs\" names {} vars, {} has {}", nr_out, def.name, def.outputs));
        if (nr_out == 0) fail(ctx, "an operator needs at least one output");
        options.outputs = nr_out;

        const size_t want_tensors = def.tensors == ir::OpTensors::None             ? 0
                                    : def.tensors == ir::OpTensors::MultipleShared ? nr_out
                                                                                   : 1;
        if (tensors.size() != want_tensors)
            fail(ctx, fmt::format("\"tensors\" lists {}, {} holds {}{}", tensors.size(), def.name, want_tensors,
                                  want_tensors && tensors.empty() ? " (or use the inputs/constants sections)" : ""));

        ir::OprId o;
        try {
            o = b_.add_op(type, inputs, std::move(params), options);
        } catch (const GraphError& err) {
            // Inference refused the operator: say where in the JSON it is.
            fail(ctx, err.what());
        }
        if (const Json* n = find(e, "name"))  // "" is a name too; null is no name
            g().oprs.name[o.value] = n->is_null() ? ir::StrId() : g().strings.intern(name);
        for (const ir::NamedParamArg& a : args) restore_field(o, as_given, a.field);
        for (size_t i = 0; i < tensors.size(); ++i)
            read_op_tensor(tensors[i], def, o, fmt::format("{}: tensors[{}]", ctx, i));
        read_blobs(e, o, ctx);

        // Holders' vars are typed and shaped like their tensors, as the builder does.
        for (uint32_t k = 0; k < want_tensors && k < nr_out; ++k) {
            VarId v = g().output_var(o, k);
            const uint32_t t = g().oprs.tensors[o.value].begin + k;
            g().vars.dtype[v.value] = g().tensors.dtype[t];
            g().vars.shape[v.value] = g().tensors.shape[t];
        }
        for (uint32_t k = 0; k < nr_out; ++k) {
            VarId v = g().output_var(o, k);
            if (outs) read_output_entry((*outs)[k], v, fmt::format("{}: outputs[{}]", ctx, k), path);
            else define(std::string(g().str(g().vars.name[v.value])), v, ctx, path);
        }
    }

    void restore_field(ir::OprId o, const std::vector<ir::ParamValue>& as_given, std::string_view key) {
        std::string_view table_part, field_part = key;
        if (auto dot = key.find('.'); dot != std::string_view::npos) {
            table_part = key.substr(0, dot);
            field_part = key.substr(dot + 1);
        }
        const ir::Range r = g().oprs.params[o.value];
        for (uint32_t i = 0; i < r.count && i < as_given.size(); ++i) {
            ir::ParamValue& p = g().params[r.begin + i];
            const ir::ParamTableDesc& t = ir::param_table(p.table);
            if (!table_part.empty() && t.name != table_part) continue;
            if (int f = ir::find_field(t, field_part); f >= 0) p.fields[f] = as_given[i].fields[f];
        }
        g().refresh_first_field(o);
    }

    void read_op_tensor(const Json& e, const ir::OpDef& def, ir::OprId o, const std::string& ctx) {
        if (!e.is_object()) fail(ctx, fmt::format("expected an object, got {}", kind_of(e)));
        check_keys(e, {"name", "method", "dtype", "scale", "zero_point", "shape", "comp_node", "format", "values",
                       "base64", "npy", "fill"},
                   ctx);
        TensorValue t = read_value(e, ctx, false);
        std::optional<std::string> name;
        if (const Json* n = find(e, "name"); n && !n->is_null()) {
            if (!n->is_string()) fail(ctx, fmt::format("\"name\": expected a string or null, got {}", kind_of(*n)));
            name = n->get<std::string>();
        }
        ir::TensorMethod method = def.tensors == ir::OpTensors::Input
                                      ? (t.blob.valid() ? ir::TensorMethod::ValueInput : ir::TensorMethod::MetaInput)
                                  : def.tensors == ir::OpTensors::Anonymous ? ir::TensorMethod::ValueAnonymous
                                                                            : ir::TensorMethod::ValueShared;
        if (const Json* m = find(e, "method")) {
            static constexpr std::pair<std::string_view, ir::TensorMethod> kMethods[] = {
                {"META_INPUT", ir::TensorMethod::MetaInput},
                {"VALUE_INPUT", ir::TensorMethod::ValueInput},
                {"VALUE_SHARED", ir::TensorMethod::ValueShared},
                {"VALUE_ANONYMOUS", ir::TensorMethod::ValueAnonymous}};
            bool ok = false;
            for (auto [n, v] : kMethods)
                if (m->is_string() && m->get<std::string>() == n) method = v, ok = true;
            if (!ok)
                fail(ctx, fmt::format("\"method\": expected META_INPUT, VALUE_INPUT, VALUE_SHARED or VALUE_ANONYMOUS, "
                                      "got {}", kind_of(*m)));
        }
        ir::StrId cn = comp_node_of(e, ctx);
        // Named before it is added: adding an operator's last tensor validates and
        // infers the operator, and an input tensor must have a name.
        try {
            b_.add_tensor(o, name.value_or(""), method, t.dtype, t.shape, "", t.blob);
        } catch (const GraphError& err) {
            fail(ctx, err.what());
        }
        g().tensors.name.back() = name ? g().strings.intern(*name) : ir::StrId();
        g().tensors.comp_node.back() = cn;
        if (const Json* f = find(e, "format")) {
            if (!f->is_number_integer() || f->get<int64_t>() < 0 || f->get<int64_t>() > 255)
                fail(ctx, fmt::format("\"format\": expected an integer in [0, 255], got {}", kind_of(*f)));
            g().tensors.format_type.back() = static_cast<uint8_t>(f->get<int64_t>());
        }
    }

    void read_blobs(const Json& e, ir::OprId o, std::string_view ctx) {
        const Json& blobs = array_at(e, "blobs", ctx);
        ir::Range r{static_cast<uint32_t>(g().opr_blobs.size()), 0};
        for (size_t i = 0; i < blobs.size(); ++i) {
            const std::string bctx = fmt::format("{}: blobs[{}]", ctx, i);
            if (!blobs[i].is_string()) fail(bctx, fmt::format("expected a base64 string, got {}", kind_of(blobs[i])));
            auto bytes = base64_decode(blobs[i].get<std::string>());
            if (!bytes) fail(bctx, "not valid base64");
            g().opr_blobs.push_back(g().blobs.add_owned(std::move(*bytes)));
            ++r.count;
        }
        g().oprs.blobs[o.value] = r;
    }

    // "name" or {"ref", "name", "dtype", "shape", "volatile", "original_id"}.
    void read_output_entry(const Json& e, VarId v, const std::string& ctx, const std::string& path) {
        if (e.is_string()) {
            g().vars.name[v.value] = g().strings.intern(e.get<std::string>());
            define(e.get<std::string>(), v, ctx, path);
            return;
        }
        if (!e.is_object()) fail(ctx, fmt::format("expected a var name or an object, got {}", kind_of(e)));
        check_keys(e, {"ref", "name", "dtype", "scale", "zero_point", "shape", "volatile", "original_id"}, ctx);
        const Json* name = find(e, "name");
        const Json* ref = find(e, "ref");
        if (name && !name->is_null() && !name->is_string())
            fail(ctx, fmt::format("\"name\": expected a string or null, got {}", kind_of(*name)));
        g().vars.name[v.value] = name && name->is_string() ? g().strings.intern(name->get<std::string>()) : ir::StrId();
        std::string r;
        if (ref) r = string_at(e, "ref", ctx);
        else if (name && name->is_string()) r = name->get<std::string>();
        else fail(ctx, "needs a \"ref\" to be referred to by (or a \"name\")");
        read_output_types(e, v, ctx);
        if (const Json* vol = find(e, "volatile")) {
            if (!vol->is_boolean()) fail(ctx, fmt::format("\"volatile\": expected true or false, got {}", kind_of(*vol)));
            if (vol->get<bool>()) g().vars.flags[v.value] |= ir::kVarVolatile;
        }
        if (const Json* id = find(e, "original_id")) {
            if (!id->is_number_integer() || id->get<int64_t>() < 0 || id->get<uint64_t>() > UINT32_MAX)
                fail(ctx, fmt::format("\"original_id\": expected a non-negative integer, got {}", kind_of(*id)));
            g().vars.original_id[v.value] = static_cast<uint32_t>(id->get<uint64_t>());
        }
        define(r, v, ctx, path);
    }

    // An output's stated "dtype"/"shape": taken where inference found none (a
    // shape only a value computed at run time gives), checked where it did — a
    // graph MegEngine would type differently is refused, not silently retyped.
    // `"dtype": null` (unknown) states nothing, so never contradicts.
    void read_output_types(const Json& e, VarId v, const std::string& ctx) {
        const ir::InferState& inferred = b_.inferred();
        if (const Json* d = find(e, "dtype"); d && !d->is_null()) {
            const ir::DType stated = parse_dtype(*d, find(e, "scale"), find(e, "zero_point"), ctx);
            const ir::DType known =
                v.value < inferred.dtypes.size() ? inferred.dtypes[v.value] : ir::DType::none();
            if (known.valid && stated != known)
                fail(ctx, fmt::format("\"dtype\": {} contradicts the inferred {} (ir/infer.h)",
                                      dtype_to_json(stated).dump(), dtype_to_json(known).dump()));
            g().vars.dtype[v.value] = stated;
        } else if (d && !(v.value < inferred.dtypes.size() && inferred.dtypes[v.value].valid)) {
            g().vars.dtype[v.value] = ir::DType::none();
        }
        if (const Json* s = find(e, "shape")) {
            const std::vector<uint32_t> stated = parse_shape(*s, ctx);
            const ir::Shape known = v.value < inferred.shapes.size() ? inferred.shapes[v.value] : ir::Shape{};
            if (known.known() && !std::ranges::equal(stated, known.dims()))
                fail(ctx, fmt::format("\"shape\": [{}] contradicts the inferred {} (ir/infer.h)",
                                      fmt::join(stated, ", "), ir::shape_string(known)));
            if (!known.known()) g().vars.shape[v.value] = g().add_dims(stated);
        }
    }

    void read_outputs(const Json& outputs) {
        if (outputs.is_array()) {
            for (size_t i = 0; i < outputs.size(); ++i)
                g().outputs.push_back(resolve(outputs[i], at(fmt::format("outputs[{}]", i))));
            return;
        }
        if (!outputs.is_object())
            fail(at("outputs"), fmt::format("expected a list of var names or an object, got {}", kind_of(outputs)));
        // MegEngine's dict form: each var is renamed to its key; one var may not get two names.
        std::unordered_map<uint32_t, std::string> named;
        for (auto& [key, ref] : outputs.items()) {
            const std::string ctx = at(fmt::format("outputs.{}", key));
            VarId v = resolve(ref, ctx);
            auto [it, fresh] = named.emplace(v.value, key);
            if (!fresh) fail(ctx, fmt::format("var \"{}\" is already output as \"{}\"", ref.get<std::string>(), it->second));
            b_.output(v, key);
        }
    }

    const GraphJsonReadOptions& opt_;
    ir::GraphBuilder b_;
    std::unordered_map<std::string, VarRef> refs_;
    std::string default_cn_ = "xpux:0";
};

}  // namespace

ir::Graph parse_graph_json(std::string_view text, const GraphJsonReadOptions& options) {
    return Reader(options).read(text);
}

ir::Graph read_graph_json_file(const std::filesystem::path& path, std::vector<std::filesystem::path>* npy_files_read,
                               const SideFileCheck& check_side_file) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FormatError(fmt::format("{}: cannot open the graph JSON file", path.string()));
    std::ostringstream text;
    text << in.rdbuf();
    GraphJsonReadOptions options;
    options.label = path.string();
    options.base_dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    options.npy_files_read = npy_files_read;
    options.check_side_file = check_side_file;
    return parse_graph_json(text.str(), options);
}

}  // namespace mgedump::formats
