// A FlatBuffers verifier driven by schema-as-data: each table is described by its
// fields (slot, kind, nested table), and one generic walk checks any buffer against
// such a description with flatbuffers::Verifier's primitives — what flatc-generated
// Verify() methods do, without generated code. Union members are checked by
// callbacks (verify_param / verify_dtype for OperatorParam and DType).
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mgedump::formats::fbsv {

enum class Kind : uint8_t {
    Scalar,     // `size` bytes inline
    Struct,     // `size` bytes inline, aligned to `align`
    String,
    Table,      // nested table described by `table`
    DType,      // dtype.fbs DType table
    Union,      // value slot; its type byte is in `type_slot` (declare that slot as a 1-byte Scalar)
    VecScalar,  // vector of `size`-byte scalars
    VecStruct,  // vector of `size`-byte structs
    VecString,
    VecTable,   // vector of tables described by `table`
    VecUnion,   // vector of union values; the type vector is in `type_slot` (declare it as VecScalar 1)
};

// Checks one union member of type `type` (0 = NONE never reaches it). Unknown types
// should return true, as generated union verifiers do: readers reject them later
// with a better message.
// `buf` is the start of the buffer the verifier checks (offsets are relative to it).
using UnionVerifier = bool (*)(flatbuffers::Verifier& v, const uint8_t* buf, uint8_t type, const void* table);

struct TableSpec;

struct FieldSpec {
    std::string_view name;
    uint8_t slot;
    Kind kind;
    uint8_t size = 0;  // Scalar / Struct / VecScalar / VecStruct element size
    uint8_t align = 0;  // Struct / VecStruct alignment (0 = size)
    const TableSpec* table = nullptr;
    uint8_t type_slot = 0;
    UnionVerifier member = nullptr;
    bool required = false;
};

struct TableSpec {
    std::string_view name;
    std::span<const FieldSpec> fields;
};

// Verifies table `t` (already known to be an in-buffer pointer) against `spec`.
// Plain bool form, for use inside union member callbacks.
bool verify_table(flatbuffers::Verifier& v, const uint8_t* buf, const TableSpec& spec, const flatbuffers::Table* t);

struct VerifyResult {
    bool ok = true;
    // On failure: the path of the first bad field ("Graph.oprs[3].tensors[0].shape")
    // and the offset of the innermost table being checked, relative to `buf`.
    std::string where;
    size_t table_offset = 0;
};

// Verifies a size-prefixed FlatBuffer: the uint32 size prefix equals len − 4, the
// 4-byte file identifier, the root offset, and the root table against `root`, with
// MegEngine's limits (depth 64, 1,000,000 tables). `buf` must be 8-byte aligned and
// len < 2 GiB.
VerifyResult verify_size_prefixed(const uint8_t* buf, size_t len, const char* identifier, const TableSpec& root);

}  // namespace mgedump::formats::fbsv
