"""What an op author reads when an op goes wrong (issue #28): q7's exception
classes, the reason first and once, the simulated call stack down to the
op's line, tracebacks that end at the call, shape-function errors named,
and the CLI's options from Python."""

import os
import re
import traceback
import warnings

import pytest
import torch

import q7

OPS = os.path.join(os.path.dirname(__file__), "ops")
FINDINGS = os.path.join(OPS, "findings.cpp")
Q7_DIR = os.path.dirname(os.path.abspath(q7.__file__))


def line_of(text):
    """The line of findings.cpp that holds `text` (exactly one does)."""
    with open(FINDINGS) as f:
        found = [n for n, line in enumerate(f, 1) if text in line]
    assert len(found) == 1, (text, found)
    return found[0]


def raised(op, *args):
    """The exception torch.ops.q7_findings.<op>(*args) raises."""
    with pytest.raises(Exception) as caught:
        getattr(torch.ops.q7_findings, op)(*args)
    return caught.value


def test_exception_classes_are_in_q7s_namespace(findings):
    for cls in (q7.SimulationError, q7.BuildError, q7.ShapeFunctionError, q7.Frame):
        assert cls.__module__ == "q7" and getattr(q7, cls.__name__) is cls
    for cls in (q7.UnwrittenOutputWarning, q7.ConsoleOutputWarning):
        assert cls.__module__ == "q7" and issubclass(cls, UserWarning)
    error = raised("stray_store", torch.ones(8))
    assert type(error) is q7.SimulationError
    assert traceback.format_exception_only(error)[0].startswith("q7.SimulationError: core 0 pc 0x")


def test_a_failed_sdk_check_says_its_reason_first_and_once(findings, capfd):
    error = raised("tcm_overrun", torch.arange(10.0))
    message = str(error)
    lines = message.splitlines()
    reason = "tensor_to_tcm: elements [0, 18) outside a tensor of 10 elements"
    at = line_of("tensor_to_tcm<float>(buffer, 0, n + 8)")
    assert re.fullmatch(rf"{re.escape(reason)}, in tcm_overrun\(at::Tensor const&\)\+0x[0-9a-f]+ at findings\.cpp:{at}", lines[0])
    assert lines[1:] == [
        "op q7_findings::tcm_overrun (compute function tcm_overrun, 1 core)",
        "core 0 exited with status 7 (abort or failed runtime check)",
    ]
    assert message.count(reason) == 1
    assert error.reason == lines[0]
    assert (error.op, error.compute_function, error.cores, error.core) == ("q7_findings::tcm_overrun", "tcm_overrun", 1, 0)
    # The core's line is in the message, not printed again; kept whole on the error.
    assert reason not in capfd.readouterr().err
    assert f"[core 0] q7: {reason}\n" in error.stderr


def test_the_runtimes_abort_names_the_line_that_called_it(findings):
    error = raised("abort_on_negative", torch.tensor([1.0, -1.0]))
    at = line_of("abort();  // the bug")
    assert re.fullmatch(rf"abort\(\) called, in abort_on_negative\(at::Tensor const&\)\+0x[0-9a-f]+ at findings\.cpp:{at}", error.reason)
    assert error.op_frame == q7.Frame("abort_on_negative(at::Tensor const&)", FINDINGS, at, error.op_frame.pc, error.op_frame.offset, False)
    inner = [f.function for f in error.frames[: error.frames.index(error.op_frame)]]
    assert inner[-1] == "abort" and "q7_fail" in inner and all(f.in_sdk for f in error.frames[: len(inner)])


