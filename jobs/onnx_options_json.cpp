#include "jobs/onnx_options_json.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>

namespace mgedump::jobs {
namespace {

constexpr std::array<std::string_view, 3> kOnnxKeys = {"params_as_shared", "fold_batch_norm", "input_shapes"};

void bad(std::vector<std::string>& errors, std::string_view ctx, std::string_view key,
         std::string_view what) {
    errors.push_back(fmt::format("{}: \"{}\": {}", ctx, key, what));
}

// {"NAME": [1, 3, 224, 224], ...}; [] is a scalar input. Dimensions are whole
// numbers from 1, as `--input-shape` takes them. nullopt when anything is wrong.
std::optional<std::map<std::string, std::vector<int64_t>>> shapes_of(const Json& v, std::string_view ctx,
                                                                     std::vector<std::string>& errors) {
    constexpr std::string_view key = "input_shapes";
    if (!v.is_object()) {
        bad(errors, ctx, key,
            fmt::format("expected an object of input name -> list of dimensions, got {}", v.dump()));
        return std::nullopt;
    }
    std::map<std::string, std::vector<int64_t>> out;
    bool ok = true;
    for (const auto& item : v.items()) {
        // Not structured bindings: `wrong` captures them, which clang before 16 refuses.
        const std::string& name = item.key();
        const Json& dims = item.value();
        auto wrong = [&] {
            bad(errors, ctx, key,
                fmt::format(
                    "\"{}\": expected a list of dimensions (whole numbers from 1, e.g. [1, 3, 224, 224]), "
                    "got {}",
                    name, dims.dump()));
            ok = false;
        };
        if (name.empty()) {
            bad(errors, ctx, key, "an input name is empty");
            ok = false;
            continue;
        }
        if (!dims.is_array()) {
            wrong();
            continue;
        }
        std::vector<int64_t> shape;
        for (const Json& d : dims) {
            if (!d.is_number_unsigned() || d.get<uint64_t>() < 1 || d.get<uint64_t>() > UINT32_MAX) break;
            shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
        }
        if (shape.size() != dims.size()) {
            wrong();
            continue;
        }
        out.emplace(name, std::move(shape));
    }
    if (!ok) return std::nullopt;
    return out;
}

}  // namespace

bool is_onnx_option_key(std::string_view key) {
    for (std::string_view k : kOnnxKeys)
        if (k == key) return true;
    return false;
}

formats::OnnxImportOptions apply_onnx_options(const Json& obj, formats::OnnxImportOptions o,
                                              std::string_view ctx, std::vector<std::string>& errors) {
    for (const auto& [k, v] : obj.items()) {
        if (k == "params_as_shared" || k == "fold_batch_norm") {
            if (!v.is_boolean()) {
                bad(errors, ctx, k, fmt::format("expected true or false, got {}", v.dump()));
                continue;
            }
            (k == "params_as_shared" ? o.params_as_shared_device_tensor : o.fold_batch_norm) = v.get<bool>();
        } else if (k == "input_shapes") {
            if (auto shapes = shapes_of(v, ctx, errors)) o.input_shapes = std::move(*shapes);
        }
    }
    return o;
}

Json onnx_options_to_json(const formats::OnnxImportOptions& o) {
    Json shapes = Json::object();
    for (const auto& [name, dims] : o.input_shapes) shapes[name] = dims;  // std::map: name order
    Json j;
    j["params_as_shared"] = o.params_as_shared_device_tensor;
    j["fold_batch_norm"] = o.fold_batch_norm;
    j["input_shapes"] = std::move(shapes);
    return j;
}

}  // namespace mgedump::jobs
