"""Bad input: one clear error naming the file and the problem."""

import os

import pytest

import q7
from q7 import _archive, custom_op

OPS = os.path.join(os.path.dirname(__file__), "ops")


def test_load_library_of_a_file_that_is_not_an_archive(tmp_path):
    bogus = tmp_path / "libbogus.so"
    bogus.write_bytes(b"\x7fELF not an archive")
    with pytest.raises(ValueError, match=rf"{bogus}: not an ar archive"):
        custom_op.load_library(str(bogus))


def test_load_library_of_an_archive_without_metadata(tmp_path):
    archive = tmp_path / "libnometa.so"
    _archive.write(str(archive), [("a_rather_long_member_name.so", b"x")])
    assert _archive.read(str(archive)) == [("a_rather_long_member_name.so", b"x")]
    with pytest.raises(ValueError, match=rf"{archive}: no metadata.json member"):
        custom_op.load_library(str(archive))


def test_truncated_archive_is_reported_with_its_offset(tmp_path):
    archive = tmp_path / "libcut.so"
    _archive.write(str(archive), [("metadata.json", b"{}" * 40)])
    archive.write_bytes(archive.read_bytes()[:-10])
    with pytest.raises(ValueError, match=rf"{archive}: member at offset 8 runs past the end of the file"):
        custom_op.load_library(str(archive))


def test_missing_compute_source_is_a_build_error_naming_it(test_ops, tmp_path):
    missing = str(tmp_path / "nowhere.cpp")
    with pytest.raises(q7.BuildError, match="nowhere.cpp"):
        custom_op.load(
            name="q7_test_ops",
            compute_srcs=[missing],
            shape_srcs=[os.path.join(OPS, "shape.cpp")],
            build_directory=str(tmp_path),
        )


def test_missing_shape_source_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.cpp: shape source not found"):
        custom_op.load(name="x", compute_srcs=[], shape_srcs=[str(tmp_path / "nope.cpp")])


@pytest.mark.parametrize("param", ["compute_srcs", "shape_srcs", "extra_cflags", "extra_include_paths"])
def test_a_string_where_a_list_belongs_is_a_type_error_naming_the_parameter(tmp_path, param):
    # extra_cflags="-O2" was taken character by character: flags "-", "O", "2".
    kwargs = {
        "compute_srcs": [os.path.join(OPS, "ops.cpp")],
        "shape_srcs": [os.path.join(OPS, "shape.cpp")],
        "build_directory": str(tmp_path / "b"),
        param: "-O2",
    }
    with pytest.raises(TypeError) as caught:
        custom_op.load(name="q7_test_ops", **kwargs)
    assert str(caught.value) == f"{param} takes a list of str, not str (for one, write ['-O2'])"
    kwargs[param] = ["-O2", 2]
    with pytest.raises(TypeError) as caught:
        custom_op.load(name="q7_test_ops", **kwargs)
    assert str(caught.value) == f"{param} takes a list of str; it holds 2 (int)"
    assert not (tmp_path / "b").exists()  # refused before anything was built
