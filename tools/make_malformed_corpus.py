#!/usr/bin/env python3
"""Writes tests/corpus/malformed/: small .mge files that every reader must reject
with a FormatError (never a crash). Each is a valid file — spec Appendix C or a
real MegEngine file — with one thing broken: truncated at a table boundary, a size
that lies, an offset out of range, a wrong identifier, a huge count, an input id
that is not defined yet (a cycle), an unknown operator id, a wrong union type.

Usage: tools/make_malformed_corpus.py [OUT_DIR]   (run from the repository root)
"""
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared")


def spec_hex(heading):
    text = open(os.path.join(SHARED, "spec", "megengine-format.md")).read()
    section = text[text.index(heading):]
    block = section[section.index("```") + 3:]
    block = block[:block.index("```")]
    out = bytearray()
    for line in block.splitlines():
        m = re.match(r"^[0-9a-f]{8}: ((?:[0-9a-f]{2} ?)+)", line)
        if m:
            out += bytes(int(x, 16) for x in m.group(1).split())
    return bytes(out)


class Fb:
    """Just enough FlatBuffers navigation to find a field's bytes."""

    def __init__(self, data, base):
        self.d, self.base = data, base  # base: file offset of the size prefix

    def u32(self, at):
        return struct.unpack_from("<I", self.d, at)[0]

    def root(self):
        return self.base + 4 + self.u32(self.base + 4)

    def field(self, table, slot):
        vtable = table - struct.unpack_from("<i", self.d, table)[0]
        vsize = struct.unpack_from("<H", self.d, vtable)[0]
        off = 4 + 2 * slot
        if off >= vsize:
            return None
        rel = struct.unpack_from("<H", self.d, vtable + off)[0]
        return table + rel if rel else None

    def deref(self, at):
        return at + self.u32(at)

    def vector(self, table, slot):
        f = self.field(table, slot)
        return None if f is None else self.deref(f)

    def table_at(self, vec, i):
        return self.deref(vec + 4 + 4 * i)


def patched(data, at, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, at, value)
    return bytes(b)


def v1_cases(name, data, header):
    fbs = header + struct.unpack_from("<Q", data, header - 8)[0]
    fb = Fb(data, fbs)
    root = fb.root()
    oprs = fb.vector(root, 3)
    cases = {}
    # Truncated at table boundaries: the header, the blob region, the FlatBuffer's
    # root, the operator vector and each operator table.
    cuts = {4, header - 8, header, fbs, fbs + 4, root, oprs}
    for i in range(fb.u32(oprs)):
        cuts.add(fb.table_at(oprs, i))
    for c in sorted(cuts):
        cases[f"{name}_truncated_at_{c}"] = data[:c]
    cases[f"{name}_offset_to_fbs_past_end"] = patched(data, header - 8, "<Q", len(data))
    cases[f"{name}_offset_to_fbs_huge"] = patched(data, header - 8, "<Q", 2**63)
    cases[f"{name}_size_prefix_lies"] = patched(data, fbs, "<I", len(data))
    cases[f"{name}_size_prefix_short"] = patched(data, fbs, "<I", fb.u32(fbs) - 8)
    cases[f"{name}_root_offset_out_of_range"] = patched(data, fbs + 4, "<I", 0x7FFFFFF0)
    cases[f"{name}_root_offset_zero"] = patched(data, fbs + 4, "<I", 0)
    cases[f"{name}_wrong_identifier"] = patched(data, fbs + 8, "4s", b"mgv2")
    cases[f"{name}_wrong_magic"] = patched(data, 0, "4s", b"MGBX")
    cases[f"{name}_opr_vector_count_huge"] = patched(data, oprs, "<I", 0xFFFFFFF0)
    for i in range(fb.u32(oprs)):
        op = fb.table_at(oprs, i)
        tid = fb.field(op, 0)
        if tid is not None:
            cases[f"{name}_op{i}_unknown_type_id"] = patched(data, tid, "<Q", 0x1234567890ABCDEF)
        ptype = fb.field(op, 1)
        if ptype is not None:
            cases[f"{name}_op{i}_param_union_type_wrong"] = patched(data, ptype, "<B", 2)
            cases[f"{name}_op{i}_param_union_type_unknown"] = patched(data, ptype, "<B", 200)
        inputs = fb.vector(op, 3)
        if inputs is not None and fb.u32(inputs) > 0:
            # An input naming this operator's own (not yet defined) output: a cycle.
            cases[f"{name}_op{i}_input_not_yet_defined"] = patched(data, inputs + 4, "<I", i + 100)
            cases[f"{name}_op{i}_inputs_count_huge"] = patched(data, inputs, "<I", 0x3FFFFFFF)
        tensors = fb.vector(op, 7)
        if tensors is not None:
            t = fb.table_at(tensors, 0)
            ds = fb.field(t, 4)
            if ds is not None:
                cases[f"{name}_op{i}_data_size_larger_than_region"] = patched(data, ds, "<I", 0xFFFFFF00)
                cases[f"{name}_op{i}_data_size_too_small"] = patched(data, ds, "<I", 1)
            shape = fb.vector(t, 1)
            # Only a tensor with a value must match its shape (an input's shape is free).
            if ds is not None and shape is not None and fb.u32(shape) > 0:
                cases[f"{name}_op{i}_shape_lies"] = patched(data, shape + 4, "<I", 0xFFFFFFFF)
            cases[f"{name}_op{i}_tensor_count_huge"] = patched(data, tensors, "<I", 0x7FFFFFFF)
    outs = fb.vector(root, 4)
    cases[f"{name}_output_var_undefined"] = patched(data, outs + 4, "<I", 999)
    hash_at = fb.field(root, 1)
    if hash_at is not None:
        cases[f"{name}_hash_zero"] = patched(data, hash_at, "<Q", 0)
    return cases