def test_a_stray_store_has_the_ops_call_stack_as_frames_and_note(findings):
    error = raised("stray_store", torch.arange(8.0))
    store, call = line_of("out[n] = 0.0f;"), line_of("fill_one_past((float*)")
    inner, outer = error.frames[0], error.frames[1]
    assert (inner.function, inner.file, inner.line, inner.in_sdk) == ("fill_one_past(float*, float const*, unsigned int)", FINDINGS, store, False)
    assert (outer.function, outer.file, outer.line, outer.in_sdk) == ("stray_store(at::Tensor const&)", FINDINGS, call, False)
    assert error.op_frame == inner and error.frames[2].in_sdk  # the generated wrapper called the op
    assert str(inner) == f"fill_one_past(float*, float const*, unsigned int)+{inner.offset:#x} at {FINDINGS}:{store}"
    assert error.reason.startswith("core 0 pc 0x") and "(element 8 of dst (8 elements" in error.reason
    assert error.reason.endswith(f", in fill_one_past(float*, float const*, unsigned int)+{inner.offset:#x} at findings.cpp:{store}")
    assert error.__notes__ == [
        "simulated call stack of core 0 (most recent call last):\n"
        f'  File "{FINDINGS}", line {call}, in stray_store(at::Tensor const&)\n'
        f'  File "{FINDINGS}", line {store}, in fill_one_past(float*, float const*, unsigned int)'
    ]
    # As Python prints it: the note after the message.
    printed = "".join(traceback.format_exception(error))
    assert printed.endswith(f'line {store}, in fill_one_past(float*, float const*, unsigned int)\n')


def test_a_store_through_the_sdks_memcpy_names_the_line_that_called_it(findings):
    error = raised("copy_past_end", torch.arange(8.0))
    at = line_of("memcpy(t_out.data_ptr(), t_in.data_ptr(), (t_in.numel() + 4)")
    assert (error.frames[0].function, error.frames[0].file, error.frames[0].in_sdk) == ("memcpy", None, True)
    assert error.op_frame == error.frames[1] and (error.op_frame.file, error.op_frame.line) == (FINDINGS, at)
    assert error.__notes__[0].endswith(f'line {at}, in copy_past_end(at::Tensor const&)\n  in q7\'s SDK: memcpy')
    # Every load past the input's end and store past the output's end is
    # listed once, after the op's line.
    lines = str(error).splitlines()
    assert lines[1] == "op q7_findings::copy_past_end (compute function copy_past_end, 1 core)"
    findings = lines[:1] + lines[2:]
    assert len(findings) == 8 and all(" past the end), in copy_past_end(" in line for line in findings)
    assert sum("-byte load from" in line for line in findings) == 4
    assert sum("-byte store to" in line for line in findings) == 4


# The planted bugs, one per kind (issue #28): the op, its arguments, what
# the finding says, and the text on the op's line that made it.
PLANTED = [
    ("overread", (torch.ones(6), torch.ones(20)), "-byte load from", "the bug: past grad's end"),
    ("freed_tcm_read", (torch.ones(20),), "outside every live tensor and allocation (TCM", "the bug: freed TCM"),
    ("uninit_tcm_read", (torch.ones(20),), "of TCM block of core 0 (64 bytes at 0x", "the bug: TCM nothing"),
    ("uninit_stack_read", (torch.ones(20),), "(core 0's stack, ", "the bug: a local nothing wrote"),
    ("copy_past_end", (torch.arange(8.0),), " past the end), in copy_past_end(", "(t_in.numel() + 4) * sizeof"),
]


