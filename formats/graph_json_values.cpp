// Dtype specs and tensor elements as JSON (see graph_json_detail.h).
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "formats/graph_json_detail.h"
#include "formats/half_bits.h"
#include "ir/error.h"

namespace mgedump::formats::graph_json {
namespace {

using ir::DTypeEnum;


struct IntRange {
    int64_t lo, hi;
    int bytes;
};
std::optional<IntRange> int_range(DTypeEnum t) {
    switch (t) {
        case DTypeEnum::Int8: case DTypeEnum::QuantizedS8: return IntRange{INT8_MIN, INT8_MAX, 1};
        case DTypeEnum::Uint8: case DTypeEnum::Byte: case DTypeEnum::Quantized8Asymm: return IntRange{0, UINT8_MAX, 1};
        case DTypeEnum::Int16: case DTypeEnum::QuantizedS16: return IntRange{INT16_MIN, INT16_MAX, 2};
        case DTypeEnum::Uint16: return IntRange{0, UINT16_MAX, 2};
        case DTypeEnum::Int32: case DTypeEnum::QuantizedS32: return IntRange{INT32_MIN, INT32_MAX, 4};
        default: return std::nullopt;
    }
}

void collect_leaves(const Json& j, std::vector<const Json*>& out) {
    if (j.is_array()) {
        for (const Json& e : j) collect_leaves(e, out);
    } else {
        out.push_back(&j);
    }
}

}  // namespace

void fail(std::string_view ctx, std::string_view msg) { throw FormatError(fmt::format("{}: {}", ctx, msg)); }

std::string kind_of(const Json& j) {
    switch (j.type()) {
        case Json::value_t::null: return "null";
        case Json::value_t::boolean: return "a boolean";
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned: return "an integer";
        case Json::value_t::number_float: return "a number";
        case Json::value_t::string: return fmt::format("the string \"{}\"", j.get_ref<const std::string&>());
        case Json::value_t::array: return "a list";
        case Json::value_t::object: return "an object";
        default: return "an unsupported value";
    }
}

ir::DType parse_dtype(const Json& dtype, const Json* scale, const Json* zero_point, std::string_view ctx) {
    const Json* name = &dtype;
    if (dtype.is_object()) {
        for (auto& [k, v] : dtype.items())
            if (k != "dtype" && k != "scale" && k != "zero_point")
                fail(ctx, fmt::format("dtype: unknown key \"{}\" (expected dtype, scale, zero_point)", k));
        if (scale || zero_point) fail(ctx, "scale/zero_point given both inside and next to \"dtype\"");
        if (!dtype.contains("dtype")) fail(ctx, "dtype: missing key \"dtype\"");
        name = &dtype["dtype"];
        if (dtype.contains("scale")) scale = &dtype["scale"];
        if (dtype.contains("zero_point")) zero_point = &dtype["zero_point"];
    }
    if (!name->is_string()) fail(ctx, fmt::format("dtype: expected a dtype name, got {}", kind_of(*name)));
    const std::string& n = name->get_ref<const std::string&>();
    auto t = ir::dtype_from_name(n);
    if (!t) fail(ctx, fmt::format("unknown dtype \"{}\"", n));
    if (!ir::dtype_is_quantized(*t)) {
        if (scale || zero_point) fail(ctx, fmt::format("dtype {} is not quantized: it takes no scale or zero_point", n));
        return ir::DType::of(*t);
    }
    if (!scale) fail(ctx, fmt::format("quantized dtype {} needs a \"scale\"", n));
    auto s = json_to_float(*scale);
    if (!s || !scale->is_number()) fail(ctx, fmt::format("scale: expected a number, got {}", kind_of(*scale)));
    uint8_t zp = 0;
    if (zero_point) {
        if (!ir::dtype_is_asymmetric(*t))
            fail(ctx, fmt::format("dtype {} is symmetric: it takes no zero_point", n));
        if (!zero_point->is_number_integer() || zero_point->get<int64_t>() < 0 || zero_point->get<int64_t>() > 255)
            fail(ctx, fmt::format("zero_point: expected an integer in [0, 255], got {}", kind_of(*zero_point)));
        zp = static_cast<uint8_t>(zero_point->get<int64_t>());
    }
    return ir::DType::quantized(*t, static_cast<float>(*s), zp);
}

Json dtype_to_json(const ir::DType& d) {
    const std::string name(ir::dtype_name(d.type));
    if (!ir::dtype_is_quantized(d.type)) return name;
    Json j = Json::object();
    j["dtype"] = name;
    j["scale"] = float_to_json(d.scale, true);
    if (ir::dtype_is_asymmetric(d.type)) j["zero_point"] = d.zero_point;
    return j;
}

Json float_to_json(double v, bool is_float32) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (!is_float32) return v;
    // The shortest decimal for the float, read as a double, prints short and reads
    // back (double → float) to the same float.
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
    double d = v;
    std::from_chars(buf, r.ptr, d);
    return d;
}

