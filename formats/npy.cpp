#include "formats/npy.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "formats/tensor_limits.h"
#include "ir/error.h"

namespace mgedump::formats {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

[[noreturn]] void fail(std::string_view what, std::string_view msg) {
    throw FormatError(fmt::format("{}: {}", what, msg));
}

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }. This reads exactly that grammar and nothing more.
class DictParser {
public:
    DictParser(std::string_view text, std::string_view what) : s_(text), what_(what) {}

    NpyHeader parse() {
        NpyHeader h;
        bool have_descr = false, have_order = false, have_shape = false;
        expect('{');
        while (true) {
            skip_ws();
            if (peek() == '}') break;
            std::string key = string_literal();
            expect(':');
            skip_ws();
            if (key == "descr") {
                if (peek() == '[') fail(what_, "structured dtypes are not supported");
                h.descr = string_literal();
                have_descr = true;
            } else if (key == "fortran_order") {
                h.fortran_order = boolean();
                have_order = true;
            } else if (key == "shape") {
                h.shape = tuple();
                have_shape = true;
            } else {
                fail(what_, fmt::format("header has unexpected key '{}'", key));
            }
            skip_ws();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() != '}') fail(what_, "malformed header dict (expected ',' or '}')");
        }
        ++pos_;
        skip_ws();
        if (pos_ != s_.size()) fail(what_, "malformed header (text after the dict)");
        if (!have_descr || !have_order || !have_shape)
            fail(what_, "header lacks one of 'descr', 'fortran_order', 'shape'");
        return h;
    }

private:
    char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
    void skip_ws() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
    }
    void expect(char c) {
        skip_ws();
        if (peek() != c) fail(what_, fmt::format("malformed header dict (expected '{}')", c));
        ++pos_;
    }
    std::string string_literal() {
        skip_ws();
        char q = peek();
        if (q != '\'' && q != '"') fail(what_, "malformed header dict (expected a quoted string)");
        size_t end = s_.find(q, pos_ + 1);
        if (end == std::string_view::npos) fail(what_, "malformed header dict (unterminated string)");
        std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
        return out;
    }
    bool boolean() {
        if (s_.substr(pos_, 4) == "True") return pos_ += 4, true;
        if (s_.substr(pos_, 5) == "False") return pos_ += 5, false;
        fail(what_, "malformed header dict ('fortran_order' is not True or False)");
    }
    std::vector<uint64_t> tuple() {
        std::vector<uint64_t> dims;
        expect('(');
        while (true) {
            skip_ws();
            if (peek() == ')') break;
            if (peek() < '0' || peek() > '9') fail(what_, "malformed header dict (shape holds a non-integer)");
            uint64_t v = 0;
            while (peek() >= '0' && peek() <= '9') {
                if (v > (UINT64_MAX - 9) / 10) fail(what_, "shape dimension is too large");
                v = v * 10 + uint64_t(peek() - '0');
                ++pos_;
            }
            while (peek() == 'L') ++pos_;  // Python 2 long suffix
            dims.push_back(v);
            skip_ws();
            if (peek() == ',') ++pos_;
            else if (peek() != ')') fail(what_, "malformed header dict (bad shape tuple)");
        }
        ++pos_;
        return dims;
    }

    std::string_view s_;
    std::string_view what_;
    size_t pos_ = 0;
};

struct DescrInfo {
    std::string_view descr;  // canonical spelling, as numpy writes it
    ir::DTypeEnum dtype;     // default dtype for this descr
};
constexpr DescrInfo kDescrs[] = {
    {"<f4", ir::DTypeEnum::Float32}, {"<f2", ir::DTypeEnum::Float16}, {"|i1", ir::DTypeEnum::Int8},
    {"|u1", ir::DTypeEnum::Uint8},   {"<i2", ir::DTypeEnum::Int16},   {"<u2", ir::DTypeEnum::Uint16},
    {"<i4", ir::DTypeEnum::Int32},   {"|b1", ir::DTypeEnum::Bool},    {"<c8", ir::DTypeEnum::Complex64},
};

// One-byte types have no byte order; numpy writes "|" but "<" and "=" mean the same.
std::string canonical_descr(std::string_view d) {
    std::string s(d);
    if (s.size() == 3 && s[2] == '1' && (s[0] == '<' || s[0] == '=')) s[0] = '|';
    // "=" is native order; every platform we run on is little-endian.
    if (s.size() >= 2 && s[0] == '=') s[0] = '<';
    return s;
}

