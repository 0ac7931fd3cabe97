#!/usr/bin/env python3
"""NumPy-free .npy helper for the demo: make a deterministic float32 input,
and check an op's output against a host reference computed here.

  npy_tool.py make OUT.npy N          N float32 values in [-1, 1), fixed seed
  npy_tool.py make-boxes OUT.npy N     N boxes (x1, y1, x2, y2), shape (N, 4), fixed seed
  npy_tool.py check-relu IN.npy OUT.npy
"""
import struct
import sys


def write_f32(path, values, shape=None):
    dims = "(%d,)" % len(values) if shape is None else "(%s)" % ", ".join(str(d) for d in shape)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % dims
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def read_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit("%s: not a .npy file" % path)
    major = data[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", data[8:10])
        start = 10 + hlen
    else:
        (hlen,) = struct.unpack("<I", data[8:12])
        start = 12 + hlen
    header = data[start - hlen:start].decode("latin1")
    if "'<f4'" not in header:
        sys.exit("%s: expected float32 data, header %s" % (path, header.strip()))
    body = data[start:]
    return struct.unpack("<%df" % (len(body) // 4), body)


def make(path, n):
    state = 0x2545F4914F6CDD1D
    values = []
    for _ in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        values.append(((state >> 40) / float(1 << 24)) * 2.0 - 1.0)
    write_f32(path, values)
    print("wrote %s: %d float32 values" % (path, n))


def make_boxes(path, n):
    state = 0x9E3779B97F4A7C15
    values = []
    for _ in range(n):
        box = []
        for _ in range(4):
            state = (state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
            box.append((state >> 40) / float(1 << 24))
        x, y, w, h = box[0] * 100.0, box[1] * 100.0, 0.5 + box[2] * 20.0, 0.5 + box[3] * 20.0
        values += [x, y, x + w, y + h]
    write_f32(path, values, (n, 4))
    print("wrote %s: %d boxes" % (path, n))


def check_relu(inp, out):
    x = read_f32(inp)
    y = read_f32(out)
    if len(x) != len(y):
        sys.exit("relu check: %d inputs but %d outputs" % (len(x), len(y)))
    bad = [i for i in range(len(x)) if struct.pack("<f", max(x[i], 0.0)) != struct.pack("<f", y[i])]
    print("relu check against the host reference: %d elements, %d mismatches" % (len(x), len(bad)))
    if bad:
        i = bad[0]
        sys.exit("first mismatch at %d: relu(%r) = %r on the host, %r on q7" % (i, x[i], max(x[i], 0.0), y[i]))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "make-boxes":
        make_boxes(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "check-relu":
        check_relu(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
