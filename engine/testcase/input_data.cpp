#include "engine/testcase/input_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "engine/eval/elements.h"
#include "engine/eval/npy_tensor.h"
#include "ir/error.h"

namespace mgedump::engine::testcase {
namespace {

namespace fs = std::filesystem;

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    for (size_t at = 0;;) {
        const size_t next = s.find(sep, at);
        parts.push_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
        if (next == std::string_view::npos) return parts;
        at = next + 1;
    }
}

bool parse_double(std::string_view s, double& out) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size() && std::isfinite(out);
}

// "#rand(min,max[,d0,...])", MegEngine's `^#rand\(([-0-9.]*)\s*,\s*([-0-9.]*)\s*(,[^\)]+)?\)$`.
RandomValues parse_rand(std::string_view src, std::string_view spec) {
    auto bad = [&](std::string_view why) {
        return OptionError(
            fmt::format("input data '{}': '{}' {} (random data is #rand(min,max) or "
                        "#rand(min,max,d0,d1,...), '...' ending the shape with the input's dims)",
                        spec, src, why));
    };
    constexpr std::string_view kOpen = "#rand(";
    if (!src.starts_with(kOpen) || !src.ends_with(")")) throw bad("is not #rand(...)");
    const std::vector<std::string_view> args =
        split(src.substr(kOpen.size(), src.size() - kOpen.size() - 1), ',');
    if (args.size() < 2) throw bad("needs a min and a max");
    RandomValues r;
    if (!parse_double(args[0], r.min) || !parse_double(args[1], r.max))
        throw bad("has a bound that is not a number");
    if (r.min > r.max) throw bad("has min > max");
    for (size_t i = 2; i < args.size(); ++i) {
        const std::string_view d = trim(args[i]);
        uint32_t dim = 0;
        const bool dots = d == "...";
        if (dots && i + 1 != args.size()) throw bad("has '...' before its last dim");
        if (!dots) {
            const auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), dim);
            if (d.empty() || ec != std::errc() || end != d.data() + d.size() || dim == 0)
                throw bad(fmt::format("has a dim '{}' that is not a positive integer", d));
        }
        r.shape.emplace_back(d);
    }
    return r;
}

fs::path resolve(const fs::path& p, const fs::path& data_dir) {
    return p.is_absolute() || data_dir.empty() ? p : data_dir / p;
}

std::string input_list(const std::vector<eval::GraphInput>& inputs) {
    std::string s;
    for (const auto& in : inputs)
        s += fmt::format("{}{} ({} {})", s.empty() ? "" : ", ", in.name, ir::dtype_string(in.dtype),
                         ir::shape_string(in.shape));
    return s.empty() ? "none" : s;
}

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Whether `read` repeated `repeat` times along axis 0 is `want`, without making it.
bool repeated_fits(const ir::Shape& read, uint32_t repeat, const ir::Shape& want) {
    if (read.ndim != want.ndim || read.ndim == 0) return false;
    if (uint64_t{read[0]} * repeat != want[0]) return false;
    for (uint32_t i = 1; i < read.ndim; ++i)
        if (read[i] != want[i]) return false;
    return true;
}

// ir::shape_string of `read` repeated along axis 0, counted in 64 bits.
std::string repeated_shape_string(const ir::Shape& read, uint32_t repeat) {
    if (read.ndim == 0) return ir::shape_string(read);
    std::string s = fmt::format("[{}", uint64_t{read[0]} * repeat);
    for (uint32_t i = 1; i < read.ndim; ++i) s += fmt::format(",{}", read[i]);
    return s + "]";
}

// numpy.repeat(data, repeat, axis=0): every slice along axis 0 `repeat` times in a row.
eval::Tensor repeat_axis0(const eval::Tensor& t, uint32_t repeat) {
    if (repeat == 1) return t;
    ir::Shape shape = t.shape();
    const uint64_t rows = shape[0];
    const size_t row_bytes = rows ? t.bytes().size() / rows : 0;
    shape[0] = static_cast<uint32_t>(rows * repeat);
    eval::Tensor out(t.dtype(), shape);
    std::byte* to = out.mutable_bytes().data();
    for (uint64_t r = 0; r < rows; ++r)
        for (uint32_t k = 0; k < repeat; ++k, to += row_bytes)
            std::memcpy(to, t.bytes().data() + r * row_bytes, row_bytes);
    return out;
}

