"""`q7.custom_op`: the `torch_neuronx.xla_impl.custom_op` API on q7.

    custom_op.load(name='relu', compute_srcs=['relu.cpp'], shape_srcs=['shape.cpp'],
                   build_directory=os.getcwd(), multicore=False, verbose=True)
    custom_op.load_library('librelu.so')     # later, in any process

`load` builds the shape sources into a host library (against q7's own host
torch in about a second; against libtorch with torch.utils.cpp_extension when
they use what that lacks), registers each op with torch under its schema,
builds the compute sources with q7 (one image, or eight with multicore=True)
in `build_directory/.q7-build/`, writes `lib<name>.so`, an ar archive of the
shape library, the compute libraries and metadata.json (docs/PYTORCH.md), into
`build_directory`, and makes `torch.ops.<ns>.<op>` run in q7's simulator.
"""

import ctypes
import hashlib
import json
import os
import re
import sys
import tempfile
import threading

import torch

from q7 import _archive, _host_shape, _prepare, _q7, _runtime, _shape

# The device SDK, when missing, builds while the script goes on (q7._prepare).
_prepare.in_background()

METADATA = "metadata.json"
# metadata.json's `shape_abi` of a shape library built against libtorch
# (archives without the field have one); q7._host_shape.KIND the other kind.
LIBTORCH = "libtorch"
# The build's own files (objects, wrapper.cpp, images, records) go here, in
# the build directory: the vendor's build.py passes os.getcwd(), the author's
# folder, which gets only the archive.
BUILD_FILES = ".q7-build"
FORMAT = "q7-neuron-custom-op"
VERSION = 1


def _log_to_stdout(line):
    print(line, flush=True)


# torch allows one TORCH_LIBRARY per namespace and process, and aborts the
# process (SIGABRT) on a second. So: sha256 of each shape library loaded in
# this process -> (its path, where it came from), the same library reached
# under another path (the build cache, an archive's copy) is not loaded
# twice, and a different one registering a namespace already taken is
# refused before torch sees it (namespace -> the digest that holds it).
_LOADED_SHAPES = {}
_NAMESPACES = {}
# Host shape libraries (q7._host_shape) loaded here, by sha256, and the
# namespaces q7 defined for them with torch.library: namespace -> (the
# "DEF" library, {op: schema}). Another host library with the same ops and
# schemas (an edited shape.cpp) takes over their shape functions.
_HOST_SHAPES = {}
_DEFINED = {}
# Guards the four tables above: two threads loading the same library must
# not both pass the "not loaded yet" check (torch would abort on the second).
_SHAPES_LOCK = threading.RLock()

# What NEURON_LIBRARY(ns, m) leaves in the library's bytes (register.h).
_NAMESPACE_MARK = re.compile(rb"q7-neuron-namespace:([A-Za-z_][A-Za-z0-9_]*)\0")


def _check_namespaces(contents, origin, namespaces, shared=()):
    """Raises RuntimeError, naming both libraries, when the shape library
    `contents` (from `origin`) would register a namespace that is taken
    (those in `shared` the caller judges itself)."""
    wanted = set(namespaces) | {m.decode() for m in _NAMESPACE_MARK.findall(contents)}
    foreign = None
    for ns in sorted(wanted):
        if ns in shared:
            continue
        holder = _NAMESPACES.get(ns)
        if holder is not None:
            raise RuntimeError(
                f"{origin}: namespace `{ns}` is already registered by {_LOADED_SHAPES[holder][1]}, loaded earlier "
                "in this process; torch registers a namespace once per process: restart Python to load a "
                "changed shape library (or use another namespace)"
            )
        if foreign is None:
            foreign = {s.name.split("::")[0] for s in torch._C._jit_get_all_schemas() if "::" in s.name}
        if ns in foreign:
            raise RuntimeError(
                f"{origin}: namespace `{ns}` already has operators that q7 did not load; torch registers a "
                "namespace once per process: use another namespace in NEURON_LIBRARY"
            )
    return sorted(wanted)


