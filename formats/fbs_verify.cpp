#include "formats/fbs_verify.h"

#include <fmt/format.h>

#include <vector>

namespace mgedump::formats::fbsv {
namespace {

using flatbuffers::Table;
using flatbuffers::uoffset_t;
using flatbuffers::Verifier;
using flatbuffers::voffset_t;

constexpr voffset_t vt(uint8_t slot) { return static_cast<voffset_t>(4 + 2 * slot); }

// Walks one buffer; remembers where the first failure happened so the reader's
// error can name it. The trail is built while unwinding (innermost first).
struct Walker {
    Verifier& v;
    const uint8_t* buf;
    std::vector<std::string> trail;
    size_t table_offset = 0;
    bool failed = false;

    bool fail(const Table* t, std::string what) {
        if (!failed) {
            failed = true;
            table_offset = static_cast<size_t>(reinterpret_cast<const uint8_t*>(t) - buf);
        }
        trail.push_back(std::move(what));
        return false;
    }

    // Every element of a vector of offsets must point forward, inside the buffer.
    bool offsets_ok(const flatbuffers::Vector<uoffset_t>* vec) {
        for (uoffset_t i = 0; i < vec->size(); ++i) {
            const auto* elem = reinterpret_cast<const uint8_t*>(vec->Data()) + i * sizeof(uoffset_t);
            if (!v.VerifyOffset(static_cast<size_t>(elem - buf))) return false;
        }
        return true;
    }

    bool table(const TableSpec& spec, const Table* t) {
        if (!t->VerifyTableStart(v)) return fail(t, std::string(spec.name) + " (table header)");
        for (const FieldSpec& f : spec.fields)
            if (!field(spec, f, t)) return fail(t, std::string(spec.name) + "." + std::string(f.name));
        v.EndTable();
        return true;
    }

    bool field(const TableSpec& spec, const FieldSpec& f, const Table* t) {
        const voffset_t off = vt(f.slot);
        if (f.required && !t->CheckField(off)) return false;
        switch (f.kind) {
            case Kind::Scalar:
                return t->VerifyField<uint8_t>(v, off, f.size) && verify_size(t, off, f.size);
            case Kind::Struct:
                return t->VerifyField<uint8_t>(v, off, f.align ? f.align : f.size) && verify_size(t, off, f.size);
            case Kind::String:
                return t->VerifyOffset(v, off) && v.VerifyString(t->GetPointer<const flatbuffers::String*>(off));
            case Kind::Table: {
                if (!t->VerifyOffset(v, off)) return false;
                const auto* sub = t->GetPointer<const Table*>(off);
                return !sub || table(*f.table, sub);
            }
            case Kind::DType:
                return t->VerifyOffset(v, off) && verify_dtype_cb(t->GetPointer<const Table*>(off));
            case Kind::Union: {
                if (!t->VerifyOffset(v, off)) return false;
                const uint8_t type = t->GetField<uint8_t>(vt(f.type_slot), 0);
                const auto* value = t->GetPointer<const Table*>(off);
                if (type == 0 || !value) return true;
                return f.member(v, buf, type, value);
            }
            case Kind::VecScalar:
            case Kind::VecStruct: {
                if (!t->VerifyOffset(v, off)) return false;
                const auto* vec = t->GetPointer<const uint8_t*>(off);
                if (!vec) return true;
                const size_t align = f.kind == Kind::VecStruct && f.align ? f.align : f.size;
                // A vector's elements start right after its uint32 length.
                const size_t data = static_cast<size_t>(vec - buf) + sizeof(uoffset_t);
                return v.VerifyVectorOrString(vec, f.size) && (align <= 4 || v.VerifyAlignment(data, align));
            }
            case Kind::VecString: {
                if (!t->VerifyOffset(v, off)) return false;
                const auto* vec = t->GetPointer<const flatbuffers::Vector<uoffset_t>*>(off);
                if (!vec) return true;
                return v.VerifyVector(vec) && offsets_ok(vec) &&
                       v.VerifyVectorOfStrings(
                           reinterpret_cast<const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>*>(
                               vec));
            }
            case Kind::VecTable: {
                if (!t->VerifyOffset(v, off)) return false;
                const auto* vec = t->GetPointer<const flatbuffers::Vector<uoffset_t>*>(off);
                if (!vec) return true;
                if (!v.VerifyVector(vec) || !offsets_ok(vec)) return false;
                const auto* tables = reinterpret_cast<const flatbuffers::Vector<flatbuffers::Offset<Table>>*>(vec);
                for (uoffset_t i = 0; i < tables->size(); ++i)
                    if (!table(*f.table, tables->Get(i))) {
                        trail.push_back(fmt::format("[{}]", i));
                        return false;
                    }
                return true;
            }
            case Kind::VecUnion: {
                if (!t->VerifyOffset(v, off) || !t->VerifyOffset(v, vt(f.type_slot))) return false;
                const auto* values = t->GetPointer<const flatbuffers::Vector<uoffset_t>*>(off);
                const auto* types = t->GetPointer<const flatbuffers::Vector<uint8_t>*>(vt(f.type_slot));
                // As generated code: both present with equal lengths, or both absent.
                if (!values || !types) return !values && !types;
                if (!v.VerifyVector(values) || !v.VerifyVector(types) || values->size() != types->size() ||
                    !offsets_ok(values))
                    return false;
                const auto* tables = reinterpret_cast<const flatbuffers::Vector<flatbuffers::Offset<Table>>*>(values);
                for (uoffset_t i = 0; i < tables->size(); ++i)
                    if (types->Get(i) != 0 && !f.member(v, buf, types->Get(i), tables->Get(i))) return false;
                return true;
            }
        }
        (void)spec;
        return false;
    }

