"""The `ar` archive format (System V / GNU variant, as GNU `ar r` writes it).

`lib<name>.so` of a Neuron custom op is such an archive. Names longer than
15 bytes go in the GNU long-name table (member "//").
"""

import os
import secrets
import stat

MAGIC = b"!<arch>\n"
# The most bytes read: an archive holds a shape library and at most eight
# compute images, a few hundred MiB even with debug information.
MAX_SIZE = 1 << 30


def _header(name: bytes, size: int) -> bytes:
    fields = [
        name.ljust(16),
        b"0".ljust(12),  # mtime: 0 keeps archives reproducible, as `ar D` does
        b"0".ljust(6),
        b"0".ljust(6),
        b"100644".ljust(8),
        str(size).encode().ljust(10),
        b"`\n",
    ]
    return b"".join(fields)


def write(path, members):
    """Writes `members`, a list of (name, bytes), to `path` atomically."""
    long_names = b""
    encoded = []
    for name, data in members:
        raw = name.encode()
        if len(raw) > 15 or b"/" in raw:
            encoded.append(b"/" + str(len(long_names)).encode())
            long_names += raw + b"/\n"
        else:
            encoded.append(raw + b"/")
    out = bytearray(MAGIC)

    def put(header_name, data):
        out.extend(_header(header_name, len(data)))
        out.extend(data)
        if len(data) % 2:
            out.extend(b"\n")

    if long_names:
        put(b"//", long_names)
    for header_name, (_, data) in zip(encoded, members):
        put(header_name, data)
    write_atomic(path, out)


def write_atomic(path, data):
    """Writes `data` to `path` through a new, unpredictably named file in the
    same directory (O_EXCL: never through a file or symlink already there)
    and a rename, which replaces whatever `path` was without following it."""
    directory, base = os.path.split(path)
    tmp = os.path.join(directory, f".{base}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _kind(mode):
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def _read_bounded(path):
    """The bytes of the regular file at `path`, at most MAX_SIZE of them;
    anything else (a device or FIFO would be read without end) is a
    ValueError naming `path`."""
    # O_NONBLOCK: a FIFO opens without waiting for a writer, to be refused.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{path}: {_kind(st.st_mode)}, not a regular file (a custom-op library is an ar archive file)")
        too_big = f"{path}: larger than {MAX_SIZE >> 20} MiB; not a custom-op library (refused unread)"
        if st.st_size > MAX_SIZE:
            raise ValueError(too_big)
        chunks, total = [], 0
        while total <= MAX_SIZE:  # a file that grew meanwhile is refused too
            chunk = os.read(fd, min(1 << 24, MAX_SIZE + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_SIZE:
            raise ValueError(too_big)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read(path):
    """Returns the members of the archive at `path` as a list of (name, bytes)."""
    blob = _read_bounded(path)
    if not blob.startswith(MAGIC):
        raise ValueError(f"{path}: not an ar archive (a custom-op library made by custom_op.load)")
    members = []
    long_names = b""
    pos = len(MAGIC)
    while pos < len(blob):
        if pos + 60 > len(blob) or blob[pos + 58 : pos + 60] != b"`\n":
            raise ValueError(f"{path}: damaged ar member header at offset {pos}")
        raw_name = blob[pos : pos + 16].rstrip(b" ")
        try:
            size = int(blob[pos + 48 : pos + 58])
        except ValueError:
            raise ValueError(f"{path}: bad member size at offset {pos + 48}") from None
        data = blob[pos + 60 : pos + 60 + size]
        if len(data) != size:
            raise ValueError(f"{path}: member at offset {pos} runs past the end of the file")
        pos += 60 + size + (size % 2)
        if raw_name == b"//":
            long_names = data
            continue
        if raw_name in (b"/", b"/SYM64/"):
            continue  # symbol tables
        if raw_name.startswith(b"/") and raw_name[1:].isdigit():
            start = int(raw_name[1:])
            end = long_names.find(b"/\n", start)
            if end < 0:
                raise ValueError(f"{path}: long member name {raw_name.decode()} outside the name table")
            name = long_names[start:end]
        else:
            name = raw_name[:-1] if raw_name.endswith(b"/") else raw_name
        try:
            members.append((name.decode(), data))
        except UnicodeDecodeError:
            raise ValueError(f"{path}: member name {bytes(name)!r} at offset {pos} is not UTF-8") from None
    return members


def plain_name(name):
    """Whether `name` is a plain file name: joined onto a directory, it names
    a file in that directory (no '/', not '.' or '..', no NUL, no leading
    '-' a tool could take for an option)."""
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and "/" not in name
        and "\0" not in name
        and not name.startswith("-")
    )