// The shape a #rand gives: its own dims ("..." filled from the input's), or the input's.
ir::Shape rand_shape(const RandomValues& r, const ir::Shape& input) {
    if (r.shape.empty()) return input;
    std::vector<uint32_t> dims;
    for (const std::string& d : r.shape) {
        if (d == "...") {
            for (uint32_t i = static_cast<uint32_t>(dims.size()); i < input.ndim; ++i)
                dims.push_back(input[i]);
        } else {
            dims.push_back(static_cast<uint32_t>(std::stoul(d)));
        }
    }
    return ir::Shape::of(dims);
}

}  // namespace

CaseSpec parse_case_spec(std::string_view spec) {
    CaseSpec c;
    c.text = std::string(spec);
    if (trim(spec).empty()) throw OptionError("input data: an empty test-case SPEC");
    for (std::string_view item : split(spec, ';')) {
        item = trim(item);
        if (item.empty()) throw OptionError(fmt::format("input data '{}': an empty item between ';'", spec));
        InputSource s;
        std::string_view src = item;
        // MegEngine splits "name:source" at the colon; a source alone has none (or starts with '#').
        if (const size_t colon = item.find(':'); colon != std::string_view::npos && !item.starts_with('#')) {
            s.input = std::string(trim(item.substr(0, colon)));
            src = trim(item.substr(colon + 1));
            if (s.input.empty())
                throw OptionError(fmt::format("input data '{}': '{}' names no input", spec, item));
            if (src.empty())
                throw OptionError(fmt::format("input data '{}': '{}' gives no data", spec, item));
        }
        if (src.starts_with('#'))
            s.values = parse_rand(src, spec);
        else
            s.values = fs::path(std::string(src));
        c.sources.push_back(std::move(s));
    }
    return c;
}

std::vector<std::string> expand_input_data(const std::vector<std::string>& input_data,
                                           const fs::path& data_dir) {
    std::vector<std::string> specs;
    for (const std::string& item : input_data) {
        if (!item.starts_with('@')) {
            specs.push_back(item);
            continue;
        }
        const fs::path list = resolve(item.substr(1), data_dir);
        std::ifstream in(list);
        if (!in)
            throw OptionError(fmt::format("input data '{}': cannot read {}: {}", item, list.string(),
                                          std::strerror(errno)));
        for (std::string line; std::getline(in, line);) {
            while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
            if (!line.empty()) specs.push_back(line);
        }
    }
    return specs;
}

uint64_t stream_seed(uint64_t seed, uint64_t case_index, std::string_view name) {
    uint64_t s = case_index;
    uint64_t h = 1469598103934665603ull ^ seed ^ splitmix(s);
    for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    return h;
}

eval::Tensor random_tensor(ir::DType dtype, const ir::Shape& shape, double min, double max, uint64_t seed) {
    const uint64_t n = shape.elements();
    std::vector<double> v(n);
    uint64_t state = seed;
    for (double& x : v) x = min + (max - min) * (static_cast<double>(splitmix(state) >> 11) * 0x1.0p-53);
    if (eval::is_float_dtype(dtype.type)) return eval::from_doubles(dtype, shape, v);
    eval::Tensor t(dtype, shape);
    if (dtype.type == ir::DTypeEnum::Bool) {
        auto out = t.mutable_data<uint8_t>();
        for (uint64_t i = 0; i < n; ++i) out[i] = v[i] != 0;
        return t;
    }
    eval::with_storage_type(dtype.type, [&](auto tag) {
        using T = decltype(tag);
        auto out = t.mutable_data<T>();
        const double lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
        for (uint64_t i = 0; i < n; ++i) out[i] = static_cast<T>(std::clamp(std::trunc(v[i]), lo, hi));
    });
    return t;
}

