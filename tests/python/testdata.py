"""Where the Python tests find the repository's reference material, and readers
for it: the spec's worked example (Appendix C), the real MegEngine files, and an
XXH64 written from the spec's prose (Appendix D) to check hashes independently."""
import os
import pathlib
import re

SOURCE_DIR = pathlib.Path(os.environ.get("MGEDUMP_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED_DIR = SOURCE_DIR.parent / "shared"
SPEC_PATH = SHARED_DIR / "spec" / "megengine-format.md"
DOCSTRING_PATH = SHARED_DIR / "seed" / "dump_graph-docstring.txt"
REALDATA_DIR = SHARED_DIR / "realdata" / "megengine"
MALFORMED_DIR = SOURCE_DIR / "tests" / "corpus" / "malformed"


def spec_text():
    return SPEC_PATH.read_text()


def spec_hex_dump(heading):
    """The bytes of the first xxd-style block after `heading` in the spec."""
    text = spec_text()
    start = text.index(heading)
    block = text[text.index("```", start) + 3:]
    block = block[:block.index("```")]
    out = bytearray()
    for line in block.splitlines():
        m = re.match(r"^[0-9a-f]{8}: ((?:[0-9a-f]{2} ?)+)", line)
        if m:
            out += bytes.fromhex(m.group(1).replace(" ", ""))
    return bytes(out)


_P1, _P2, _P3 = 11400714785074694791, 14029467366897019727, 1609587929392839161
_P4, _P5 = 9650029242287828579, 2870177450012600261
_M = (1 << 64) - 1


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc, x):
    return (_rotl((acc + x * _P2) & _M, 31) * _P1) & _M


def _merge(h, v):
    return (((h ^ _round(0, v)) * _P1) + _P4) & _M


def xxh64(data, seed):
    """XXH64 as spec Appendix D describes it."""
    n, i = len(data), 0
    u64 = lambda k: int.from_bytes(data[k:k + 8], "little")
    if n >= 32:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed & _M, (seed - _P1) & _M]
        while i + 32 <= n:
            v = [_round(v[j], u64(i + 8 * j)) for j in range(4)]
            i += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
        for x in v:
            h = _merge(h, x)
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        h = (_rotl(h ^ _round(0, u64(i)), 27) * _P1 + _P4) & _M
        i += 8
    if i + 4 <= n:
        h = (_rotl(h ^ ((int.from_bytes(data[i:i + 4], "little") * _P1) & _M), 23) * _P2 + _P3) & _M
        i += 4
    while i < n:
        h = (_rotl(h ^ ((data[i] * _P5) & _M), 11) * _P1) & _M
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M
    h ^= h >> 29
    h = (h * _P3) & _M
    h ^= h >> 32
    return h