    // VerifyField checks alignment and sizeof(uint8_t); the real width is checked here.
    bool verify_size(const Table* t, voffset_t off, size_t size) {
        const voffset_t field = t->GetOptionalFieldOffset(off);
        if (!field) return true;
        return v.Verify(static_cast<size_t>(reinterpret_cast<const uint8_t*>(t) - buf) + field, size);
    }

    bool verify_dtype_cb(const Table* t);
};

}  // namespace
}  // namespace mgedump::formats::fbsv

#include "formats/dtype_codec.h"

namespace mgedump::formats::fbsv {
namespace {

bool Walker::verify_dtype_cb(const Table* t) { return !t || verify_dtype(v, t); }

}  // namespace

bool verify_table(flatbuffers::Verifier& v, const uint8_t* buf, const TableSpec& spec, const flatbuffers::Table* t) {
    // Union callbacks only need the verdict; the outer walk reports the place.
    Walker w{v, buf, {}, 0, false};
    return w.table(spec, t);
}

VerifyResult verify_size_prefixed(const uint8_t* buf, size_t len, const char* identifier, const TableSpec& root) {
    VerifyResult r;
    auto fail = [&](std::string what, size_t at) {
        r.ok = false;
        r.where = std::move(what);
        r.table_offset = at;
        return r;
    };
    if (len < 12 || len >= FLATBUFFERS_MAX_BUFFER_SIZE) return fail("buffer size", 0);
    if (flatbuffers::ReadScalar<uoffset_t>(buf) != len - sizeof(uoffset_t)) return fail("size prefix", 0);
    if (!flatbuffers::BufferHasIdentifier(buf + sizeof(uoffset_t), identifier))
        return fail(fmt::format("file identifier (expected \"{}\")", identifier), 8);
    Verifier::Options opts;
    opts.max_depth = 64;
    opts.max_tables = 1'000'000;
    Verifier v(buf, len, opts);
    const uoffset_t root_off = v.VerifyOffset(sizeof(uoffset_t));
    if (!root_off) return fail("root offset", 4);
    Walker w{v, buf, {}, 0, false};
    const auto* t = reinterpret_cast<const Table*>(buf + sizeof(uoffset_t) + root_off);
    if (w.table(root, t)) return r;
    std::string where;
    for (auto it = w.trail.rbegin(); it != w.trail.rend(); ++it) {
        if (!where.empty() && (*it)[0] != '[') where += " > ";
        where += *it;
    }
    return fail(where, w.table_offset);
}

}  // namespace mgedump::formats::fbsv