@pytest.mark.parametrize("op, args, says, marker", PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_bugs_one_per_kind_raise_with_the_ops_line(findings, op, args, says, marker):
    error = raised(op, *args)
    at = line_of(marker)
    assert type(error) is q7.SimulationError
    assert says in error.reason and error.reason.endswith(f" at findings.cpp:{at}"), error.reason
    assert (error.op_frame.file, error.op_frame.line) == (FINDINGS, at)
    # Without q7's checks the op runs as on hardware, silently.
    with q7.options(checks=False):
        getattr(torch.ops.q7_findings, op)(*args)


def test_the_traceback_ends_where_the_op_was_called(findings):
    errors = [raised("stray_store", torch.ones(4)), raised("copy_2d", torch.ones(4))]
    with pytest.raises(TypeError) as bad_argument:
        torch.ops.q7_findings.stray_store(torch.ones(4, dtype=torch.float64))
    errors.append(bad_argument.value)
    for error in errors:
        files = [frame.filename for frame in traceback.extract_tb(error.__traceback__)]
        assert files[0] == __file__, files
        assert not [f for f in files if f.startswith(Q7_DIR + os.sep)], files
        assert error.__context__ is None or error.__suppress_context__ or error.__cause__ is not None


def test_an_error_of_the_shape_function_names_it(findings):
    error = raised("copy_2d", torch.ones(4))
    assert type(error) is q7.ShapeFunctionError and isinstance(error, RuntimeError)
    assert str(error) == (
        "q7_findings::copy_2d (compute function copy_2d, 1 core): the op's shape function (registered for it by "
        "NEURON_LIBRARY) raised IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"
    )
    assert type(error.__cause__) is IndexError and error.__cause__.__traceback__ is None
    assert torch.equal(torch.ops.q7_findings.copy_2d(torch.ones(2, 3)), torch.ones(2, 3))


def test_options_from_python_as_the_cli_has_them(findings, test_ops):
    x = torch.arange(10.0)
    with q7.options(checks=False):
        assert torch.equal(torch.ops.q7_findings.stray_store(x), x)  # the store lands unseen, as on hardware
    with pytest.raises(q7.SimulationError):
        torch.ops.q7_findings.stray_store(x)  # the block ended: checks are back
    with q7.options(no_sdk_checks=True):
        # As on hardware the copy reads on, past the input's end; q7's own
        # checks see that stray load.
        with pytest.raises(q7.SimulationError, match=r"^core 0 pc 0x[0-9a-f]+: 4-byte load from 0x[0-9a-f]+ outside every live tensor and allocation \(element 10 of"):
            torch.ops.q7_findings.tcm_overrun(x)
        with q7.options(checks=False):
            assert torch.equal(torch.ops.q7_findings.tcm_overrun(x), x)
    with q7.options(strict=True):
        with pytest.raises(q7.SimulationError) as unwritten:
            torch.ops.q7_test_ops.write_half(torch.ones(10))
    assert str(unwritten.value).splitlines() == [
        "5 of 10 output elements were never written (indices 5, 6, 7, 8, 9)",
        "op q7_test_ops::write_half (compute function write_half, 1 core)",
    ]
    with q7.options(max_instructions=200_000):
        with pytest.raises(q7.SimulationError) as budget:
            torch.ops.q7_test_ops.spin_forever(torch.ones(2))
    assert budget.value.reason.startswith("instruction budget of 200000 exhausted (core 0 at pc 0x")
    assert budget.value.op_frame.function == "spin_forever(at::Tensor const&)"
    assert "build with extra_cflags=['-g']" in budget.value.__notes__[0]  # test_ops has no -g


def test_options_given_to_load_library_hold_until_a_block_overrides_them(findings_archive, test_ops):
    q7.custom_op.load_library(findings_archive, checks=False)
    try:
        x = torch.arange(4.0)
        assert torch.equal(torch.ops.q7_findings.stray_store(x), x)
        with q7.options(checks=True), pytest.raises(q7.SimulationError):
            torch.ops.q7_findings.stray_store(x)
        with q7.options(max_instructions=10**9):  # nested blocks keep what outer ones set
            with q7.options(strict=True):
                assert torch.equal(torch.ops.q7_findings.stray_store(x), x)
    finally:
        q7.custom_op.load_library(findings_archive)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match=r"^q7 option strict is True or False, not 1$"):
            q7.custom_op.load_library(test_ops, strict=1)
        with pytest.raises(ValueError, match=r"^q7 option max_instructions is a positive whole number, not 0$"):
            with q7.options(max_instructions=0):
                pass
