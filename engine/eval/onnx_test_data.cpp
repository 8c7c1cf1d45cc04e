#include "engine/eval/onnx_test_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/eval/elements.h"
#include "engine/eval/half.h"
#include "formats/onnx/onnx_proto.h"
#include "ir/error.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

namespace fs = std::filesystem;
using P = onnx::TensorProto;

// "input_12.pb" → 12; -1 for other names.
int numbered(const std::string& file, const std::string& prefix) {
    if (file.rfind(prefix, 0) != 0 || file.size() < prefix.size() + 4 || file.substr(file.size() - 3) != ".pb") return -1;
    const std::string digits = file.substr(prefix.size(), file.size() - prefix.size() - 3);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return -1;
    return std::stoi(digits);
}

std::vector<formats::OnnxTensorFile> read_numbered(const fs::path& dir, const std::string& prefix) {
    std::vector<std::pair<int, fs::path>> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (int n = numbered(e.path().filename().string(), prefix); n >= 0) files.emplace_back(n, e.path());
    std::sort(files.begin(), files.end());
    std::vector<formats::OnnxTensorFile> out;
    for (size_t i = 0; i < files.size(); ++i) {
        if (files[i].first != static_cast<int>(i))
            throw FormatError(fmt::format("{}: {}{}.pb is missing", dir.string(), prefix, i));
        out.push_back(formats::read_onnx_tensor_file(files[i].second));
    }
    return out;
}

template <class T>
void widen(const formats::OnnxTensorBytes& t, std::vector<double>& out) {
    const size_t n = t.bytes.size() / sizeof(T);
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, t.bytes.data() + i * sizeof(T), sizeof(T));
        out[i] = static_cast<double>(v);
    }
}

bool is_float_elem(int32_t e) { return e == P::FLOAT || e == P::DOUBLE || e == P::FLOAT16 || e == P::BFLOAT16; }

// ONNX's own test data stores bfloat16 tensors as UINT16 (their bits), and
// BFLOAT16 tensors hold the same bits.
bool bfloat16_bits(const formats::OnnxTensorBytes& t) { return t.elem_type == P::UINT16 || t.elem_type == P::BFLOAT16; }

}  // namespace

std::vector<OnnxTestSet> read_onnx_test_sets(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(fmt::format("{}: not a directory", dir.string()));
    std::vector<fs::path> set_dirs;
    if (!read_numbered(dir, "input_").empty() || !read_numbered(dir, "output_").empty()) {
        set_dirs.push_back(dir);
    } else {
        for (const auto& e : fs::directory_iterator(dir))
            if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) set_dirs.push_back(e.path());
        std::sort(set_dirs.begin(), set_dirs.end());
    }
    if (set_dirs.empty())
        throw Error(fmt::format("{}: holds neither input_N.pb files nor test_data_set_* folders", dir.string()));
    std::vector<OnnxTestSet> sets;
    for (const fs::path& d : set_dirs) sets.push_back({d, read_numbered(d, "input_"), read_numbered(d, "output_")});
    return sets;
}

std::vector<double> onnx_values(const formats::OnnxTensorBytes& t) {
    std::vector<double> out;
    switch (t.elem_type) {
        case P::FLOAT: widen<float>(t, out); break;
        case P::DOUBLE: widen<double>(t, out); break;
        case P::INT64: widen<int64_t>(t, out); break;
        case P::INT32: widen<int32_t>(t, out); break;
        case P::INT16: widen<int16_t>(t, out); break;
        case P::INT8: widen<int8_t>(t, out); break;
        case P::UINT8: widen<uint8_t>(t, out); break;
        case P::UINT16: widen<uint16_t>(t, out); break;
        case P::UINT32: widen<uint32_t>(t, out); break;
        case P::UINT64: widen<uint64_t>(t, out); break;
        case P::BOOL: widen<uint8_t>(t, out); break;
        case P::BFLOAT16: {
            widen<uint16_t>(t, out);
            for (double& v : out) v = bfloat16_to_float(static_cast<uint16_t>(v));
            break;
        }
        case P::FLOAT16: {
            widen<uint16_t>(t, out);
            for (double& v : out) v = half_to_float(static_cast<uint16_t>(v));
            break;
        }
        default:
            throw Error(fmt::format("ONNX element type {} has no numeric values", formats::onnx_elem_name(t.elem_type)));
    }
    return out;
}

