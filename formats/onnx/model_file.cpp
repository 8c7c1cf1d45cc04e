#include "formats/onnx/model_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>
#include <span>

#include "formats/onnx/onnx_proto.h"
#include "ir/error.h"

namespace mgedump::formats {
namespace {

namespace fs = std::filesystem;

struct Mapping {
    void* addr = nullptr;
    size_t size = 0;
    int fd = -1;  // held open only when asked (MappedImage::fd)
    uint64_t device = 0, inode = 0;
    ~Mapping() {
        if (addr) ::munmap(addr, size);
        if (fd >= 0) ::close(fd);
    }
};

// Maps a whole file read-only; the bytes stay valid while `keepalive` lives. With
// `populate`, every page is mapped up front (one call instead of a fault per few
// pages: cheaper when every byte will be read through the mapping). With
// `keep_open`, the descriptor stays open for as long as the mapping.
const Mapping& map_whole_file(const fs::path& path, std::shared_ptr<const void>& keepalive, std::string_view what,
                              bool populate, bool keep_open = false) {
    // The file is named after the verb only when `what` does not already name it
    // (an external-data file under its model's label): said once is enough.
    // fmt rather than `" " + path.string()`, on which GCC 12 -O3 warns a false -Wrestrict.
    const std::string file = what == path.string() ? std::string() : fmt::format(" {}", path.string());
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw FormatError(fmt::format("{}: cannot open{}: {}", what, file, std::strerror(errno)));
    auto m = std::make_shared<Mapping>();
    m->fd = fd;  // closed with the mapping, or below
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw FormatError(fmt::format("{}: cannot stat{}: {}", what, file, std::strerror(errno)));
    if (!S_ISREG(st.st_mode))
        throw FormatError(fmt::format("{}:{} not a regular file", what, file.empty() ? "" : file + " is"));
    m->size = static_cast<size_t>(st.st_size);
    m->device = static_cast<uint64_t>(st.st_dev);
    m->inode = static_cast<uint64_t>(st.st_ino);
    if (m->size > 0) {
        void* p = ::mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
        if (p == MAP_FAILED)
            throw FormatError(fmt::format("{}: cannot map{}: {}", what, file, std::strerror(errno)));
        m->addr = p;
    }
    if (!keep_open) {
        ::close(m->fd);
        m->fd = -1;
    }
    keepalive = m;
    return *m;
}

ir::Bytes bytes_of(const Mapping& m) { return ir::Bytes(static_cast<const std::byte*>(m.addr), m.size); }

template <class T>
ir::Bytes view_of(const google::protobuf::RepeatedField<T>& f) {
    return ir::Bytes(reinterpret_cast<const std::byte*>(f.data()), static_cast<size_t>(f.size()) * sizeof(T));
}

template <class To, class From>
std::shared_ptr<std::vector<std::byte>> narrow_copy(const google::protobuf::RepeatedField<From>& f) {
    auto out = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(f.size()) * sizeof(To));
    for (int i = 0; i < f.size(); ++i) {
        To v = static_cast<To>(f.Get(i));
        std::memcpy(out->data() + static_cast<size_t>(i) * sizeof(To), &v, sizeof(To));
    }
    return out;
}

}  // namespace

size_t onnx_elem_size(int32_t t) {
    using P = onnx::TensorProto;
    switch (t) {
        case P::FLOAT:
        case P::INT32:
        case P::UINT32:
            return 4;
        case P::UINT8:
        case P::INT8:
        case P::BOOL:
            return 1;
        case P::UINT16:
        case P::INT16:
        case P::FLOAT16:
        case P::BFLOAT16:
            return 2;
        case P::INT64:
        case P::UINT64:
        case P::DOUBLE:
            return 8;
        default:
            return 0;
    }
}

std::string_view onnx_elem_name(int32_t t) {
    if (!onnx::TensorProto_DataType_IsValid(t)) return "UNKNOWN";
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
}

