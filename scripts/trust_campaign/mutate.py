"""Deterministic input mutators: bytes, .npy headers, ELF fields, ar
archives, TOML text and flag values. Every function takes a random.Random
so a case regenerates from its seed alone."""

import json
import struct

# Numbers at the edges a parser must handle (as text).
EDGE_NUMBERS = [
    "0", "1", "-1", "2", "7", "8", "9", "255", "256", "-0", "+1", "01", "0x10", "0X10", "0b11", "0o7", "1e3", "1.5",
    "-1.5", "1_000", " 5", "5 ", "", " ", "NaN", "nan", "inf", "-inf", "Infinity", "1e309", "-1e309", "4.9e-324",
    "2147483647", "2147483648", "-2147483649", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
    "340282366920938463463374607431768211456", "1" + "0" * 400, "１", "٣", "5\n", "5;6", "0.0000001", "1e-400",
    "true", "null", "0x", "--5", "5-", "1/2", "\u00a05",
]


def rand_number(rng):
    if rng.random() < 0.7:
        return rng.choice(EDGE_NUMBERS)
    return str(rng.choice([rng.randint(-10, 10), rng.randint(-(2**70), 2**70), rng.uniform(-1e6, 1e6)]))


def npy_header(descr, shape, fortran=False):
    shape_text = "(" + "".join(f"{d}, " if i < len(shape) - 1 else (f"{d}," if len(shape) == 1 else f"{d}") for i, d in enumerate(shape)) + ")"
    return "{" + f"'descr': {descr!r}, 'fortran_order': {fortran}, 'shape': {shape_text}, " + "}"


def npy_bytes(descr, shape, payload, fortran=False, version=1, header=None):
    text = header if header is not None else npy_header(descr, shape, fortran)
    lenfmt, prefix = ("<H", 10) if version == 1 else ("<I", 12)
    total = prefix + len(text) + 1
    pad = (-total) % 64
    body = (text + " " * pad + "\n").encode("latin-1", "replace")
    size = len(body) if version == 1 else len(body)
    if version == 1 and size > 0xFFFF:
        size &= 0xFFFF
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack(lenfmt, size) + body + payload


DESCRS = ["<f4", "<i4", "<f2", "|u1", "|i1", "<i2", "<f8", "<i8", ">f4", "|b1", "<c8", "<u4", "|V4", "<U4", "|O", "f4", "<bf16", "<V2", "|S4", "<f4 ", "<F4", "<f16", "<M8[s]"]
ITEMSIZE = {"f4": 4, "i4": 4, "f2": 2, "u1": 1, "i1": 1, "i2": 2, "f8": 8, "i8": 8, "b1": 1, "c8": 8, "u4": 4}


def base_npy(rng):
    """A valid float32 .npy of a small random shape, with its descr and shape."""
    shape = rng.choice([(64,), (4, 16), (1,), (0,), (), (2, 2, 2, 2), (3, 5), (1, 1, 1, 1, 1, 1, 1, 64), (257,)])
    n = 1
    for d in shape:
        n *= d
    payload = struct.pack(f"<{n}f", *[rng.uniform(-100, 100) for _ in range(n)])
    return shape, payload


def header_mutation(rng, shape, payload):
    """A .npy whose header text is edited the way a careless writer or an
    attacker would: odd descr, odd shape, odd keys and values."""
    descr, fortran, shape_text = "<f4", "False", None
    kind = rng.randrange(14)
    extra = ""
    if kind == 0:
        descr = rng.choice(DESCRS)
    elif kind == 1:
        dims = [rng.choice(["0", "1", "-1", "64", "2**31", "4294967296", "18446744073709551615", "9223372036854775807", "99999999999999999999", "1.0", "'a'", "None", "True", "+3", "0x10", "1_0"]) for _ in range(rng.randrange(1, 4))]
        shape_text = "(" + ", ".join(dims) + ",)"
    elif kind == 2:
        shape_text = "(" + ", ".join(["1"] * rng.randrange(9, 40)) + ",)"
    elif kind == 3:
        fortran = rng.choice(["True", "'yes'", "1", "0", "None", "false", "'False'", "True and False", ""])
    elif kind == 4:
        extra = rng.choice(["'descr': '<i4', ", "'shape': (3,), ", "'fortran_order': True, ", "'extra': 1, ", "'descr': '<f4', "])
    elif kind == 5:
        shape_text = rng.choice(["[64]", "64", "(64", "((64,),)", "(,)", "()", "(64,)(1,)", "{64}", "(-0,)", "( 64 , )"])
    elif kind == 6:
        return "{'descr': '<f4', 'shape': (64,), }"  # fortran_order missing
    elif kind == 7:
        return rng.choice(["{}", "", "{'descr': '<f4'", "{'descr': '<f4', 'fortran_order': False, 'shape': (64,)}x", "[1, 2]", "__import__('os').system('touch PWNED')", "{'descr': '<f4', 'fortran_order': False, 'shape': (64,), 'descr': {'a': 1}}"])
    elif kind == 8:
        return "{'descr': '<f4', 'fortran_order': False, 'shape': (64,), " + "'k': '" + "x" * rng.choice([100, 70000, 1 << 20]) + "'}"
    elif kind == 9:
        descr = rng.choice(["<f4\x00", "<f4\u00e9", "\\x3cf4", "<f" + "4" * 50])
    elif kind == 10:
        return "{'descr': '<f4', 'fortran_order': False, 'shape': (64,), }".replace("'", '"')
    elif kind == 11:
        return "{ 'descr' : '<f4' , 'fortran_order' : False , 'shape' : ( 64 , ) }"
    elif kind == 12:
        return "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (8,), }"
    else:
        return "{'descr': '<f4', 'fortran_order': False, 'shape': (64,), }" + rng.choice(["\x00", "\r", "\t", "#", "\x93NUMPY"])
    if shape_text is None:
        shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    return "{" + extra + f"'descr': {descr!r}, 'fortran_order': {fortran}, 'shape': {shape_text}, " + "}"


