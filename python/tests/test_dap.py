"""`q7 debug --dap` driven as an editor would drive it: raw Debug Adapter
Protocol over the process's stdin/stdout (Content-Length framing, JSON), no
editor. The whole exchange is compared with a golden log (message numbers
dropped, paths replaced by names); Q7_BLESS=1 rewrites the logs."""

import json
import os
import queue
import re
import shutil
import socket
import struct
import subprocess
import threading

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
RELU = os.path.join(REPO, "examples", "relu_multicore")
RELU_CPP = os.path.join(RELU, "relu.cpp")
# Generous: a message takes milliseconds; a run of the op well under a second.
TIMEOUT = 60


def q7_binary():
    """The q7 the Rust suite built (Q7_BIN, else target/{debug,release}/q7, else PATH)."""
    candidates = [os.environ.get("Q7_BIN")]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    candidates += [os.path.join(target, kind, "q7") for kind in ("debug", "release")]
    candidates.append(shutil.which("q7"))
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    pytest.fail("no q7 binary: build it (cargo build -p q7) or set Q7_BIN")


def write_f32_npy(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


class Client:
    """One adapter connection: requests out, responses and events in, every
    message kept (normalised) for the golden log. The adapter is a process
    (`Client.process`) or a socket (`Client.connect`: q7.debug(dap=PORT))."""

    def __init__(self, reader, writer, names, proc=None):
        self.reader, self.writer, self.proc = reader, writer, proc
        self.seq = 0
        self.log = []
        self.names = names
        self.inbox = queue.Queue()
        self.pending = []  # messages read while waiting for a response
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def process(cls, argv, names):
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return cls(proc.stdout, proc.stdin, names, proc)

    @classmethod
    def connect(cls, port, names):
        sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        sock.settimeout(None)
        return cls(sock.makefile("rb"), sock.makefile("wb"), names)

    def _read(self):
        out = self.reader
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            self.inbox.put(json.loads(out.read(length)))

    def _note(self, direction, message):
        text = json.dumps({k: v for k, v in message.items() if k not in ("seq", "request_seq")}, sort_keys=True)
        for path, name in self.names:
            text = text.replace(path, name)
        # The SDK cache's name is a hash of the SDK's sources: any SDK edit changes it.
        text = re.sub(r"/sdk-[0-9a-f]{16}/", "/sdk-HASH/", text)
        self.log.append(f"{direction} {text}")

    def _next(self):
        message = self.inbox.get(timeout=TIMEOUT)
        if message is None:
            why = self.proc.stderr.read().decode() if self.proc else "the connection closed"
            raise AssertionError("the adapter closed its output: " + why)
        self._note("<-", message)
        return message

    def request(self, command, arguments=None, ok=True):
        self.seq += 1
        message = {"seq": self.seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        self._note("->", message)
        body = json.dumps(message).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.writer.flush()
        while True:
            reply = self._next()
            if reply["type"] == "response" and reply["request_seq"] == self.seq:
                assert reply["success"] == ok, reply
                return reply.get("body", {}) if ok else reply["message"]
            self.pending.append(reply)

    def event(self, name):
        """The next event called `name` (events before it are kept in the log)."""
        while self.pending:
            message = self.pending.pop(0)
            if message.get("event") == name:
                return message.get("body", {})
        while True:
            message = self._next()
            if message.get("event") == name:
                return message.get("body", {})

    def close(self):
        self.request("disconnect")
        if self.proc:
            assert self.proc.wait(timeout=TIMEOUT) == 0, self.proc.stderr.read().decode()


def assert_golden(name, log):
    path = os.path.join(GOLDEN, name)
    text = "\n".join(log) + "\n"
    if os.environ.get("Q7_BLESS"):
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        expected = f.read()
    assert text == expected, f"{path} differs (Q7_BLESS=1 rewrites it); the session was:\n{text}"


@pytest.fixture(scope="module")
def relu8(tmp_path_factory):
    """examples/relu_multicore built with -g -O0, and a 16384-element input
    (2048 elements a core)."""
    work = tmp_path_factory.mktemp("dap")
    build = str(work / "build")
    done = subprocess.run(
        [q7_binary(), "build", "--build-dir", build, "--cflag", "-g", "--cflag", "-O0"],
        cwd=RELU, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    x = str(work / "x.npy")
    write_f32_npy(x, [float(i % 7 - 3) for i in range(16384)])
    return {"build": build, "x": x, "work": str(work)}


def line_of(path, text):
    with open(path) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


def start(relu8, **launch):
    names = [(relu8["build"], "BUILD"), (relu8["x"], "X_NPY"), (REPO, "REPO")]
    client = Client.process([q7_binary(), "debug", "--dap"], names)
    caps = client.request("initialize", {"adapterID": "q7", "linesStartAt1": True, "columnsStartAt1": True})
    assert caps["supportsStepBack"] and caps["supportsDataBreakpoints"] and caps["supportsConditionalBreakpoints"]
    client.request("launch", {"program": relu8["build"], "fn": "relu_forward", "in": [relu8["x"]], **launch})
    client.event("initialized")
    return client


def top_frame(client, thread):
    frames = client.request("stackTrace", {"threadId": thread})["stackFrames"]
    return frames[0]


def scope_variables(client, frame_id, scope):
    scopes = {s["name"]: s["variablesReference"] for s in client.request("scopes", {"frameId": frame_id})["scopes"]}
    variables = client.request("variables", {"variablesReference": scopes[scope]})["variables"]
    return {v["name"]: v["value"] for v in variables}


def evaluate(client, frame_id, expression, context="hover"):
    return client.request("evaluate", {"expression": expression, "frameId": frame_id, "context": context})["result"]


def test_a_session_breaks_steps_back_and_watches_another_cores_store(relu8):
    line = line_of(RELU_CPP, "tcm_buffer[j] = tcm_buffer[j] > 0.0")
    client = start(relu8)
    answer = client.request("setBreakpoints", {
        "source": {"path": RELU_CPP},
        "breakpoints": [{"line": line, "condition": "i == 0 && j == 5"}],
    })["breakpoints"]
    assert answer[0]["verified"] and answer[0]["line"] == line
    client.request("configurationDone")
    stopped = client.event("stopped")
    assert stopped["reason"] == "breakpoint" and stopped["allThreadsStopped"]
    thread = stopped["threadId"]
    threads = client.request("threads")["threads"]
    assert [t["name"] for t in threads] == [f"core {c}" for c in range(8)]

    frame = top_frame(client, thread)
    assert frame["source"]["path"].endswith("relu.cpp") and frame["line"] == line
    locals_ = scope_variables(client, frame["id"], "Locals")
    assert locals_["j"] == "5" and locals_["i"] == "0"
    assert "cpu_id" in locals_
    tensors = scope_variables(client, frame["id"], "Tensors")
    assert set(tensors) == {"x", "dst"}
    core = int(locals_["cpu_id"])
    # The element this core's j = 5 came from: x[2048 * core + 5] = (i % 7) - 3.
    element = 2048 * core + 5
    assert evaluate(client, frame["id"], f"x[{element}]") == str(float(element % 7 - 3))
    assert float(evaluate(client, frame["id"], "tcm_buffer[j]")) == float(element % 7 - 3)

    client.request("next", {"threadId": thread})
    assert client.event("stopped")["reason"] == "step"
    after = top_frame(client, thread)
    assert after["line"] != line
    client.request("stepBack", {"threadId": thread})
    assert client.event("stopped")["reason"] == "step"
    back = top_frame(client, thread)
    assert back["line"] == line and evaluate(client, back["id"], "j") == "5"

    # Core 5's partition, written by core 5 while this core is stopped.
    watched = 2048 * 5 + 6
    target = f"dst[{watched}]"
    value = str(float(max(watched % 7 - 3, 0)))
    info = client.request("dataBreakpointInfo", {"name": target})
    assert info["dataId"] == target
    assert client.request("dataBreakpointInfo", {"name": "nothing"})["dataId"] is None
    client.request("setBreakpoints", {"source": {"path": RELU_CPP}, "breakpoints": []})
    set_ = client.request("setDataBreakpoints", {"breakpoints": [{"dataId": target, "accessType": "write"}]})
    assert set_["breakpoints"][0]["verified"]
    client.request("continue", {"threadId": thread})
    stopped = client.event("stopped")
    assert stopped["reason"] == "data breakpoint" and stopped["threadId"] == 6, stopped
    assert f"0.0 -> {value}" in stopped["text"], stopped
    assert evaluate(client, None, target) == value

    client.request("setDataBreakpoints", {"breakpoints": []})
    client.request("continue", {"threadId": 6})
    assert client.event("exited")["exitCode"] == 0
    client.event("terminated")
    client.close()
    assert_golden("dap_relu_session.log", client.log)


def test_a_finding_stops_as_an_exception(relu8):
    # A destination shorter than the input: the last core stores past it
    # (q7's check; the SDK's own range check is off to let the store happen).
    client = start(relu8, dstShape=[16000], breakOnFinding=True, runArgs=["--no-sdk-checks"])
    client.request("configurationDone")
    stopped = client.event("stopped")
    assert stopped["reason"] == "exception" and stopped["threadId"] == 8, stopped
    assert stopped["text"].startswith("Finding: "), stopped
    frames = client.request("stackTrace", {"threadId": 8})["stackFrames"]
    assert any(f.get("source", {}).get("name") == "relu.cpp" for f in frames), frames
    client.close()
    assert_golden("dap_relu_finding.log", client.log)


def test_the_command_lines_op_function_breakpoints_reverse_continue_and_the_console(relu8):
    # The op's arguments on the command line; launch only says how to stop.
    names = [(relu8["build"], "BUILD"), (relu8["x"], "X_NPY"), (REPO, "REPO")]
    argv = [q7_binary(), "debug", relu8["build"], "--fn", "relu_forward", "--in", relu8["x"], "--dap"]
    client = Client.process(argv, names)
    client.request("initialize", {"adapterID": "q7"})
    client.request("launch", {"stopOnEntry": True})
    client.event("initialized")
    answer = client.request("setFunctionBreakpoints", {"breakpoints": [{"name": "relu_forward"}, {"name": "nope"}]})
    assert [b["verified"] for b in answer["breakpoints"]] == [True, False]
    client.request("configurationDone")
    assert client.event("stopped")["reason"] == "entry"
    # Paused while stopped: stopped again where it is.
    client.request("pause", {"threadId": 1})
    assert client.event("stopped")["reason"] == "pause"
    client.request("continue", {"threadId": 1})
    first = client.event("stopped")
    assert first["reason"] == "breakpoint" and top_frame(client, first["threadId"])["name"].startswith("relu_forward")
    client.request("continue", {"threadId": first["threadId"]})
    second = client.event("stopped")
    assert second["reason"] == "breakpoint" and second["threadId"] != first["threadId"]
    client.request("reverseContinue", {"threadId": second["threadId"]})
    back = client.event("stopped")
    assert back["reason"] == "breakpoint" and back["threadId"] == first["threadId"], back
    # The debug console takes the prompt's commands; a motion there is a stop.
    frame = top_frame(client, back["threadId"])["id"]
    assert evaluate(client, frame, "info cores", context="repl").startswith("*core 0: running at relu_forward")
    evaluate(client, frame, "stepi", context="repl")
    assert client.event("stopped")["reason"] == "step"
    assert "not TENSOR" in client.request("setDataBreakpoints", {"breakpoints": [{"dataId": "bogus"}]})[
        "breakpoints"][0]["message"]
    client.request("terminate")
    client.event("terminated")
    client.close()
    assert_golden("dap_relu_console.log", client.log)


def test_python_serves_dap_for_the_nth_call_of_a_with_block(findings):
    """`with q7.debug(call=2, dap=0)`: the second call of a script waits for an
    editor, which attaches, breaks on a source line, reads a local, stops at
    the call's finding and ends the session; the script then goes on."""
    import io
    import re
    import time

    import torch

    import q7

    findings_cpp = os.path.join(os.path.dirname(__file__), "ops", "findings.cpp")
    line = line_of(findings_cpp, "the bug: past grad's end")
    out = io.StringIO()
    raised = []

    def script():
        with q7.debug(call=2, dap=0, out=out):
            for n in (6, 7, 8):
                try:
                    torch.ops.q7_findings.overread(torch.ones(n), torch.ones(20))
                except q7.SimulationError as e:
                    raised.append(e)

    thread = threading.Thread(target=script, daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not (found := re.search(r"waiting for a DAP client on 127\.0\.0\.1:(\d+)", out.getvalue())):
        assert time.monotonic() < deadline and thread.is_alive(), out.getvalue()
        time.sleep(0.02)
    assert "q7_findings::overread" in out.getvalue() and len(raised) == 1  # the first call ran before
    client = Client.connect(int(found.group(1)), [])
    assert client.request("initialize", {"adapterID": "q7"})["supportsStepBack"]
    client.request("attach", {})
    client.event("initialized")
    answer = client.request("setFunctionBreakpoints", {"breakpoints": [{"name": "overread"}]})
    assert answer["breakpoints"][0]["verified"]
    client.request("configurationDone")
    stopped = client.event("stopped")
    assert stopped["reason"] == "breakpoint", stopped
    frame = top_frame(client, stopped["threadId"])
    assert frame["name"].startswith("overread(") and frame["source"]["path"] == findings_cpp
    # The call being debugged is the second: grad has 7 elements.
    assert evaluate(client, frame["id"], "info tensors", context="repl").startswith("_0: F32 [7]")
    client.request("setFunctionBreakpoints", {"breakpoints": []})
    client.request("continue", {"threadId": stopped["threadId"]})
    finding = client.event("stopped")
    assert finding["reason"] == "exception" and "element 7 of _0" in finding["text"], finding
    frame = top_frame(client, finding["threadId"])
    assert frame["line"] == line and scope_variables(client, frame["id"], "Locals")["i"] == "7"
    client.request("disconnect")
    thread.join(TIMEOUT)
    # Each call ran to its end as usual and raised its finding.
    assert not thread.is_alive() and len(raised) == 3
    assert all("past the end" in e.reason for e in raised)