def _load_shape_library(path, contents, origin, namespaces=()):
    """Loads a shape library once per process; returns the path in use.
    What torch's loader would abort the process on is refused first: a
    namespace taken here (read from the bytes), and anything else a child
    process loading the library alone dies of."""
    digest = hashlib.sha256(contents).hexdigest()
    with _SHAPES_LOCK:
        if digest not in _LOADED_SHAPES:
            wanted = _check_namespaces(contents, origin, namespaces)
            _shape.probe(path, digest, origin)
            torch.ops.load_library(path)
            _LOADED_SHAPES[digest] = (path, origin)
            for ns in wanted:
                _NAMESPACES[ns] = digest
        return _LOADED_SHAPES[digest][0]


def _load_host_shape(path, contents, origin, namespaces=()):
    """Loads a host shape library once per process from a copy its contents
    name (a changed library never meets the old one's handle), defines its
    ops with torch, and returns it (a q7._host_shape.Library)."""
    digest = hashlib.sha256(contents).hexdigest()
    with _SHAPES_LOCK:
        library = _HOST_SHAPES.get(digest)
        if library is None:
            _check_namespaces(contents, origin, namespaces, shared=_DEFINED)
            loaded = os.path.join(_shape.cache_root(), "loaded", digest[:16], os.path.basename(path))
            if not os.path.isfile(loaded) or _read(loaded) != contents:
                os.makedirs(os.path.dirname(loaded), exist_ok=True)
                _archive.write_atomic(loaded, contents)
            _host_shape.probe(loaded, digest, origin)
            library = _host_shape.Library(loaded, origin)
        _LOADED_SHAPES.setdefault(digest, (path, origin))
        _define(library, digest, origin)
        _HOST_SHAPES[digest] = library
        return library


def _define(library, digest, origin):
    """Defines the ops of a host shape library with torch (torch.library,
    "DEF"), namespace by namespace; a namespace q7 defined before must come
    with the same ops and schemas."""
    wanted = {}
    for ns, op, _, schema in library.ops:
        ops = wanted.setdefault(ns, {})
        if op in ops:
            raise RuntimeError(f"{origin}: NEURON_LIBRARY defines op `{ns}::{op}` twice")
        ops[op] = _host_shape.torch_schema(schema)
    for ns, ops in sorted(wanted.items()):
        held = _DEFINED.get(ns)
        if held is not None and held[1] != ops:
            raise RuntimeError(
                f"{origin}: namespace `{ns}` is already registered by {_LOADED_SHAPES[_NAMESPACES[ns]][1]}, loaded "
                "earlier in this process, with other ops or schemas; torch defines an op once per process: "
                "restart Python to load the changed shape library (or use another namespace)"
            )
        for schema in ops.values():
            try:
                torch._C.parse_schema(schema)
            except RuntimeError as e:
                raise RuntimeError(f"{origin}: torch cannot parse the schema {schema}: {e}") from None
    for ns, ops in sorted(wanted.items()):
        if ns in _DEFINED:
            continue  # the same ops: this library's shape functions take over
        definitions = torch.library.Library(ns, "DEF")
        for schema in ops.values():
            definitions.define(schema)
        _DEFINED[ns] = (definitions, ops)
        _NAMESPACES[ns] = digest


def _registered_ops(shape_library):
    """[(ns::op, compute function)] that the shape library's NEURON_LIBRARY declared."""
    handle = ctypes.CDLL(shape_library)
    try:
        listing = handle.q7_neuron_ops
    except AttributeError:
        raise RuntimeError(
            f"{shape_library}: registers no Neuron ops (include \"torchneuron/register.h\" and use NEURON_LIBRARY)"
        ) from None
    listing.restype = ctypes.c_char_p
    ops = []
    for line in listing().decode().splitlines():
        qualified, compute_fn = line.split("\t")
        ops.append((qualified, compute_fn))
    if not ops:
        raise RuntimeError(f"{shape_library}: NEURON_LIBRARY registered no ops")
    return ops