Feeds onnx_feeds(const ir::Graph& g, const OnnxTestSet& set, const std::vector<std::string>& input_names) {
    const std::vector<GraphInput> inputs = graph_inputs(g);
    Feeds feeds;
    for (size_t k = 0; k < set.inputs.size(); ++k) {
        const formats::OnnxTensorFile& f = set.inputs[k];
        std::string name = f.name;
        auto named = [&](const std::string& n) {
            return std::find_if(inputs.begin(), inputs.end(), [&](const GraphInput& in) { return in.name == n; });
        };
        auto it = named(name);
        if (it == inputs.end() && k < input_names.size()) it = named(name = input_names[k]);
        if (it == inputs.end()) {
            // An ONNX input that nothing computed from it needs (CastLike's `like`,
            // Shape's data) has no Host2DeviceCopy after import: nothing to feed.
            const bool declared = std::find(input_names.begin(), input_names.end(), f.name) != input_names.end() ||
                                  (f.name.empty() && k < input_names.size());
            if (declared) continue;
            throw EvalError(fmt::format("{}: input_{}.pb ('{}') matches no input of the model", set.dir.string(), k, f.name));
        }
        ir::Shape shape = f.value.dims.empty() ? ir::Shape::of({1}) : ir::Shape{};
        if (!f.value.dims.empty()) {
            std::vector<uint32_t> dims(f.value.dims.begin(), f.value.dims.end());
            shape = ir::Shape::of(dims);
        }
        if (it->dtype.type == ir::DTypeEnum::BFloat16 && bfloat16_bits(f.value)) {
            feeds.emplace(it->name, Tensor::copy_of(it->dtype, shape, f.value.bytes));
            continue;
        }
        const std::vector<double> values = onnx_values(f.value);
        if (!is_float_dtype(it->dtype.type) && !ir::dtype_is_quantized(it->dtype.type))
            for (double v : values)
                if (v != std::trunc(v) || v < -2147483648.0 || v > 4294967295.0)
                    throw EvalError(fmt::format("{}: input '{}' holds {}, which its {} input cannot", set.dir.string(),
                                                name, v, ir::dtype_string(it->dtype)));
        feeds.emplace(it->name, from_doubles(it->dtype, shape, values));
    }
    return feeds;
}

OutputCheck check_against_onnx(const Tensor& got, const formats::OnnxTensorBytes& want, std::string name) {
    OutputCheck c;
    c.name = std::move(name);
    std::vector<uint32_t> dims(want.dims.begin(), want.dims.end());
    if (dims.empty()) dims = {1};
    const ir::Shape want_shape = ir::Shape::of(dims);
    if (!(got.shape() == want_shape)) {
        c.problem = fmt::format("shape {} != expected {}", ir::shape_string(got.shape()), ir::shape_string(want_shape));
        return c;
    }
    const bool bf16 = got.dtype().type == ir::DTypeEnum::BFloat16 && bfloat16_bits(want);
    const bool floats = is_float_elem(want.elem_type) || bf16;
    if (floats != is_float_dtype(got.dtype().type)) {
        c.problem = fmt::format("{} result for an ONNX {} output", ir::dtype_string(got.dtype()),
                                formats::onnx_elem_name(want.elem_type));
        return c;
    }
    formats::OnnxTensorBytes as_bf16 = want;
    if (bf16) as_bf16.elem_type = P::BFLOAT16;
    const std::vector<double> a = to_doubles(got), b = onnx_values(as_bf16);
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(a[i] - b[i]);
        bool ok;
        if (std::isnan(b[i]) || std::isnan(a[i])) ok = std::isnan(a[i]) && std::isnan(b[i]);
        else if (std::isinf(b[i]) || std::isinf(a[i])) ok = a[i] == b[i];
        else {
            ok = floats ? d <= 1e-7 + 1e-3 * std::fabs(b[i]) : d == 0;
            c.max_abs = std::max(c.max_abs, d);
            if (b[i] != 0) c.max_rel = std::max(c.max_rel, d / std::fabs(b[i]));
        }
        if (!ok) ++c.mismatched;
    }
    return c;
}

}  // namespace mgedump::engine::eval