eval::Feeds make_case_feeds(const std::vector<eval::GraphInput>& inputs, const CaseSpec& spec, size_t index,
                            const FeedOptions& options) {
    auto fail = [&](std::string_view what) {
        return OptionError(fmt::format("test case {} ('{}'): {}", index, spec.text, what));
    };
    // Which source each input takes its values from.
    std::vector<std::pair<const eval::GraphInput*, const InputSource*>> planned;
    const bool one_unnamed = spec.sources.size() == 1 && spec.sources[0].input.empty();
    if (one_unnamed && std::holds_alternative<RandomValues>(spec.sources[0].values)) {
        for (const auto& in : inputs) planned.emplace_back(&in, &spec.sources[0]);
    } else if (one_unnamed) {
        if (inputs.size() != 1)
            throw fail(
                fmt::format("a file without an input name is for a one-input model; the model's inputs are "
                            "{}: write name:file.npy;name2:file2.npy",
                            input_list(inputs)));
        planned.emplace_back(&inputs[0], &spec.sources[0]);
    } else {
        for (const InputSource& s : spec.sources) {
            if (s.input.empty())
                throw fail(
                    "with several items every item names its input (name:file.npy or name:#rand(min,max))");
            auto it = std::ranges::find(inputs, s.input, &eval::GraphInput::name);
            if (it == inputs.end())
                throw fail(
                    fmt::format("the model has no input '{}' (its inputs: {})", s.input, input_list(inputs)));
            if (std::ranges::find(planned, &*it, [](const auto& p) { return p.first; }) != planned.end())
                throw fail(fmt::format("input '{}' is given twice", s.input));
            planned.emplace_back(&*it, &s);
        }
        for (const auto& in : inputs)
            if (!in.has_default &&
                std::ranges::find(planned, &in, [](const auto& p) { return p.first; }) == planned.end())
                throw fail(fmt::format("no data for input '{}' ({} {}); the model's inputs: {}", in.name,
                                       ir::dtype_string(in.dtype), ir::shape_string(in.shape),
                                       input_list(inputs)));
    }

    eval::Feeds feeds;
    for (const auto& [in, source] : planned) {
        if (!in->shape.known()) throw fail(fmt::format("input '{}' has no known shape", in->name));
        eval::Tensor value;
        if (const auto* r = std::get_if<RandomValues>(&source->values)) {
            const ir::Shape shape = rand_shape(*r, in->shape);
            if (!(shape == in->shape))
                throw fail(fmt::format("input '{}' is {} {}, #rand asks for {}", in->name,
                                       ir::dtype_string(in->dtype), ir::shape_string(in->shape),
                                       ir::shape_string(shape)));
            value =
                random_tensor(in->dtype, shape, r->min, r->max, stream_seed(options.seed, index, in->name));
        } else {
            const fs::path path = resolve(std::get<fs::path>(source->values), options.data_dir);
            try {
                value = eval::read_npy_tensor(path, in->dtype);
            } catch (const Error& e) {
                throw fail(
                    fmt::format("input '{}' ({}): {}", in->name, ir::dtype_string(in->dtype), e.what()));
            }
            const ir::Shape read = value.shape();
            // Checked before repeating: a large `repeat` must not allocate (or wrap
            // rows × repeat around 32 bits) for data that cannot fit anyway.
            if (!repeated_fits(read, options.repeat, in->shape))
                throw fail(fmt::format(
                    "input '{}' is {} {}, {} holds {}{}", in->name, ir::dtype_string(in->dtype),
                    ir::shape_string(in->shape), path.string(), ir::shape_string(read),
                    options.repeat > 1 ? fmt::format(", {} when repeated {} times along axis 0",
                                                     repeated_shape_string(read, options.repeat), options.repeat)
                                       : ""));
            if (options.repeat > 1) value = repeat_axis0(value, options.repeat);
        }
        feeds.emplace(in->name, std::move(value));
    }
    return feeds;
}

std::vector<fs::path> files_read(const std::vector<std::string>& input_data, const fs::path& data_dir) {
    std::vector<fs::path> files;
    auto add = [&](const fs::path& p) {
        if (std::ranges::find(files, p) == files.end()) files.push_back(p);
    };
    for (const std::string& item : input_data)
        if (item.starts_with('@')) add(resolve(item.substr(1), data_dir));
    for (const std::string& spec : expand_input_data(input_data, data_dir))
        for (const InputSource& s : parse_case_spec(spec).sources)
            if (const auto* p = std::get_if<fs::path>(&s.values)) add(resolve(*p, data_dir));
    return files;
}

}  // namespace mgedump::engine::testcase