def _device_schema(qualified):
    """torch's schema of the op as q7 build takes it: the op's own name, the
    return unnamed ("my_ops::relu_forward(Tensor _0) -> Tensor")."""
    text = str(torch._C._get_schema(qualified, ""))
    return re.sub(r"->\s*Tensor\s+\w+\s*$", "-> Tensor", text)


def _libtorch_shape_function(qualified):
    """The shape function a libtorch shape library registered for op
    `qualified` (as `ns::_q7_shape_op`), answering (dtype, shape)."""
    ns, op = qualified.split("::", 1)
    shape_op = getattr(getattr(torch.ops, ns), f"_q7_shape_{op}")

    def shape(args):
        meta = shape_op(*args)
        return meta.dtype, tuple(meta.shape)

    return shape


def _host_shape_functions(library):
    """{ns::op: its shape function} of a host shape library."""
    return {f"{ns}::{op}": library.shape_function(i) for i, (ns, op, _, _) in enumerate(library.ops)}


def _bind_all(ops, shape_functions, compute, options, sources):
    for qualified, compute_fn in ops:
        ns, op = qualified.split("::", 1)
        shape = shape_functions[qualified]
        _runtime.bind(ns, op, _runtime.BoundOp(qualified, compute_fn, compute, shape, options, sources))


def _write_archive(name, build_directory, shape, libraries, images, ops, schemas, toolchain, sources):
    """lib<name>.so: the shape library, the compute images, metadata.json.
    `shape`: (path, kind) of the shape library."""
    shape_library, shape_abi = shape
    shape_member = f"lib{name}_shape.so"
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "name": name,
        "multicore": len(libraries) > 1,
        "cores": len(libraries),
        "toolchain": toolchain,
        "torch_version": torch.__version__,
        "torch_cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
        "shape_abi": shape_abi,
        "shape_library": shape_member,
        "compute_libraries": [os.path.basename(p) for p in libraries],
        "compute_sources": sources,
        "ops": [
            {
                "name": qualified,
                "compute_function": compute_fn,
                "index": index,
                "schema": str(torch._C._get_schema(qualified, "")),
                "device_schema": schema,
            }
            for index, ((qualified, compute_fn), schema) in enumerate(zip(ops, schemas))
        ],
    }
    with open(shape_library, "rb") as f:
        members = [(shape_member, f.read())]
    members += [(os.path.basename(p), data) for p, data in zip(libraries, images)]
    metadata["sha256"] = {member: hashlib.sha256(data).hexdigest() for member, data in members}
    members.append((METADATA, (json.dumps(metadata, indent=2) + "\n").encode()))
    archive = os.path.join(build_directory, f"lib{name}.so")
    _archive.write(archive, members)
    return archive


def _str_list(param, value, paths=False):
    """`value`, a list (or tuple) of str, as a list; with `paths` its items
    may be path-like too. Anything else is a TypeError naming `param`: a
    str would be taken character by character ("-O2" as three flags), and
    torch's cpp_extension takes lists only as well."""
    if not isinstance(value, (list, tuple)):
        hint = f" (for one, write [{value!r}])" if isinstance(value, str) else ""
        raise TypeError(f"{param} takes a list of str, not {type(value).__name__}{hint}")
    items = []
    for item in value:
        if paths and isinstance(item, os.PathLike):
            item = os.fspath(item)
        if not isinstance(item, str):
            raise TypeError(f"{param} takes a list of str; it holds {item!r} ({type(item).__name__})")
        items.append(item)
    return items