def flip(rng, data, count, region=None):
    data = bytearray(data)
    if not data:
        return bytes(data)
    lo, hi = region or (0, len(data))
    hi = min(hi, len(data))
    for _ in range(count):
        i = rng.randrange(lo, hi) if hi > lo else rng.randrange(len(data))
        choice = rng.randrange(4)
        if choice == 0:
            data[i] ^= 1 << rng.randrange(8)
        elif choice == 1:
            data[i] = rng.choice([0, 0xFF, 0x7F, 0x80, 0x01, 0x41])
        elif choice == 2:
            data[i] = rng.randrange(256)
        else:
            w = rng.choice([0, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, len(data), len(data) + 1, 0x10000])
            data[i : i + 4] = struct.pack("<I", w)[: len(data) - i]
    return bytes(data)


def structural(rng, data):
    """Truncate, extend, duplicate or delete a chunk."""
    n = len(data)
    kind = rng.randrange(5)
    if kind == 0 or n == 0:
        return data[: rng.randrange(n + 1)] if n else b""
    if kind == 1:
        return data + bytes(rng.randrange(256) for _ in range(rng.choice([1, 7, 64, 4096])))
    a = rng.randrange(n)
    b = min(n, a + rng.randrange(1, 64))
    if kind == 2:
        return data[:b] + data[a:b] + data[b:]
    if kind == 3:
        return data[:a] + data[b:]
    return data[:a] + bytes(b - a) + data[b:]


def mutate_bytes(rng, data, hot=None):
    """Flips (biased to the `hot` byte range) or a structural change."""
    if rng.random() < 0.25:
        return structural(rng, data)
    region = hot if hot and rng.random() < 0.7 else None
    return flip(rng, data, rng.choice([1, 1, 2, 4, 8, 32]), region)


def elf_hot(data):
    """The byte ranges ELF parsers read first: header, program and section headers."""
    if len(data) < 52 or data[:4] != b"\x7fELF":
        return None
    phoff, shoff = struct.unpack_from("<II", data, 28)
    ranges = [(0, 52)]
    if phoff < len(data):
        ranges.append((phoff, min(len(data), phoff + 32 * 4)))
    if shoff < len(data):
        ranges.append((shoff, len(data)))
    return ranges


def mutate_elf(rng, data):
    """An ELF32 with a field set to an edge value, or bytes flipped where the parser looks."""
    ranges = elf_hot(data)
    if not ranges or rng.random() < 0.35:
        return mutate_bytes(rng, data, ranges[rng.randrange(len(ranges))] if ranges else None)
    data = bytearray(data)
    phoff, shoff = struct.unpack_from("<II", data, 28)
    phnum, shnum = struct.unpack_from("<H", data, 44)[0], struct.unpack_from("<H", data, 48)[0]
    edge32 = [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, len(data), len(data) - 1, 0xFFFFFFF0, 0x84000000, 0x10]
    edge16 = [0, 1, 0xFFFF, 0x7FFF, 2, 40, 0x8000]
    target = rng.randrange(6)
    if target == 0:  # a header field
        off, size = rng.choice([(16, 2), (18, 2), (20, 4), (24, 4), (28, 4), (32, 4), (36, 4), (40, 2), (42, 2), (44, 2), (46, 2), (48, 2), (50, 2), (4, 1), (5, 1), (6, 1), (7, 1)])
    elif target in (1, 2) and phnum and phoff + 32 * phnum <= len(data):  # a program header field
        off, size = phoff + 32 * rng.randrange(phnum) + 4 * rng.randrange(8), 4
    elif shnum and shoff + 40 * shnum <= len(data):  # a section header field
        off, size = shoff + 40 * rng.randrange(shnum) + 4 * rng.randrange(10), 4
    else:
        return mutate_bytes(rng, bytes(data))
    if size == 4:
        struct.pack_into("<I", data, off, rng.choice(edge32 + [rng.randrange(1 << 32)]))
    elif size == 2:
        struct.pack_into("<H", data, off, rng.choice(edge16 + [rng.randrange(1 << 16)]))
    else:
        data[off] = rng.choice([0, 1, 2, 3, 0xFF])
    return bytes(data)


