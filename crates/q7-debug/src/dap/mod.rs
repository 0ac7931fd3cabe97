//! The Debug Adapter Protocol over a [`Session`]: message framing, the
//! requests before the op is loaded (`initialize`, `launch` or `attach`),
//! and then the session's requests ([`Adapter`]). What a `launch` names is
//! the front end's business: the CLI reads `q7 run`'s flags from it, Python
//! debugs the call it is making and ignores it.

mod requests;

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use serde_json::{json, Value};

pub use requests::Adapter;

use crate::Session;

/// Messages larger than this are refused (a request is a few KiB).
const MAX_MESSAGE: usize = 16 << 20;

#[derive(Debug, thiserror::Error)]
pub enum DapError {
    #[error("the DAP connection: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Protocol(String),
}

/// Writes messages to the client, numbering them.
pub struct Out<W: Write> {
    sink: W,
    seq: u64,
}

impl<W: Write> Out<W> {
    pub fn new(sink: W) -> Out<W> {
        Out { sink, seq: 0 }
    }

    fn send(&mut self, mut message: Value) -> Result<(), DapError> {
        self.seq += 1;
        message["seq"] = json!(self.seq);
        let body = serde_json::to_vec(&message).map_err(|e| DapError::Protocol(e.to_string()))?;
        write!(self.sink, "Content-Length: {}\r\n\r\n", body.len())?;
        self.sink.write_all(&body)?;
        self.sink.flush()?;
        Ok(())
    }

    pub fn respond(&mut self, request: &Value, answer: Result<Value, String>) -> Result<(), DapError> {
        let mut message = json!({
            "type": "response",
            "request_seq": request["seq"],
            "command": request["command"],
            "success": answer.is_ok(),
        });
        match answer {
            Ok(body) if !body.is_null() => message["body"] = body,
            Ok(_) => {}
            Err(text) => message["message"] = json!(text),
        }
        self.send(message)
    }

    pub fn event(&mut self, event: &str, body: Value) -> Result<(), DapError> {
        let mut message = json!({ "type": "event", "event": event });
        if !body.is_null() {
            message["body"] = body;
        }
        self.send(message)
    }
}

/// Reads one `Content-Length`-framed message; `None` at the end of input.
pub fn read_message(input: &mut impl BufRead) -> Result<Option<Value>, DapError> {
    let bad = |what: String| DapError::Protocol(what);
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                let n = value.trim().parse::<usize>();
                length = Some(n.map_err(|_| bad("a Content-Length that is not a number".into()))?);
            }
        }
    }
    let length = length.ok_or_else(|| bad("a DAP message without Content-Length".into()))?;
    if length > MAX_MESSAGE {
        return Err(bad(format!("a DAP message of {length} bytes (at most {MAX_MESSAGE})")));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    serde_json::from_slice(&body).map(Some).map_err(|_| bad("a DAP message that is not JSON".into()))
}

/// Reads `input` on its own thread, so that `pause` reaches a running
/// motion (it sets `pause`, which the run's interrupt reads).
pub fn spawn_reader(
    mut input: impl BufRead + Send + 'static,
    pause: Arc<AtomicBool>,
) -> mpsc::Receiver<Result<Value, DapError>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || loop {
        let message = read_message(&mut input);
        match &message {
            Ok(None) => return,
            Ok(Some(m)) if m["command"] == "pause" => pause.store(true, Ordering::SeqCst),
            _ => {}
        }
        let failed = message.is_err();
        if tx.send(message.map(|m| m.unwrap_or(Value::Null))).is_err() || failed {
            return;
        }
    });
    rx
}

/// The capabilities `initialize` answers.
pub fn capabilities(break_on_finding: bool) -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsStepBack": true,
        "supportsDataBreakpoints": true,
        "supportsConditionalBreakpoints": true,
        "supportsFunctionBreakpoints": true,
        "supportsEvaluateForHovers": true,
        "supportsTerminateRequest": true,
        "exceptionBreakpointFilters": [
            { "filter": "findings", "label": "q7 findings (stray accesses, races, unwritten reads)",
              "default": break_on_finding }
        ],
    })
}

/// What a `launch` (or `attach`) request asks for besides the op's run.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaunchOptions {
    pub stop_on_entry: bool,
    pub break_on_finding: bool,
}

/// The requests before the op is loaded: answers `initialize`, and hands a
/// `launch` or `attach` request to `accept`, which says what
/// the front end will debug (or why it cannot: the client is told, and may
/// try again). `None`: the client left first.
pub fn handshake<T>(
    requests: &mpsc::Receiver<Result<Value, DapError>>,
    out: &mut Out<impl Write>,
    break_on_finding: bool,
    mut accept: impl FnMut(&Value) -> Result<T, String>,
) -> Result<Option<(Value, LaunchOptions, T)>, DapError> {
    loop {
        let Ok(message) = requests.recv() else { return Ok(None) };
        let request = message?;
        match request["command"].as_str().unwrap_or("") {
            "initialize" => out.respond(&request, Ok(capabilities(break_on_finding)))?,
            "launch" | "attach" => {
                let args = &request["arguments"];
                let options = LaunchOptions {
                    stop_on_entry: args["stopOnEntry"].as_bool().unwrap_or(false),
                    break_on_finding: args["breakOnFinding"].as_bool().unwrap_or(break_on_finding),
                };
                match accept(&request) {
                    Ok(what) => return Ok(Some((request.clone(), options, what))),
                    Err(e) => out.respond(&request, Err(e))?,
                }
            }
            "disconnect" | "terminate" => {
                out.respond(&request, Ok(Value::Null))?;
                return Ok(None);
            }
            other => out.respond(&request, Err(format!("`{other}` before launch")))?,
        }
    }
}

/// Answers the `launch` request `handshake` returned and serves the
/// session's requests until the client leaves.
pub fn serve_session(
    launch: &Value,
    session: Session<'_>,
    options: LaunchOptions,
    pause: Arc<AtomicBool>,
    requests: &mpsc::Receiver<Result<Value, DapError>>,
    out: &mut Out<impl Write>,
) -> Result<(), DapError> {
    out.respond(launch, Ok(Value::Null))?;
    out.event("initialized", Value::Null)?;
    Adapter::new(session, options, pause).run(requests, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_read_by_their_length() {
        let text = b"Content-Length: 9\r\n\r\n{\"seq\":1}content-length:2\r\n\r\n{}Content-Length: 99\r\n\r\n{}";
        let mut input = std::io::Cursor::new(&text[..]);
        assert_eq!(read_message(&mut input).unwrap().unwrap(), json!({"seq": 1}));
        assert_eq!(read_message(&mut input).unwrap().unwrap(), json!({}));
        assert!(read_message(&mut input).is_err(), "a body shorter than its length is an error");
        assert!(read_message(&mut input).unwrap().is_none());
    }
}