def load(
    name,
    compute_srcs,
    shape_srcs,
    extra_cflags=[],
    extra_include_paths=[],
    build_directory=None,
    multicore=False,
    verbose=False,
    *,
    checks=True,
    no_sdk_checks=False,
    strict=False,
    max_instructions=None,
    threads=None,
):
    """Builds op `name` and registers its ops; returns the path of lib<name>.so.

    The keywords after `verbose` are q7's, the options its calls run with
    (`q7.options` overrides them for a block): `checks` (q7's stray-store,
    race and unwritten-read checks), `no_sdk_checks` (turns the SDK's
    runtime checks off, as on hardware), `strict` (output elements no core
    wrote are an error), `max_instructions` (the budget of a call), `threads`
    (host threads for the cores; default the host's, at most 8)."""
    options = _runtime.check_options(checks, no_sdk_checks, strict, max_instructions, threads)
    log = _log_to_stdout if verbose else None
    # One line on stderr per step that has work to do (verbose says more).
    progress = None if verbose else _prepare.progress_line
    compute_srcs = _str_list("compute_srcs", compute_srcs, paths=True)
    shape_srcs = _str_list("shape_srcs", shape_srcs, paths=True)
    extra_cflags = _str_list("extra_cflags", extra_cflags)
    extra_include_paths = _str_list("extra_include_paths", extra_include_paths, paths=True)
    if not _archive.plain_name(name):
        raise ValueError(f"custom op name {name!r} is not a plain file name (it names lib<name>.so and a directory)")
    if build_directory is None:
        # Private to this user: generated files must not land where another
        # local user can plant symlinks (the parent is checked too).
        parent = os.path.join(tempfile.gettempdir(), f"q7_custom_op-{os.getuid()}")
        _q7.private_dir(parent)
        build_directory = os.path.join(parent, name)
    _q7.private_dir(build_directory)
    build_files = os.path.join(os.path.abspath(build_directory), BUILD_FILES)
    _q7.private_dir(build_files)

    shape_library = _host_shape.build(name, shape_srcs, extra_cflags, extra_include_paths, build_files, log, progress)
    shape_abi = _host_shape.KIND
    if shape_library is None:
        shape_library = _shape.build(name, shape_srcs, extra_cflags, extra_include_paths, log, progress)
        shape_abi = LIBTORCH
    contents = _read(shape_library)
    origin = f"{shape_library} (built from {', '.join(shape_srcs)})"
    if shape_abi == LIBTORCH:
        shape_library = _load_shape_library(shape_library, contents, origin)
        ops = _registered_ops(shape_library)
        shape_functions = {q: _libtorch_shape_function(q) for q, _ in ops}
    else:
        host = _load_host_shape(shape_library, contents, origin)
        ops = [(f"{ns}::{op}", fn) for ns, op, fn, _ in host.ops]
        shape_functions = _host_shape_functions(host)
    functions = [fn for _, fn in ops]
    schemas = [_device_schema(q) for q, _ in ops]
    if log:
        for (_, compute_fn), schema in zip(ops, schemas):
            log(f"q7: op {schema}, compute function {compute_fn}")

    compute_name = f"lib{name}customop"
    sources = [os.path.abspath(s) for s in compute_srcs]
    libraries, toolchain = _q7.build(
        compute_name,
        functions,
        schemas,
        sources,
        build_files,
        [os.path.abspath(p) for p in extra_include_paths],
        extra_cflags,
        bool(multicore),
        log,
        progress,
    )
    libraries = [str(p) for p in libraries]
    images = []
    for path in libraries:
        with open(path, "rb") as f:
            images.append(f.read())
    shape = (shape_library, shape_abi)
    archive = _write_archive(name, build_directory, shape, libraries, images, ops, schemas, toolchain, sources)
    if log:
        log(f"q7: wrote {archive} (the build's files are in {build_files})")

    _bind_all(ops, shape_functions, _q7.Compute(archive, images), options, sources)
    return archive


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _read_metadata(path, members):
    """metadata.json of the archive at `path`, checked: every name in it is a
    plain file name or an identifier, as `load` writes them (an archive is
    input: a name like "../x.so" must not reach a path join)."""
    if METADATA not in members:
        raise ValueError(f"{path}: no {METADATA} member; not a custom-op library made by custom_op.load")
    try:
        metadata = json.loads(members[METADATA])
    except ValueError as e:
        raise ValueError(f"{path}: {METADATA}: {e}") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT or metadata.get("version") != VERSION:
        raise ValueError(f"{path}: {METADATA} is not {FORMAT} version {VERSION}")
    absent = [k for k in ("shape_library", "compute_libraries", "ops") if k not in metadata]
    if absent:
        raise ValueError(f"{path}: {METADATA} lacks {', '.join(absent)}")
    libraries = metadata["compute_libraries"]
    if not isinstance(libraries, list) or len(libraries) not in (1, 8):
        raise ValueError(f"{path}: {METADATA}: compute_libraries is not a list of 1 or 8 member names")
    for member in [metadata["shape_library"]] + libraries:
        if not _archive.plain_name(member):
            raise ValueError(f"{path}: {METADATA} names member {member!r}, which is not a plain file name; refusing the archive")
    missing = [m for m in [metadata["shape_library"]] + libraries if m not in members]
    if missing:
        raise ValueError(f"{path}: members missing: {', '.join(missing)}")
    ops = metadata["ops"]
    if not isinstance(ops, list) or not ops:
        raise ValueError(f"{path}: {METADATA}: ops is not a non-empty list")
    for op in ops:
        qualified = op.get("name") if isinstance(op, dict) else None
        parts = qualified.split("::") if isinstance(qualified, str) else []
        if len(parts) != 2 or not all(_IDENTIFIER.match(p) for p in parts):
            raise ValueError(f"{path}: {METADATA}: op name {qualified!r} is not ns::op")
        if not isinstance(op.get("compute_function"), str) or not isinstance(op.get("index"), int):
            raise ValueError(f"{path}: {METADATA}: op {qualified} lacks compute_function or index")
    # Only named in messages (a frame's file), never opened.
    sources = metadata.setdefault("compute_sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise ValueError(f"{path}: {METADATA}: compute_sources is not a list of paths")
    if not isinstance(metadata.get("torch_version", ""), str):
        raise ValueError(f"{path}: {METADATA}: torch_version is not a string")
    if not isinstance(metadata.get("torch_cxx11_abi", False), bool):
        raise ValueError(f"{path}: {METADATA}: torch_cxx11_abi is not true or false")
    if metadata.setdefault("shape_abi", LIBTORCH) not in (LIBTORCH, _host_shape.KIND):
        raise ValueError(f"{path}: {METADATA}: shape_abi {metadata['shape_abi']!r} is neither {LIBTORCH} nor {_host_shape.KIND}")
    return metadata


_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


def _check_members(path, metadata, members):
    """Raises ValueError unless every library member metadata.json names
    has the SHA-256 it recorded: a damaged shape library can crash the
    interpreter inside dlopen, so no byte of it may reach the loader
    unchecked. Archives without the hashes (written before q7 recorded
    them) are refused too: rebuilding one is a call of `load`."""
    rebuild = "rebuild it with custom_op.load"
    digests = metadata.get("sha256")
    if digests is None:
        raise ValueError(f"{path}: {METADATA} records no member hashes (sha256; archives written by an older q7 lack them): {rebuild}")
    if not isinstance(digests, dict):
        raise ValueError(f"{path}: {METADATA}: sha256 is not an object of member hashes")
    for member in [metadata["shape_library"]] + metadata["compute_libraries"]:
        want = digests.get(member)
        if not isinstance(want, str) or not _SHA256.match(want):
            raise ValueError(f"{path}: {METADATA} records no SHA-256 of member {member}")
        if hashlib.sha256(members[member]).hexdigest() != want:
            raise ValueError(f"{path}: member {member} does not match its SHA-256 in {METADATA}: the archive is damaged; {rebuild}")


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def load_library(path, *, checks=True, no_sdk_checks=False, strict=False, max_instructions=None, threads=None):
    """Registers the ops of a lib<name>.so archive made by `load`; the
    keywords are the options of its calls, as for `load`."""
    options = _runtime.check_options(checks, no_sdk_checks, strict, max_instructions, threads)
    path = os.fsdecode(path)  # str, bytes or path-like: messages name it as text
    listed = _archive.read(path)
    for member, _ in listed:
        if not _archive.plain_name(member):
            raise ValueError(f"{path}: member {member!r} is not a plain file name; refusing the archive")
    members = dict(listed)
    metadata = _read_metadata(path, members)
    _check_members(path, metadata, members)
    host = metadata["shape_abi"] == _host_shape.KIND
    if not host:
        _check_torch(path, metadata)

    # torch loads libraries from files: put the shape library where its
    # contents name it, so a second load of the same archive is the same file.
    shape_bytes = members[metadata["shape_library"]]
    digest = hashlib.sha256(shape_bytes).hexdigest()
    shape_library = os.path.join(_shape.cache_root(), "loaded", digest[:16], metadata["shape_library"])
    ops = [(op["name"], op["compute_function"]) for op in sorted(metadata["ops"], key=lambda o: o["index"])]
    namespaces = [qualified.split("::")[0] for qualified, _ in ops]
    # Checked in the bytes, before loading: a namespace the library does
    # not register must not be taken in this process on its behalf.
    marked = {m.decode() for m in _NAMESPACE_MARK.findall(shape_bytes)}
    for ns in namespaces:
        if ns not in marked:
            raise ValueError(
                f"{path}: {METADATA} names namespace `{ns}`, which the shape library "
                f"{metadata['shape_library']} does not register"
            )
    if host:
        library = _load_host_shape(shape_library, shape_bytes, str(path), namespaces)
        registered = {f"{ns}::{op}" for ns, op, _, _ in library.ops}
        shape_functions = _host_shape_functions(library)
    else:
        with _SHAPES_LOCK:
            if digest not in _LOADED_SHAPES:
                _check_namespaces(shape_bytes, str(path), namespaces)
                if not os.path.isfile(shape_library) or _read(shape_library) != shape_bytes:
                    os.makedirs(os.path.dirname(shape_library), exist_ok=True)
                    _archive.write_atomic(shape_library, shape_bytes)
            shape_library = _load_shape_library(shape_library, shape_bytes, str(path), namespaces)
        registered = {qualified for qualified, _ in _registered_ops(shape_library)}
        shape_functions = {q: _libtorch_shape_function(q) for q in registered}
    for qualified, _ in ops:
        if qualified not in registered:
            raise ValueError(
                f"{path}: {METADATA} names op `{qualified}`, which the shape library "
                f"{metadata['shape_library']} does not register"
            )
    compute = _q7.Compute(str(path), [members[m] for m in metadata["compute_libraries"]])
    _bind_all(ops, shape_functions, compute, options, metadata["compute_sources"])


def _check_torch(path, metadata):
    """Raises RuntimeError unless the libtorch shape library of the archive
    at `path` was built against this torch (version and C++ ABI): one of
    another torch kills the interpreter as torch loads it, or misses
    symbols. (A host shape library does not depend on torch.)"""
    rebuild = "rebuild it under this torch with custom_op.load (a shape library works with the torch it was built against only)"
    built = metadata.get("torch_version")
    if built is not None and built != torch.__version__:
        raise RuntimeError(f"{path}: built against torch {built}, but this Python has torch {torch.__version__}; {rebuild}")
    abi = metadata.get("torch_cxx11_abi")
    if abi is not None and abi != bool(torch._C._GLIBCXX_USE_CXX11_ABI):
        ours = bool(torch._C._GLIBCXX_USE_CXX11_ABI)
        raise RuntimeError(
            f"{path}: built against a torch with _GLIBCXX_USE_CXX11_ABI={int(abi)}, but this torch has {int(ours)}; {rebuild}"
        )


__all__ = ["load", "load_library"]
