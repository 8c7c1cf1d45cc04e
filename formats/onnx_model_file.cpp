#include "formats/onnx_model_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "ir/error.h"

namespace mgedump::formats {
namespace {

namespace fs = std::filesystem;

struct Mapping {
    void* addr = nullptr;
    size_t size = 0;
    ~Mapping() {
        if (addr) ::munmap(addr, size);
    }
};

// Maps a whole file read-only; the bytes stay valid while `keepalive` lives.
ir::Bytes map_whole_file(const fs::path& path, std::shared_ptr<const void>& keepalive,
                         std::string_view what) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw FormatError(fmt::format("{}: cannot open {}: {}", what, path.string(), std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int e = errno;
        ::close(fd);
        throw FormatError(fmt::format("{}: cannot stat {}: {}", what, path.string(), std::strerror(e)));
    }
    auto m = std::make_shared<Mapping>();
    m->size = static_cast<size_t>(st.st_size);
    if (m->size > 0) {
        void* p = ::mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            ::close(fd);
            throw FormatError(fmt::format("{}: cannot map {}: {}", what, path.string(), std::strerror(e)));
        }
        m->addr = p;
    }
    ::close(fd);
    ir::Bytes bytes(static_cast<const std::byte*>(m->addr), m->size);
    keepalive = std::move(m);
    return bytes;
}

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

OnnxModelFile parse_from(google::protobuf::io::CodedInputStream& in, std::string label, fs::path base_dir) {
    auto proto = std::make_shared<onnx::ModelProto>();
    in.SetTotalBytesLimit(INT_MAX);  // older protobufs stop at 64 MB by default
    if (!proto->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
        throw FormatError(
            fmt::format("{}: not an ONNX model (the bytes do not parse as onnx.ModelProto)", label));
    if (!proto->has_graph())
        throw FormatError(fmt::format("{}: not an ONNX model (ModelProto has no graph)", label));
    return OnnxModelFile{std::move(proto), std::move(label), std::move(base_dir)};
}

void check_size(uint64_t size, std::string_view label) {
    if (size > static_cast<uint64_t>(INT_MAX))
        throw FormatError(
            fmt::format("{}: {} bytes is more than a protobuf message can hold (2 GiB); "
                        "store the weights as external data",
                        label, size));
}

}  // namespace

OnnxModelFile parse_onnx_model(ir::Bytes bytes, std::string label, fs::path base_dir) {
    check_size(bytes.size(), label);
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    return parse_from(in, std::move(label), std::move(base_dir));
}

// Streamed through a small buffer rather than mapped: the message holds the one copy
// of inline weights, and the whole file is never resident beside it.
OnnxModelFile read_onnx_model(const fs::path& path) {
    const std::string label = path.string();
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw FormatError(fmt::format("{}: cannot open: {}", label, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) > static_cast<uint64_t>(INT_MAX)) {
        ::close(fd);
        check_size(static_cast<uint64_t>(st.st_size), label);
        throw FormatError(fmt::format("{}: cannot stat", label));
    }
    google::protobuf::io::FileInputStream file(fd, 1 << 20);
    file.SetCloseOnDelete(true);
    google::protobuf::io::CodedInputStream in(&file);
    return parse_from(in, label, path.parent_path().empty() ? fs::path(".") : path.parent_path());
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
        std::shared_ptr<const void> m;
        map_whole_file(model_.base_dir / rel, m, fmt::format("{}: initializer '{}'", model_.label, tensor));
        it = mappings_.emplace(location, std::move(m)).first;
    }
    keepalive = it->second;
    auto* mapping = static_cast<const Mapping*>(keepalive.get());
    return ir::Bytes(static_cast<const std::byte*>(mapping->addr), mapping->size);
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
    if (t.has_raw_data()) {
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