namespace {

// --- The protobuf wire format, as far as the skeleton needs it ---
// https://protobuf.dev/programming-guides/encoding/ : a message is a sequence of
// (tag = field << 3 | wire type, value) records; wire type 2 is a varint length
// and that many bytes. Only ModelProto.graph (7), GraphProto.initializer (5) and
// TensorProto.raw_data (9) are looked into; every other record is copied as is.
constexpr uint32_t kModelGraph = 7, kGraphInitializer = 5, kTensorRawData = 9;
constexpr uint32_t kLengthDelimited = 2;

class WireReader {
  public:
    WireReader(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
    bool done() const { return p_ == end_; }
    const uint8_t* pos() const { return p_; }

    bool varint(uint64_t& v) {
        v = 0;
        for (int shift = 0; shift < 64 && p_ != end_; shift += 7) {
            uint8_t b = *p_++;
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return true;
        }
        return false;
    }
    // The next record's field number and wire type, and for wire type 2 its
    // payload; false on anything this walker does not handle (protobuf then
    // parses the original bytes and says what is wrong, or copes with it).
    bool record(uint32_t& field, uint32_t& wire, std::span<const uint8_t>& payload) {
        uint64_t tag = 0, n = 0;
        if (!varint(tag) || tag > UINT32_MAX || (tag >> 3) == 0) return false;
        field = static_cast<uint32_t>(tag >> 3), wire = static_cast<uint32_t>(tag & 7);
        switch (wire) {
            case 0:
                return varint(n);
            case 1:
                return skip(8);
            case kLengthDelimited:
                if (!varint(n) || n > static_cast<uint64_t>(end_ - p_)) return false;
                payload = {p_, static_cast<size_t>(n)};
                p_ += n;
                return true;
            case 5:
                return skip(4);
            default:  // groups (3, 4) and invalid wire types
                return false;
        }
    }

  private:
    bool skip(size_t n) {
        if (n > static_cast<size_t>(end_ - p_)) return false;
        p_ += n;
        return true;
    }
    const uint8_t* p_;
    const uint8_t* end_;
};

void put_varint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

void put_message(std::string& out, uint32_t field, const std::string& body) {
    put_varint(out, uint64_t{field} << 3 | kLengthDelimited);
    put_varint(out, body.size());
    out += body;
}

enum class Record { Copy, Written, Unreadable };

// Calls `f(field, wire, payload)` per record of `msg`: on Copy the record goes to
// `out` as is, on Written `f` wrote its own. False when a record is unreadable.
template <class F>
bool walk(std::span<const uint8_t> msg, std::string& out, F&& f) {
    WireReader in(msg.data(), msg.data() + msg.size());
    while (!in.done()) {
        const uint8_t* start = in.pos();
        uint32_t field = 0, wire = 0;
        std::span<const uint8_t> payload;
        if (!in.record(field, wire, payload)) return false;
        Record r = f(field, wire, payload);
        if (r == Record::Unreadable) return false;
        if (r == Record::Copy)
            out.append(reinterpret_cast<const char*>(start), static_cast<size_t>(in.pos() - start));
    }
    return true;
}

// The skeleton: the model's bytes without the raw_data of its graph's initializers,
// and per initializer (in the order protobuf will hold them: repeated fields of
// every occurrence of the graph concatenate) the span of its last raw_data record
// (protobuf keeps the last of a repeated singular field), if it had one.
struct Skeleton {
    std::string bytes;
    std::vector<std::optional<std::span<const uint8_t>>> raw_data;
};

bool strip_tensor(std::span<const uint8_t> tensor, std::string& out, Skeleton& sk) {
    std::optional<std::span<const uint8_t>> raw;
    bool ok = walk(tensor, out, [&](uint32_t field, uint32_t wire, std::span<const uint8_t> payload) {
        if (field != kTensorRawData || wire != kLengthDelimited) return Record::Copy;
        raw = payload;
        return Record::Written;  // left out
    });
    sk.raw_data.push_back(raw);
    return ok;
}

bool strip_graph(std::span<const uint8_t> graph, std::string& out, Skeleton& sk) {
    return walk(graph, out, [&](uint32_t field, uint32_t wire, std::span<const uint8_t> payload) {
        if (field != kGraphInitializer || wire != kLengthDelimited) return Record::Copy;
        std::string tensor;
        if (!strip_tensor(payload, tensor, sk)) return Record::Unreadable;
        put_message(out, field, tensor);
        return Record::Written;
    });
}

std::optional<Skeleton> strip_model(std::span<const uint8_t> model) {
    Skeleton sk;
    bool ok = walk(model, sk.bytes, [&](uint32_t field, uint32_t wire, std::span<const uint8_t> payload) {
        if (field != kModelGraph || wire != kLengthDelimited) return Record::Copy;
        std::string graph;
        if (!strip_graph(payload, graph, sk)) return Record::Unreadable;
        put_message(sk.bytes, field, graph);
        return Record::Written;
    });
    if (!ok) return std::nullopt;
    return sk;
}

// nullptr when the bytes are not a ModelProto.
std::shared_ptr<onnx::ModelProto> parse_proto(std::span<const uint8_t> bytes) {
    auto proto = std::make_shared<onnx::ModelProto>();
    google::protobuf::io::CodedInputStream in(bytes.data(), static_cast<int>(bytes.size()));
    in.SetTotalBytesLimit(INT_MAX);  // older protobufs stop at 64 MB by default
    if (!proto->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) return nullptr;
    return proto;
}

void check_size(uint64_t size, std::string_view label) {
    if (size > static_cast<uint64_t>(INT_MAX))
        throw FormatError(
            fmt::format("{}: {} bytes is more than a protobuf message can hold (2 GiB); "
                        "store the weights as external data",
                        label, size));
}

}  // namespace

OnnxModelFile parse_onnx_model(ir::Bytes bytes, std::string label, fs::path base_dir,
                               std::shared_ptr<const void> owner) {
    check_size(bytes.size(), label);
    if (!owner) {
        auto copy = std::make_shared<std::vector<std::byte>>(bytes.begin(), bytes.end());
        bytes = ir::Bytes(copy->data(), copy->size());
        owner = std::move(copy);
    }
    const std::span<const uint8_t> image(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    OnnxModelFile model{nullptr, std::move(label), std::move(base_dir), {}, nullptr};
    // Whatever the walker or protobuf does not take from the skeleton (records the
    // walker does not read, a skeleton that does not parse, initializers counted
    // differently), protobuf parses from the original bytes instead, so damaged
    // files fail exactly as they would without the skeleton.
    if (std::optional<Skeleton> sk = strip_model(image)) {
        auto proto =
            parse_proto(std::span(reinterpret_cast<const uint8_t*>(sk->bytes.data()), sk->bytes.size()));
        if (proto && static_cast<size_t>(proto->graph().initializer_size()) == sk->raw_data.size()) {
            const auto& inits = proto->graph().initializer();
            for (int i = 0; i < inits.size(); ++i)
                if (const auto& raw = sk->raw_data[static_cast<size_t>(i)])
                    model.inline_raw_data.emplace(
                        &inits.Get(i),
                        ir::Bytes(reinterpret_cast<const std::byte*>(raw->data()), raw->size()));
            model.proto = std::move(proto);
            model.image = std::move(owner);
        }
    }
    if (!model.proto) model.proto = parse_proto(image);
    if (!model.proto)
        throw FormatError(
            fmt::format("{}: not an ONNX model (the bytes do not parse as onnx.ModelProto)", model.label));
    if (!model.proto->has_graph())
        throw FormatError(fmt::format("{}: not an ONNX model (ModelProto has no graph)", model.label));
    return model;
}

OnnxModelFile read_onnx_model(const fs::path& path) {
    const std::string label = path.string();
    std::shared_ptr<const void> mapping;
    // Not populated: parsing touches the message skeleton only, and a dump into a
    // file preads the weights through the descriptor kept open (ir::BlobStore::file_descriptor).
    const Mapping& m = map_whole_file(path, mapping, label, /*populate=*/false, /*keep_open=*/true);
    const MappedImage image{bytes_of(m), m.device, m.inode, m.fd};
    OnnxModelFile model = parse_onnx_model(image.bytes, label,
                                           path.parent_path().empty() ? fs::path(".") : path.parent_path(),
                                           std::move(mapping));
    model.file = image;
    return model;
}

ir::Bytes OnnxTensorReader::map_external(const std::string& location, std::shared_ptr<const void>& keepalive,
                                         std::string_view tensor) const {
    fs::path rel(location);
    if (rel.is_absolute() || location.find("..") != std::string::npos)
        throw FormatError(
            fmt::format("{}: initializer '{}': external data location '{}' must stay inside the "
                        "model's directory",
                        model_.label, tensor, location));
    auto it = mappings_.find(location);
    if (it == mappings_.end()) {
        run_side_file_check(model_.check_side_file, model_.base_dir / rel,
                            fmt::format("{}: initializer '{}': external data '{}'", model_.label, tensor, location));
        std::shared_ptr<const void> m;
        map_whole_file(model_.base_dir / rel, m, fmt::format("{}: initializer '{}'", model_.label, tensor),
                       /*populate=*/false);
        it = mappings_.emplace(location, std::move(m)).first;
    }
    keepalive = it->second;
    return bytes_of(*static_cast<const Mapping*>(keepalive.get()));
}

std::vector<fs::path> OnnxTensorReader::external_files() const {
    std::vector<fs::path> out;
    for (const auto& [location, mapping] : mappings_) out.push_back(model_.base_dir / location);
    return out;
}

OnnxTensorBytes OnnxTensorReader::read(const onnx::TensorProto& t) const {
    using P = onnx::TensorProto;
    OnnxTensorBytes out;
    out.elem_type = t.data_type();
    out.dims.assign(t.dims().begin(), t.dims().end());
    const std::string& name = t.name();
    auto fail = [&](std::string_view what) -> void {
        throw FormatError(fmt::format("{}: tensor '{}': {}", model_.label, name, what));
    };
    const size_t elem = onnx_elem_size(out.elem_type);
    if (elem == 0) fail(fmt::format("element type {} is not supported", onnx_elem_name(out.elem_type)));
    uint64_t count = 1;
    for (int64_t d : out.dims) {
        if (d < 0) fail(fmt::format("negative dimension {}", d));
        count *= static_cast<uint64_t>(d);
    }
    const uint64_t want = count * elem;

    if (t.data_location() == P::EXTERNAL) {
        std::string location;
        uint64_t offset = 0, length = want;
        bool has_length = false;
        for (const auto& kv : t.external_data()) {
            if (kv.key() == "location")
                location = kv.value();
            else if (kv.key() == "offset")
                offset = std::stoull(kv.value());
            else if (kv.key() == "length")
                length = std::stoull(kv.value()), has_length = true;
        }
        if (location.empty()) fail("external data without a location");
        ir::Bytes file = map_external(location, out.keepalive, name);
        if (offset > file.size() || length > file.size() - offset)
            fail(fmt::format("external data [{}, +{}) lies outside '{}' ({} bytes)", offset, length, location,
                             file.size()));
        if (has_length && length != want)
            fail(
                fmt::format("external data length {} is not the {} bytes its "
                            "shape and type need",
                            length, want));
        out.bytes = file.subspan(offset, want);
        return out;
    }
    // Views into `t` live as long as the message does.
    std::shared_ptr<const void> message = model_.proto;
    if (auto it = model_.inline_raw_data.find(&t); it != model_.inline_raw_data.end()) {
        out.bytes = it->second;
        out.keepalive = model_.image;
    } else if (t.has_raw_data()) {
        out.bytes = ir::Bytes(reinterpret_cast<const std::byte*>(t.raw_data().data()), t.raw_data().size());
        out.keepalive = message;
    } else if (out.elem_type == P::FLOAT) {
        out.bytes = view_of(t.float_data()), out.keepalive = message;
    } else if (out.elem_type == P::INT64) {
        out.bytes = view_of(t.int64_data()), out.keepalive = message;
    } else if (out.elem_type == P::DOUBLE) {
        out.bytes = view_of(t.double_data()), out.keepalive = message;
    } else if (out.elem_type == P::INT32) {
        out.bytes = view_of(t.int32_data()), out.keepalive = message;
    } else {
        // int32_data holds the narrow integer types (and float16 bits) widened.
        std::shared_ptr<std::vector<std::byte>> copy;
        if (elem == 1)
            copy = narrow_copy<uint8_t>(t.int32_data());
        else if (elem == 2)
            copy = narrow_copy<uint16_t>(t.int32_data());
        else if (out.elem_type == P::UINT32 || out.elem_type == P::UINT64) {
            copy =
                elem == 4 ? narrow_copy<uint32_t>(t.uint64_data()) : narrow_copy<uint64_t>(t.uint64_data());
        } else
            fail(fmt::format("no data for element type {}", onnx_elem_name(out.elem_type)));
        out.bytes = ir::Bytes(copy->data(), copy->size());
        out.keepalive = copy;
    }
    if (out.bytes.size() != want)
        fail(fmt::format("holds {} bytes, but its shape and type need {}", out.bytes.size(), want));
    return out;
}

}  // namespace mgedump::formats
