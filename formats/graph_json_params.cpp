// Param fields as JSON values (see graph_json_detail.h and GRAPH_JSON.md).
#include <fmt/format.h>

#include <cstring>

#include "formats/graph_json_detail.h"

namespace mgedump::formats::graph_json {
namespace {

using ir::FieldType;

// MegEngine's schema spells MAX/MIN as MAX_/MIN_ (Python keywords); people and
// C++ write them without the underscore.
std::string_view display_name(std::string_view member) {
    return member.size() > 1 && member.back() == '_' ? member.substr(0, member.size() - 1) : member;
}

const ir::EnumMember* member_by_name(const ir::EnumDesc& e, const std::string& name) {
    if (const ir::EnumMember* m = ir::find_enum_member(e, name)) return m;
    return ir::find_enum_member(e, name + "_");
}

std::string member_list(const ir::EnumDesc& e) {
    std::string out;
    for (const ir::EnumMember& m : e.members) {
        if (!out.empty()) out += ", ";
        out += display_name(m.name);
    }
    return out;
}

int64_t enum_from_json(const Json& j, const ir::EnumDesc& e, std::string_view ctx) {
    auto one = [&](const Json& v) -> int64_t {
        if (!v.is_string()) fail(ctx, fmt::format("expected a {} member name, got {}", e.name, kind_of(v)));
        const ir::EnumMember* m = member_by_name(e, v.get_ref<const std::string&>());
        if (!m)
            fail(ctx, fmt::format("\"{}\" is not a {} member (members: {})", v.get_ref<const std::string&>(),
                                  e.name, member_list(e)));
        return m->value;
    };
    if (j.is_string()) return one(j);
    if (j.is_number_integer()) return j.get<int64_t>();  // a raw value; make_params checks it
    if (e.bit_flags && j.is_array()) {
        int64_t bits = 0;
        for (const Json& v : j) bits |= one(v);
        return bits;
    }
    fail(ctx, fmt::format("expected a {} member name{}, got {}", e.name, e.bit_flags ? " or a list of them" : "",
                          kind_of(j)));
}

Json enum_to_json(int64_t v, const ir::EnumDesc& e) {
    if (const ir::EnumMember* m = ir::find_enum_member(e, static_cast<uint32_t>(v)))
        return std::string(display_name(m->name));
    if (e.bit_flags) {
        Json names = Json::array();
        uint64_t rest = static_cast<uint64_t>(v);
        for (const ir::EnumMember& m : e.members)
            if (m.value && (rest & m.value) == m.value) {
                names.push_back(std::string(display_name(m.name)));
                rest &= ~uint64_t(m.value);
            }
        if (rest == 0) return names;
    }
    return v;
}

void check_keys(const Json& obj, std::initializer_list<std::string_view> keys, std::string_view ctx) {
    for (auto& [k, v] : obj.items()) {
        bool ok = false;
        for (std::string_view allowed : keys) ok = ok || k == allowed;
        if (!ok) fail(ctx, fmt::format("unknown key \"{}\" (expected {})", k, fmt::join(keys, ", ")));
    }
}

int64_t int_from_json(const Json& j, int64_t lo, int64_t hi, std::string_view ctx) {
    if (!j.is_number_integer()) fail(ctx, fmt::format("expected an integer, got {}", kind_of(j)));
    if (j.is_number_unsigned() ? j.get<uint64_t>() > uint64_t(hi) : (j.get<int64_t>() < lo || j.get<int64_t>() > hi))
        fail(ctx, fmt::format("{} is out of range [{}, {}]", j.dump(), lo, hi));
    return j.get<int64_t>();
}

bool bool_from_json(const Json& j, std::string_view ctx) {
    if (!j.is_boolean()) fail(ctx, fmt::format("expected true or false, got {}", kind_of(j)));
    return j.get<bool>();
}

ir::DTypeScalar scalar_from_json(const Json& j, std::string_view ctx) {
    ir::DTypeScalar s;
    if (j.is_number() || j.is_string()) {  // a plain number is a Float32 scalar
        encode_element(j, ir::DTypeEnum::Float32, reinterpret_cast<std::byte*>(s.storage), ctx);
        return s;
    }
    if (!j.is_object())
        fail(ctx, fmt::format("expected a number or {{\"dtype\": ..., \"value\": ...}}, got {}", kind_of(j)));
    check_keys(j, {"dtype", "value", "storage"}, ctx);
    if (!j.contains("dtype") || !j["dtype"].is_string()) fail(ctx, "expected a \"dtype\" name");
    auto t = ir::dtype_from_name(j["dtype"].get<std::string>());
    if (!t) fail(ctx, fmt::format("unknown dtype \"{}\"", j["dtype"].get<std::string>()));
    s.dtype = *t;
    if (j.contains("value") == j.contains("storage")) fail(ctx, "give exactly one of \"value\" and \"storage\"");
    if (j.contains("value")) {
        if (!has_json_elements(*t) || ir::dtype_bits(*t) > 32)
            fail(ctx, fmt::format("a {} scalar must be given as \"storage\" bytes", ir::dtype_name(*t)));
        encode_element(j["value"], *t, reinterpret_cast<std::byte*>(s.storage), fmt::format("{}: value", ctx));
    } else {
        const Json& st = j["storage"];
        if (!st.is_array() || st.size() != 4) fail(ctx, "storage: expected a list of 4 byte values");
        for (size_t i = 0; i < 4; ++i)
            s.storage[i] = static_cast<uint8_t>(int_from_json(st[i], 0, 255, fmt::format("{}: storage[{}]", ctx, i)));
    }
    return s;
}

Json scalar_to_json(const ir::DTypeScalar& s) {
    const auto* bytes = reinterpret_cast<const std::byte*>(s.storage);
    if (s.dtype == ir::DTypeEnum::Float32)
        if (auto v = decode_element(bytes, s.dtype)) return *v;
    Json j = Json::object();
    j["dtype"] = std::string(ir::dtype_name(s.dtype));
    // The unused tail of `storage` must be zero for "value" to reproduce it.
    const size_t used = ir::dtype_bits(s.dtype) / 8;
    bool tail_zero = used <= 4;
    for (size_t i = used; i < 4 && tail_zero; ++i) tail_zero = s.storage[i] == 0;
    std::optional<Json> v;
    if (has_json_elements(s.dtype) && tail_zero) v = decode_element(bytes, s.dtype);
    if (v) {
        j["value"] = *v;
    } else {
        j["storage"] = Json::array({s.storage[0], s.storage[1], s.storage[2], s.storage[3]});
    }
    return j;
}

}  // namespace

ir::ParamArg param_from_json(const Json& j, const ir::FieldDesc& f, std::string_view ctx) {
    switch (f.type) {
        case FieldType::Bool: return bool_from_json(j, ctx);
        case FieldType::Int8:
        case FieldType::UInt8:
        case FieldType::Int32:
        case FieldType::UInt32:
        case FieldType::Int64:
        case FieldType::UInt64:
            if (!j.is_number_integer()) fail(ctx, fmt::format("expected an integer, got {}", kind_of(j)));
            if (j.is_number_unsigned()) return j.get<uint64_t>();
            return j.get<int64_t>();
        case FieldType::Float32:
        case FieldType::Float64: {
            auto d = json_to_float(j);
            if (!d) fail(ctx, fmt::format("expected a number, got {}", kind_of(j)));
            return *d;
        }
        case FieldType::Enum: return enum_from_json(j, *f.enum_type, ctx);
        case FieldType::DTypeEnum:
            if (!j.is_string()) fail(ctx, fmt::format("expected a dtype name, got {}", kind_of(j)));
            if (!ir::dtype_from_name(j.get<std::string>()))
                fail(ctx, fmt::format("unknown dtype \"{}\"", j.get<std::string>()));
            return j.get<std::string>();
        case FieldType::DTypeScalar: return scalar_from_json(j, ctx);
        case FieldType::Int32Vector: {
            if (!j.is_array()) fail(ctx, fmt::format("expected a list of integers, got {}", kind_of(j)));
            std::vector<int32_t> v;
            for (size_t i = 0; i < j.size(); ++i)
                v.push_back(static_cast<int32_t>(
                    int_from_json(j[i], INT32_MIN, INT32_MAX, fmt::format("{}: [{}]", ctx, i))));
            return v;
        }
        case FieldType::AxisDescVector: {
            if (!j.is_array())
                fail(ctx, fmt::format("expected a list of {{\"method\", \"axis\"}} objects, got {}", kind_of(j)));
            std::vector<ir::AxisDesc> v;
            for (size_t i = 0; i < j.size(); ++i) {
                const std::string c = fmt::format("{}: [{}]", ctx, i);
                const Json& e = j[i];
                if (!e.is_object()) fail(c, fmt::format("expected an object, got {}", kind_of(e)));
                check_keys(e, {"method", "axis"}, c);
                if (!e.contains("method") || !e.contains("axis")) fail(c, "needs \"method\" and \"axis\"");
                ir::AxisDesc d;
                const Json& m = e["method"];
                if (m == "ADD_1") d.method = ir::AxisDescMethod::ADD_1;
                else if (m == "REMOVE") d.method = ir::AxisDescMethod::REMOVE;
                else fail(c, fmt::format("method: expected \"ADD_1\" or \"REMOVE\", got {}", kind_of(m)));
                d.axis = static_cast<int32_t>(int_from_json(e["axis"], INT32_MIN, INT32_MAX, c + ": axis"));
                v.push_back(d);
            }
            return v;
        }
        case FieldType::IndexDescMaskVector: {
            if (!j.is_array()) fail(ctx, fmt::format("expected a list of index items, got {}", kind_of(j)));
            std::vector<ir::IndexDescMaskItem> v;
            for (size_t i = 0; i < j.size(); ++i) {
                const std::string c = fmt::format("{}: [{}]", ctx, i);
                const Json& e = j[i];
                if (!e.is_object()) fail(c, fmt::format("expected an object, got {}", kind_of(e)));
                check_keys(e, {"axis", "begin", "end", "step", "idx"}, c);
                if (!e.contains("axis")) fail(c, "needs \"axis\"");
                ir::IndexDescMaskItem item;
                item.axis = static_cast<int8_t>(int_from_json(e["axis"], INT8_MIN, INT8_MAX, c + ": axis"));
                auto flag = [&](const char* k) { return e.contains(k) && bool_from_json(e[k], c + ": " + k); };
                item.begin = flag("begin");
                item.end = flag("end");
                item.step = flag("step");
                item.idx = flag("idx");
                v.push_back(item);
            }
            return v;
        }
        case FieldType::DTypeTable: return parse_dtype(j, nullptr, nullptr, ctx);
    }
    fail(ctx, "field type not supported in JSON");
}

Json param_to_json(const ir::FieldValue& v, const ir::FieldDesc& f) {
    switch (f.type) {
        case FieldType::Bool: return std::get<int64_t>(v) != 0;
        case FieldType::Int8:
        case FieldType::UInt8:
        case FieldType::Int32:
        case FieldType::UInt32:
        case FieldType::Int64: return std::get<int64_t>(v);
        case FieldType::UInt64: return std::get<uint64_t>(v);
        case FieldType::Float32: return float_to_json(std::get<double>(v), true);
        case FieldType::Float64: return float_to_json(std::get<double>(v), false);
        case FieldType::Enum: return enum_to_json(std::get<int64_t>(v), *f.enum_type);
        case FieldType::DTypeEnum:
            return std::string(ir::dtype_name(static_cast<ir::DTypeEnum>(std::get<int64_t>(v))));
        case FieldType::DTypeScalar: return scalar_to_json(std::get<ir::DTypeScalar>(v));
        case FieldType::Int32Vector: return std::get<std::vector<int32_t>>(v);
        case FieldType::AxisDescVector: {
            Json out = Json::array();
            for (const ir::AxisDesc& d : std::get<std::vector<ir::AxisDesc>>(v))
                out.push_back({{"method", d.method == ir::AxisDescMethod::ADD_1 ? "ADD_1" : "REMOVE"},
                               {"axis", d.axis}});
            return out;
        }
        case FieldType::IndexDescMaskVector: {
            Json out = Json::array();
            for (const ir::IndexDescMaskItem& it : std::get<std::vector<ir::IndexDescMaskItem>>(v)) {
                Json e = {{"axis", it.axis}};
                if (it.begin) e["begin"] = true;
                if (it.end) e["end"] = true;
                if (it.step) e["step"] = true;
                if (it.idx) e["idx"] = true;
                out.push_back(std::move(e));
            }
            return out;
        }
        case FieldType::DTypeTable: return dtype_to_json(std::get<ir::DType>(v));
    }
    return nullptr;
}

}  // namespace mgedump::formats::graph_json