struct Mapping {
    void* addr = nullptr;
    size_t size = 0;
    ~Mapping() {
        if (addr) munmap(addr, size);
    }
};

}  // namespace

NpyHeader parse_npy_header(ir::Bytes file, std::string_view what) {
    if (file.size() < 10 || std::memcmp(file.data(), kMagic, kMagicLen) != 0)
        fail(what, "not a .npy file (missing \\x93NUMPY magic)");
    auto byte = [&](size_t i) { return uint8_t(file[i]); };
    uint8_t major = byte(6), minor = byte(7);
    if (major < 1 || major > 3 || minor != 0)
        fail(what, fmt::format(".npy format version {}.{} is not supported (1.0, 2.0, 3.0 are)", major, minor));
    uint64_t header_len, prefix;
    if (major == 1) {
        header_len = byte(8) | (uint64_t(byte(9)) << 8);
        prefix = 10;
    } else {
        if (file.size() < 12) fail(what, "truncated .npy header");
        header_len = byte(8) | (uint64_t(byte(9)) << 8) | (uint64_t(byte(10)) << 16) | (uint64_t(byte(11)) << 24);
        prefix = 12;
    }
    if (prefix + header_len > file.size())
        fail(what, fmt::format("truncated .npy header: it claims {} bytes, the file has {}", header_len,
                               file.size() - prefix));
    std::string_view text(reinterpret_cast<const char*>(file.data()) + prefix, header_len);
    NpyHeader h = DictParser(text, what).parse();
    h.data_offset = prefix + header_len;
    return h;
}

std::optional<ir::DTypeEnum> npy_default_dtype(std::string_view descr) {
    std::string c = canonical_descr(descr);
    for (const DescrInfo& d : kDescrs)
        if (d.descr == c) return d.dtype;
    return std::nullopt;
}

std::optional<std::string_view> npy_descr(ir::DTypeEnum t) {
    using D = ir::DTypeEnum;
    switch (t) {
        case D::Float32: return "<f4";
        case D::Float16: return "<f2";
        case D::BFloat16: return "<u2";
        case D::Int8: case D::QuantizedS8: return "|i1";
        case D::Uint8: case D::Byte: case D::Quantized8Asymm: return "|u1";
        case D::Int16: case D::QuantizedS16: return "<i2";
        case D::Uint16: return "<u2";
        case D::Int32: case D::QuantizedS32: return "<i4";
        case D::Bool: return "|b1";
        case D::Complex64: return "<c8";
        default: return std::nullopt;
    }
}

