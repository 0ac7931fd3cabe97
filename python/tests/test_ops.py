"""Single ops through torch.ops: dtypes, arguments, findings, console output."""

import pytest
import torch

import q7

DTYPES = [torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int16, torch.int8, torch.uint8]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_device_dtype_round_trips(test_ops, dtype):
    x = (torch.arange(-20, 40) % 100).to(dtype).reshape(6, 10)
    y = torch.ops.q7_test_ops.copy_bytes(x)
    assert y.dtype == dtype and y.shape == x.shape
    assert torch.equal(y, x)


def test_non_contiguous_input_is_made_contiguous(test_ops):
    x = torch.randn(5, 9).t()
    assert not x.is_contiguous()
    assert torch.equal(torch.ops.q7_test_ops.copy_bytes(x), x.contiguous())


def test_scalar_double_and_int64_from_python_numbers(test_ops):
    x = torch.linspace(-2, 2, 11)
    y = torch.ops.q7_test_ops.affine(x, 0.5, 3, 0.25)
    assert torch.equal(y, x * 0.5 + 3.25)


def test_other_devices_and_dtypes_are_rejected_before_the_run(test_ops):
    calls = q7.stats("q7_test_ops::copy_bytes")["calls"]
    with pytest.raises(TypeError, match=r"q7_test_ops::copy_bytes .*argument _0 has dtype torch.float64"):
        torch.ops.q7_test_ops.copy_bytes(torch.zeros(3, dtype=torch.float64))
    # Without a second device here, call the kernel q7 registered directly,
    # as torch's dispatcher would for a tensor of another device.
    kernel = q7._runtime._BOUND["q7_test_ops::copy_bytes"]
    with pytest.raises(TypeError, match=r"argument _0 is on meta; q7 runs ops on CPU tensors"):
        kernel(torch.zeros(3, device="meta"))
    assert q7.stats("q7_test_ops::copy_bytes")["calls"] == calls


def test_accessor_of_the_wrong_dtype_is_a_q7_error(test_ops):
    with pytest.raises(q7.SimulationError) as caught:
        torch.ops.q7_test_ops.affine(torch.zeros(4, dtype=torch.int32), 1.0, 0, 0)
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("accessor<Float> on a tensor of dtype Int (4-byte elements requested), in affine(")
    assert lines[1:] == [
        "op q7_test_ops::affine (compute function affine, 1 core)",
        "core 0 exited with status 7 (abort or failed runtime check)",
    ]


def test_out_of_bounds_write_names_op_core_pc_tensor_and_index(test_ops):
    x = torch.ones(100)
    with pytest.raises(q7.SimulationError) as caught:
        torch.ops.q7_test_ops.write_past_end(x)
    message = str(caught.value)
    assert "q7_test_ops::write_past_end (compute function write_past_end, 1 core)" in message
    assert "core 0 pc 0x" in message
    assert "element 100 of dst (100 elements" in message


def test_printf_reaches_python_stdout_with_core_prefixes(test_ops, capsys):
    x = torch.arange(24, dtype=torch.float32)
    assert torch.equal(torch.ops.q7_test_ops.say_hello(x), x)
    out = capsys.readouterr().out
    assert "[core 0] hello from core 0 of 1\n" in out


def test_printf_of_eight_cores_each_with_its_prefix(test_ops_8, capsys):
    x = torch.arange(30, dtype=torch.float32)
    assert torch.equal(torch.ops.q7_test_ops.say_hello(x), x)
    lines = capsys.readouterr().out.splitlines()
    for core in range(8):
        assert f"[core {core}] hello from core {core} of 8" in lines


def test_threads_run_the_eight_cores_in_parallel_with_the_same_output_and_console(test_ops_8, capsys):
    x = torch.arange(4000, dtype=torch.float32)
    seen = []
    for threads in (1, 2, 8):
        with q7.options(checks=False, threads=threads):
            assert torch.equal(torch.ops.q7_test_ops.say_hello(x), x)
        seen.append(capsys.readouterr().out)
    assert seen[0] == seen[1] == seen[2]
    assert "[core 7] hello from core 7 of 8" in seen[0]
    with pytest.raises(ValueError, match=r"^q7 option threads is a whole number from 1 to 64, not 0$"):
        with q7.options(threads=0):
            pass


def test_cores_writing_the_same_element_raise_a_race(test_ops_8):
    with pytest.raises(q7.SimulationError) as caught:
        torch.ops.q7_test_ops.write_everywhere(torch.zeros(16))
    message = str(caught.value)
    assert "q7_test_ops::write_everywhere (compute function write_everywhere, 8 cores)" in message
    assert "races with core" in message and "element 0 of dst" in message


def test_output_views_bytes_that_live_as_long_as_the_tensor(test_ops):
    import gc

    x = torch.arange(1000, dtype=torch.int32)
    y = torch.ops.q7_test_ops.copy_bytes(x)
    gc.collect()
    for _ in range(20):  # churn the allocator: freed bytes would be reused
        torch.ops.q7_test_ops.copy_bytes(torch.full((1000,), -1, dtype=torch.int32))
    gc.collect()
    assert torch.equal(y, x)
    y += 1  # an ordinary, writable tensor
    assert torch.equal(y, x + 1)


def test_output_no_core_wrote_gives_a_warning_naming_the_indices(test_ops):
    with pytest.warns(q7.UnwrittenOutputWarning, match=r"q7_test_ops::write_half .*5 of 10 output elements were never written \(indices 5, 6"):
        y = torch.ops.q7_test_ops.write_half(torch.ones(10))
    assert torch.equal(y, torch.tensor([2.0] * 5 + [0.0] * 5))
