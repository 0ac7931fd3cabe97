"""Helpers the case generators share: seeded randomness, scratch files, and
the checks of an output's meaning (NumPy as the .npy peer)."""

import io
import os
import random
import socket
import stat
import threading

MAGIC = {"npy": b"\x93NUMPY", "elf": b"\x7fELF", "svg": b"<", "ucpl": b"", "folded": b"", "ll": b""}


def rng_for(seed, category, index):
    return random.Random(f"{seed}/{category}/{index}")


def write(path, data, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    if mode is not None:
        os.chmod(path, mode)
    return path


def copy(src, dst):
    with open(src, "rb") as f:
        return write(dst, f.read())


def make_node(path, kind):
    """A special file at `path`: chr-null, chr-full, fifo, socket, block."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if kind == "chr-null":
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    elif kind == "chr-full":
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    elif kind == "chr-zero":
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 5))
    elif kind == "block":
        # loop255: almost never configured; opening it fails rather than writing a disk
        os.mknod(path, 0o600 | stat.S_IFBLK, os.makedev(7, 255))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        s.close()


def file_type(path):
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return "absent"
    for test, name in [(stat.S_ISREG, "file"), (stat.S_ISDIR, "dir"), (stat.S_ISLNK, "link"), (stat.S_ISCHR, "chr"), (stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISBLK, "block")]:
        if test(mode):
            return name
    return "other"


def fifo_feeder(path, data, delay=0.0):
    """Writes `data` into FIFO `path` once opened (a thread; gives up after 60 s)."""

    def run():
        import time

        time.sleep(delay)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            # No reader yet: block in open, bounded by the watchdog below.
            fd = None
        try:
            if fd is None:
                fd = os.open(path, os.O_WRONLY)
            os.set_blocking(fd, True)
            os.write(fd, data)
        except OSError:
            pass
        finally:
            if fd is not None:
                os.close(fd)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def fifo_reader(path, sink, delay=0.0):
    """Reads FIFO `path` into `sink` (a list: the bytes read) once, on a thread."""

    def run():
        import time

        time.sleep(delay)
        try:
            with open(path, "rb") as f:
                sink.append(f.read())
        except OSError as e:
            sink.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def unblock_fifo(path):
    """Opens the other end of a FIFO so no thread stays blocked in open."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass


def numpy_load(path):
    """(array, None) or (None, why) as NumPy reads the file (no pickles)."""
    try:
        import numpy

        with open(path, "rb") as f:
            data = f.read()
        return numpy.load(io.BytesIO(data), allow_pickle=False), None
    except Exception as e:  # NumPy refuses in many ways
        return None, f"{type(e).__name__}: {str(e)[:120]}"


def check_relu(x_path, out_path, float_only=False):
    """Problems with out_path as relu of x_path (as NumPy reads x)."""
    import numpy

    x, why = numpy_load(x_path)
    if x is None:
        return [f"q7 ran on an input NumPy refuses ({why})"]
    y, why = numpy_load(out_path)
    if y is None:
        return [f"the output is not a .npy NumPy reads ({why})"]
    if x.dtype != numpy.float32:
        return [] if float_only else [f"q7 ran relu on a {x.dtype} input as NumPy reads it"]
    want = numpy.where(x.reshape(-1) > 0, x.reshape(-1), numpy.float32(0)).astype("<f4")
    if y.dtype != numpy.float32 or y.reshape(-1).tobytes() != want.tobytes():
        return [f"output differs from relu of the input as NumPy reads it (shape {x.shape}, {x.dtype}; got {y.shape}, {y.dtype})"]
    return []


def check_copy(x_path, out_path):
    """Problems with out_path as a byte copy of x_path (copy_bytes)."""
    x, why = numpy_load(x_path)
    if x is None:
        return [f"q7 ran on an input NumPy refuses ({why})"]
    y, why = numpy_load(out_path)
    if y is None:
        return [f"the output is not a .npy NumPy reads ({why})"]
    if x.dtype.newbyteorder("=") != y.dtype.newbyteorder("=") or x.shape != y.shape:
        return [f"copy_bytes changed {x.dtype}{x.shape} into {y.dtype}{y.shape}"]
    if x.astype(x.dtype.newbyteorder("=")).tobytes() != y.astype(y.dtype.newbyteorder("=")).tobytes():
        return [f"copy_bytes output differs from the input as NumPy reads it ({x.dtype}{x.shape}, fortran={x.flags.f_contiguous and not x.flags.c_contiguous})"]
    return []