namespace {

// `a`'s `elements` int64 values replaced by an owned Int32 copy, each checked to
// fit; the copy lies nowhere in the file (no region).
void narrow_to_int32(NpyArray& a, uint64_t elements, const std::string& what) {
    auto narrowed = std::make_shared<std::vector<int32_t>>(elements);
    for (uint64_t i = 0; i < elements; ++i) {
        int64_t x;
        std::memcpy(&x, a.data.data() + i * sizeof(int64_t), sizeof(int64_t));
        if (x < INT32_MIN || x > INT32_MAX)
            fail(what, fmt::format("holds int64 data ('<i8') for an Int32 input, and element {} ({}) does not fit "
                                   "in 32 bits",
                                   i, x));
        (*narrowed)[i] = static_cast<int32_t>(x);
    }
    a.data = ir::Bytes(reinterpret_cast<const std::byte*>(narrowed->data()), elements * sizeof(int32_t));
    a.keepalive = std::move(narrowed);
    a.region = ir::FileRegion{};
}

// read_npy, and with `narrow_int64` a '<i8' file taken for an Int32 `dtype`
// (read_npy_narrowing_int64).
NpyArray read_npy_file(const std::filesystem::path& path, std::optional<ir::DTypeEnum> dtype, bool narrow_int64) {
    const std::string what = path.string();
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(what, fmt::format("cannot open: {}", std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int e = errno;
        ::close(fd);
        fail(what, fmt::format("cannot stat: {}", std::strerror(e)));
    }
    auto mapping = std::make_shared<Mapping>();
    mapping->size = static_cast<size_t>(st.st_size);
    if (mapping->size > 0) {
        void* p = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            ::close(fd);
            fail(what, fmt::format("cannot map: {}", std::strerror(e)));
        }
        mapping->addr = p;
    }
    ::close(fd);  // the mapping stays valid without the descriptor
    ir::Bytes file(static_cast<const std::byte*>(mapping->addr), mapping->size);

    NpyHeader h = parse_npy_header(file, what);
    std::string descr = canonical_descr(h.descr);
    if (!descr.empty() && descr[0] == '>') fail(what, fmt::format("big-endian data ('{}') is not supported", h.descr));
    if (h.fortran_order && h.shape.size() > 1)
        fail(what, "Fortran-order data is not supported; save a C-contiguous array (np.ascontiguousarray)");

    NpyArray a;
    bool narrowing = false;
    if (dtype) {
        auto want = npy_descr(*dtype);
        if (!want) fail(what, fmt::format("dtype {} cannot be stored in a .npy file", ir::dtype_name(*dtype)));
        narrowing = narrow_int64 && *dtype == ir::DTypeEnum::Int32 && descr == "<i8";
        if (descr != *want && !narrowing)
            fail(what, fmt::format("holds '{}' data, but the declared dtype {} is stored as '{}'; save the "
                                   "array as that (numpy: np.save(path, a.astype('{}')))",
                                   h.descr, ir::dtype_name(*dtype), *want, *want));
        a.dtype = *dtype;
    } else {
        auto d = npy_default_dtype(descr);
        if (!d) fail(what, fmt::format("dtype '{}' has no MegEngine counterpart; convert it (e.g. astype) first",
                                       h.descr));
        a.dtype = *d;
    }

    for (uint64_t d : h.shape) {
        if (d > UINT32_MAX) fail(what, fmt::format("dimension {} does not fit in 32 bits", d));
        a.shape.push_back(static_cast<uint32_t>(d));
    }
    // Before the size check multiplies it by the dtype's bits.
    const uint64_t elements = checked_element_count(a.shape, what);
    const uint64_t need = narrowing ? elements * sizeof(int64_t) : ir::dtype_storage_bytes(a.dtype, elements);
    const uint64_t have = file.size() - h.data_offset;
    if (have < need)
        fail(what, fmt::format("truncated: shape ({}) of '{}' needs {} data bytes, the file has {}",
                               fmt::join(h.shape, ", "), h.descr, need, have));
    if (have > need)
        fail(what, fmt::format("{} bytes of trailing data after the array", have - need));
    a.data = file.subspan(h.data_offset, need);
    a.keepalive = std::shared_ptr<const void>(mapping, mapping.get());
    a.region = ir::FileRegion{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                              h.data_offset, need};
    if (narrowing) narrow_to_int32(a, elements, what);
    return a;
}

}  // namespace

NpyArray read_npy(const std::filesystem::path& path, std::optional<ir::DTypeEnum> dtype) {
    return read_npy_file(path, dtype, false);
}

NpyArray read_npy_narrowing_int64(const std::filesystem::path& path) {
    return read_npy_file(path, ir::DTypeEnum::Int32, true);
}

std::vector<std::byte> encode_npy(ir::DTypeEnum dtype, std::span<const uint32_t> shape, ir::Bytes data) {
    auto descr = npy_descr(dtype);
    if (!descr) throw FormatError(fmt::format("dtype {} cannot be stored in a .npy file", ir::dtype_name(dtype)));
    std::string shape_text = shape.size() == 1 ? fmt::format("({},)", shape[0])
                                               : fmt::format("({})", fmt::join(shape, ", "));
    std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", *descr, shape_text);
    // numpy pads with spaces so that magic + length + dict + '\n' is a multiple of 64.
    uint8_t major = dict.size() + 1 + 10 > 65535 ? 2 : 1;
    size_t prefix = major == 1 ? 10 : 12;
    size_t total = prefix + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';

    std::vector<std::byte> out;
    out.reserve(prefix + dict.size() + data.size());
    for (size_t i = 0; i < kMagicLen; ++i) out.push_back(std::byte(uint8_t(kMagic[i])));
    out.push_back(std::byte{major});
    out.push_back(std::byte{0});
    uint64_t len = dict.size();
    for (size_t i = 0; i < prefix - 8; ++i) out.push_back(std::byte((len >> (8 * i)) & 0xff));
    for (char c : dict) out.push_back(std::byte(uint8_t(c)));
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

}  // namespace mgedump::formats