def ar_archive(members):
    """A GNU ar archive of (name, bytes), long names in a `//` table."""
    table = b""
    offsets = {}
    for name, _ in members:
        if len(name.encode()) > 15 or "/" in name:
            offsets[name] = len(table)
            table += name.encode() + b"/\n"
    out = b"!<arch>\n"

    def put(header_name, data):
        nonlocal out
        # name(16) mtime(12) uid(6) gid(6) mode(8) size(10) "`\n"
        out += header_name.ljust(16)[:16] + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"644".ljust(8)
        out += str(len(data)).encode().ljust(10) + b"`\n" + data
        if len(data) % 2:
            out += b"\n"

    if table:
        put(b"//", table)
    for name, data in members:
        put(f"/{offsets[name]}".encode() if name in offsets else name.encode() + b"/", data)
    return out


def ar_members(data):
    """The header offsets of an ar archive's members (for targeted mutation)."""
    offsets, pos = [], 8
    while pos + 60 <= len(data):
        offsets.append(pos)
        try:
            size = int(data[pos + 48 : pos + 58].strip() or b"0")
        except ValueError:
            break
        pos += 60 + size + (size % 2)
    return offsets


def mutate_ar(rng, data):
    heads = ar_members(data)
    if not heads or rng.random() < 0.3:
        return mutate_bytes(rng, data, (0, 8 + 60))
    data = bytearray(data)
    h = rng.choice(heads)
    field = rng.randrange(4)
    if field == 0:  # name
        name = rng.choice([b"/", b"//", b"/9999999", b"/-1", b"../../x.so/", b"/etc/passwd/", b"a" * 16, b"\x00" * 16, b"-rf/", b"/0", b"#1/20", b"x.so", b" /"])
        data[h : h + 16] = name.ljust(16)[:16]
    elif field == 1:  # size
        size = rng.choice([b"0", b"-1", b"99999999999", b"4294967296", b"abc", b" 12", b"1e3", b"", b"9" * 10, str(len(data)).encode()])
        data[h + 48 : h + 58] = size.ljust(10)[:10]
    elif field == 2:  # magic of the header end
        data[h + 58 : h + 60] = rng.choice([b"\x00\x00", b"`\x00", b"  "])
    else:
        return mutate_bytes(rng, bytes(data), (h, h + 60))
    return bytes(data)


def mutate_metadata(rng, metadata, sentinel_escape):
    """metadata.json edited: names that are paths, wrong types, missing fields."""
    m = json.loads(json.dumps(metadata))
    kind = rng.randrange(10)
    path_names = [sentinel_escape, "../x.so", "/tmp/x.so", ".", "..", "", "a/b.so", "-rf", "x\x00.so", "./x.so", "x\n.so", "ü.so", "." * 300]
    if kind == 0:
        m["shape_library"] = rng.choice(path_names + [None, 5, ["x"]])
    elif kind == 1:
        m["compute_libraries"] = rng.choice([[rng.choice(path_names)], [], ["x"] * 8, "x.so", None, [5], m["compute_libraries"] * 2, ["x"] * 7])
    elif kind == 2:
        del m[rng.choice(list(m))]
    elif kind == 3:
        m["ops"] = rng.choice([[], None, "x", [{}], [{"name": "a::b::c", "compute_function": "f", "index": 0}], [{"name": "../x::y", "compute_function": "f", "index": 0}], [{"name": "ns::op", "compute_function": "f", "index": 2**70}], [{"name": "ns::op", "compute_function": "f", "index": -1}], [{"name": "ns::op", "compute_function": None, "index": "0"}]])
    elif kind == 4 and m.get("ops"):
        op = m["ops"][0]
        op[rng.choice(["name", "compute_function", "index", "schema", "device_schema"])] = rng.choice([None, "", "x" * 5000, 1.5, -1, True, "aten::add", "q7_test_ops::copy_bytes", "copy_bytes(Tensor a, Tensor b) -> Tensor", "nonexistent_fn"])
    elif kind == 5:
        m["version"] = rng.choice([0, 2, "1", None, 1.0, True])
    elif kind == 6:
        m["format"] = rng.choice(["", None, "q7-neuron-custom-op ", 5])
    elif kind == 7:
        m["multicore"], m["cores"] = rng.choice([(True, 1), (False, 8), ("yes", -1), (None, 2**64)])
    elif kind == 8:
        return rng.choice([b"", b"{", b"[]", b"null", b"\xff\xfe", json.dumps(m).encode() * 2, b'{"format": "q7-neuron-custom-op", "version": 1' + b', "x": [' * 100000])
    else:
        m["ops"] = m.get("ops", []) * rng.choice([2, 50])
    return json.dumps(m).encode()