std::optional<double> json_to_float(const Json& j) {
    if (j.is_number()) return j.get<double>();
    if (j.is_string()) {
        const std::string& s = j.get_ref<const std::string&>();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    return std::nullopt;
}

bool has_json_elements(DTypeEnum t) {
    return int_range(t) || t == DTypeEnum::Float32 || t == DTypeEnum::Float16 || t == DTypeEnum::BFloat16 ||
           t == DTypeEnum::Bool;
}

void encode_element(const Json& v, DTypeEnum t, std::byte* out, std::string_view ctx) {
    if (auto r = int_range(t)) {
        if (!v.is_number_integer())
            fail(ctx, fmt::format("expected an integer ({}), got {}", ir::dtype_name(t), kind_of(v)));
        if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(r->hi)
                                   : (v.get<int64_t>() < r->lo || v.get<int64_t>() > r->hi))
            fail(ctx, fmt::format("{} is out of range for {} [{}, {}]", v.dump(), ir::dtype_name(t), r->lo, r->hi));
        const int64_t x = v.get<int64_t>();
        for (int i = 0; i < r->bytes; ++i) out[i] = std::byte((uint64_t(x) >> (8 * i)) & 0xff);
        return;
    }
    if (t == DTypeEnum::Bool) {
        if (v.is_boolean()) out[0] = std::byte(v.get<bool>() ? 1 : 0);
        else if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1))
            out[0] = std::byte(uint8_t(v.get<int64_t>()));
        else fail(ctx, fmt::format("expected true, false, 0 or 1 (Bool), got {}", kind_of(v)));
        return;
    }
    auto f = json_to_float(v);
    if (!f) fail(ctx, fmt::format("expected a number ({}), got {}", ir::dtype_name(t), kind_of(v)));
    const float x = static_cast<float>(*f);
    if (t == DTypeEnum::Float32) {
        std::memcpy(out, &x, 4);
    } else if (t == DTypeEnum::Float16 || t == DTypeEnum::BFloat16) {
        uint16_t h = t == DTypeEnum::Float16 ? float_to_half(x) : float_to_bfloat16(x);
        out[0] = std::byte(h & 0xff);
        out[1] = std::byte(h >> 8);
    } else {
        fail(ctx, fmt::format("{} values cannot be written as JSON numbers; use \"base64\" or \"npy\"",
                              ir::dtype_name(t)));
    }
}

std::optional<Json> decode_element(const std::byte* in, DTypeEnum t) {
    if (auto r = int_range(t)) {
        uint64_t u = 0;
        for (int i = 0; i < r->bytes; ++i) u |= uint64_t(in[i]) << (8 * i);
        if (r->lo < 0 && (u >> (8 * r->bytes - 1)) & 1) u |= ~uint64_t(0) << (8 * r->bytes);  // sign-extend
        return Json(static_cast<int64_t>(u));
    }
    if (t == DTypeEnum::Bool) {
        uint8_t b = uint8_t(in[0]);
        if (b > 1) return std::nullopt;
        return Json(b == 1);
    }
    if (t == DTypeEnum::Float32) {
        float f;
        std::memcpy(&f, in, 4);
        if (std::isnan(f)) return std::nullopt;  // the payload bits would not survive
        return float_to_json(f, true);
    }
    if (t == DTypeEnum::Float16 || t == DTypeEnum::BFloat16) {
        uint16_t h = uint16_t(uint16_t(in[0]) | (uint16_t(in[1]) << 8));
        float f = t == DTypeEnum::Float16 ? half_to_float(h) : bfloat16_to_float(h);
        if (std::isnan(f)) return std::nullopt;  // NaN payloads would not survive
        return float_to_json(f, true);
    }
    return std::nullopt;
}

std::vector<std::byte> values_to_bytes(const Json& values, DTypeEnum t, uint64_t elements, std::string_view ctx) {
    if (!has_json_elements(t))
        fail(ctx, fmt::format("values: {} values cannot be written as JSON numbers; use \"base64\" or \"npy\"",
                              ir::dtype_name(t)));
    std::vector<const Json*> leaves;
    collect_leaves(values, leaves);
    if (leaves.size() != elements)
        fail(ctx, fmt::format("values: {} numbers given, the shape holds {}", leaves.size(), elements));
    const size_t size = ir::dtype_bits(t) / 8;
    std::vector<std::byte> out(elements * size);
    for (size_t i = 0; i < leaves.size(); ++i)
        encode_element(*leaves[i], t, out.data() + i * size, fmt::format("{}: values[{}]", ctx, i));
    return out;
}

std::vector<std::byte> fill_bytes(const Json& v, DTypeEnum t, uint64_t elements, std::string_view ctx) {
    if (!has_json_elements(t))
        fail(ctx, fmt::format("fill: {} values cannot be written as JSON numbers; use \"base64\" or \"npy\"",
                              ir::dtype_name(t)));
    const size_t size = ir::dtype_bits(t) / 8;
    std::byte one[4];
    encode_element(v, t, one, fmt::format("{}: fill", ctx));
    std::vector<std::byte> out(elements * size);
    for (uint64_t i = 0; i < elements; ++i) std::memcpy(out.data() + i * size, one, size);
    return out;
}

std::optional<Json> bytes_to_values(ir::Bytes bytes, DTypeEnum t) {
    if (!has_json_elements(t)) return std::nullopt;
    const size_t size = ir::dtype_bits(t) / 8;
    Json out = Json::array();
    for (size_t off = 0; off + size <= bytes.size(); off += size) {
        auto e = decode_element(bytes.data() + off, t);
        if (!e) return std::nullopt;
        out.push_back(std::move(*e));
    }
    return out;
}

}  // namespace mgedump::formats::graph_json
