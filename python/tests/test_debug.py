"""q7.pm() and `with q7.debug(...)`: the debugger over an op call made from
Python (issue #30), the same session `q7 debug` runs."""

import io
import os
import sys

import pytest
import torch

import q7

FINDINGS = os.path.join(os.path.dirname(__file__), "ops", "findings.cpp")


def line_of(marker):
    with open(FINDINGS) as f:
        return next(n for n, text in enumerate(f, 1) if marker in text)


def fail(op, *args):
    with pytest.raises(q7.SimulationError) as raised:
        getattr(torch.ops.q7_findings, op)(*args)
    return raised.value


def session(run):
    out = io.StringIO()
    run(out)
    return out.getvalue()


def test_pm_after_a_finding_lands_on_the_failing_line_and_prints_the_locals(findings):
    error = fail("overread", torch.ones(6), torch.ones(20))
    at = line_of("the bug: past grad's end")
    text = session(lambda out: q7.pm(commands=["print i", "print in[0]"], out=out))
    # Stopped at the finding, then one instruction back: the load past the end.
    assert "Finding: core 0 pc" in text and "4-byte load from" in text
    frame = text.split("(q7) frame op\n", 1)[1]
    assert frame.startswith(f"#0 overread(") and f"at findings.cpp:{at}\n{at}\t" in frame, frame
    assert "the bug: past grad's end" in frame.splitlines()[1]
    # The op's locals: the loop index that ran past grad's 6 elements.
    locals_ = text.split("(q7) info locals\n", 1)[1]
    assert locals_.startswith("i = 6\n"), locals_
    assert "(q7) print i\ni = 6\n" in text
    assert error.op_frame.line == at


def test_pm_after_a_failed_check_selects_the_ops_frame_not_the_sdks(findings):
    fail("abort_on_negative", -torch.ones(4))
    at = line_of("abort();  // the bug")
    text = session(lambda out: q7.pm(commands=["backtrace"], out=out))
    assert "core 0 exited with status 7 (abort or failed runtime check)" in text
    frame = text.split("(q7) frame op\n", 1)[1].splitlines()
    assert frame[0].startswith("#") and f"abort_on_negative(at::Tensor const&)+0x" in frame[0]
    assert frame[0].endswith(f"at findings.cpp:{at}") and frame[1].startswith(f"{at}\t")
    # The selected frame is the op's, below abort and the SDK's exit path.
    stack = text.split("(q7) backtrace\n", 1)[1].splitlines()
    selected = next(line for line in stack if line.startswith("*"))
    assert "abort_on_negative(" in selected and any("abort+" in line for line in stack)


def test_pm_reads_commands_from_the_prompt_until_end_of_input(findings, monkeypatch, capsys):
    fail("stray_store", torch.ones(4))
    monkeypatch.setattr(sys, "stdin", io.StringIO("print n\nbacktrace\n"))
    q7.pm()
    text = capsys.readouterr().out
    at = line_of("the bug: one element past the end")
    assert f"#0 fill_one_past(float*, float const*, unsigned int)+0x27 at findings.cpp:{at}" in text
    # The prompt's commands ran in the same session (the prompt is input()'s).
    assert "(q7) n = 4\n" in text
    assert "\n #1 stray_store(at::Tensor const&)+0x" in text


def test_pm_without_a_failed_call_says_so(findings, monkeypatch):
    from q7 import _debug

    monkeypatch.setattr(_debug, "_last_failed", None)
    with pytest.raises(RuntimeError, match="no op call has raised q7.SimulationError"):
        q7.pm(commands=[])


def test_debug_stops_inside_the_second_of_three_calls(test_ops):
    out = io.StringIO()
    results = []
    with q7.debug(call=2, commands=["info tensors", "print _0[1]", "break copy_bytes", "continue"], out=out):
        for k in (1.0, 2.0, 3.0):
            results.append(torch.ops.q7_test_ops.copy_bytes(torch.full((4,), k) + torch.arange(4.0)))
    text = out.getvalue()
    # One session, over the second call: its input is 2 + arange.
    assert text.count("q7 debug: q7_test_ops::copy_bytes") == 1
    assert "(q7) print _0[1]\n_0[1] = 3.0\n" in text, text
    assert "Breakpoint 1, core 0 at copy_bytes(at::Tensor const&)+0x" in text
    assert "_0: F32 [4] at 0x" in text and "(output)" in text
    # Every call returned its result, the debugged one too.
    for k, result in zip((1.0, 2.0, 3.0), results):
        assert torch.equal(result, torch.full((4,), k) + torch.arange(4.0))


def test_debug_counts_only_the_named_op_and_starts_at_the_first_instruction(test_ops):
    out = io.StringIO()
    with q7.debug(call=1, op="q7_test_ops::copy_bytes", commands=["info cores"], out=out):
        torch.ops.q7_test_ops.say_hello(torch.ones(2))
        torch.ops.q7_test_ops.copy_bytes(torch.ones(2))
    text = out.getvalue()
    assert text.count("q7 debug: ") == 1 and "q7_test_ops::copy_bytes" in text
    assert "*core 0: running at _start+0x0, 0 instructions" in text


def test_debug_refuses_a_call_number_below_one():
    with pytest.raises(ValueError, match="call must be a positive int"):
        with q7.debug(call=0):
            pass


def test_debug_warns_when_the_call_never_came(test_ops):
    with pytest.warns(UserWarning, match=r"q7.debug\(call=3\): the block made 1 call of q7_test_ops::copy_bytes; nothing"):
        with q7.debug(call=3, op="q7_test_ops::copy_bytes", commands=[]):
            torch.ops.q7_test_ops.copy_bytes(torch.ones(2))
            torch.ops.q7_test_ops.say_hello(torch.ones(2))