def v2_cases(name, data):
    fb = Fb(data, 0)
    root = fb.root()
    oprs = fb.vector(root, 2)
    cases = {}
    cuts = {4, 8, 12, root, oprs}
    for i in range(fb.u32(oprs)):
        cuts.add(fb.table_at(oprs, i))
    for c in sorted(cuts):
        cases[f"{name}_truncated_at_{c}"] = data[:c]
    cases[f"{name}_size_prefix_lies"] = patched(data, 0, "<I", len(data) + 100)
    cases[f"{name}_wrong_identifier"] = patched(data, 8, "4s", b"mgb1")
    cases[f"{name}_root_offset_out_of_range"] = patched(data, 4, "<I", 0x7FFFFFF0)
    cases[f"{name}_opr_vector_count_huge"] = patched(data, oprs, "<I", 0xFFFFFFF0)
    for i in range(fb.u32(oprs)):
        op = fb.table_at(oprs, i)
        tid = fb.field(op, 1)
        if tid is not None:
            cases[f"{name}_op{i}_unknown_type_id"] = patched(data, tid, "<Q", 0x1234567890ABCDEF)
        ver = fb.field(op, 12)
        if ver is not None:
            cases[f"{name}_op{i}_wrong_opr_version"] = patched(data, ver, "<I", 7)
        ptype = fb.field(op, 3)
        if ptype is not None:
            cases[f"{name}_op{i}_param_union_type_wrong"] = patched(data, ptype, "<B", 3)
        outputs = fb.vector(op, 8)
        if outputs is not None and fb.u32(outputs) > 0:
            cases[f"{name}_op{i}_output_id_not_dense"] = patched(data, outputs + 4, "<I", 5)
        inputs = fb.vector(op, 7)
        if inputs is not None and fb.u32(inputs) > 0:
            cases[f"{name}_op{i}_input_not_yet_defined"] = patched(data, inputs + 4, "<I", i)
        tensors = fb.vector(op, 11)
        if tensors is not None:
            t = fb.table_at(tensors, 0)
            dvec = fb.vector(t, 6)
            if dvec is not None:
                cases[f"{name}_op{i}_tensor_data_length_lies"] = patched(data, dvec, "<I", fb.u32(dvec) - 4)
                cases[f"{name}_op{i}_tensor_data_length_huge"] = patched(data, dvec, "<I", 0x7FFFFFFF)
            shape = fb.vector(t, 1)
            if dvec is not None and shape is not None and fb.u32(shape) > 0:
                cases[f"{name}_op{i}_shape_lies"] = patched(data, shape + 4, "<I", 0xFFFFFFFF)
    outs = fb.vector(root, 4)
    cases[f"{name}_output_var_undefined"] = patched(data, fb.field(fb.table_at(outs, 0), 0) or 0, "<I", 999) \
        if fb.field(fb.table_at(outs, 0), 0) is not None else data[:-1]
    return cases


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "corpus", "malformed")
    os.makedirs(out_dir, exist_ok=True)
    cases = {}
    cases.update(v1_cases("c1", spec_hex("### C.1 FBS v1"), 24))
    cases.update(v2_cases("c2", spec_hex("### C.2 FBS_V2")))
    real = os.path.join(SHARED, "realdata", "megengine", "mgeconvert_convolution-backward-filter.mge")
    cases.update(v1_cases("convbf", open(real, "rb").read(), 16))
    cases["empty_after_magic"] = b"MGBC"
    cases["zero_bytes_12"] = bytes(12)
    for name, data in sorted(cases.items()):
        with open(os.path.join(out_dir, name + ".mge"), "wb") as f:
            f.write(data)
    print(f"{len(cases)} files in {out_dir}")


if __name__ == "__main__":
    main()
