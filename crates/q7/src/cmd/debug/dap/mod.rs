//! `q7 debug --dap`: the Debug Adapter Protocol on stdin/stdout. The
//! editor's requests drive the same [`Session`] the prompt does; this module
//! only frames messages and loads the op the `launch` request names.

mod requests;

use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use anyhow::{Context, Result};
use clap::{ArgMatches, CommandFactory, FromArgMatches};
use serde_json::{json, Value};

use super::commands::Session;

/// Messages larger than this are refused (a request is a few KiB).
const MAX_MESSAGE: usize = 16 << 20;

/// Writes messages to the client, numbering them.
pub(super) struct Out<W: Write> {
    sink: W,
    seq: u64,
}

impl<W: Write> Out<W> {
    fn send(&mut self, mut message: Value) -> Result<()> {
        self.seq += 1;
        message["seq"] = json!(self.seq);
        let body = serde_json::to_vec(&message)?;
        write!(self.sink, "Content-Length: {}\r\n\r\n", body.len())?;
        self.sink.write_all(&body)?;
        self.sink.flush()?;
        Ok(())
    }

    pub(super) fn respond(&mut self, request: &Value, answer: Result<Value, String>) -> Result<()> {
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

    pub(super) fn event(&mut self, event: &str, body: Value) -> Result<()> {
        let mut message = json!({ "type": "event", "event": event });
        if !body.is_null() {
            message["body"] = body;
        }
        self.send(message)
    }
}

/// Reads one `Content-Length`-framed message; `None` at the end of input.
fn read_message(input: &mut impl BufRead) -> Result<Option<Value>> {
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
                length = Some(value.trim().parse::<usize>().context("a Content-Length that is not a number")?);
            }
        }
    }
    let length = length.context("a DAP message without Content-Length")?;
    anyhow::ensure!(length <= MAX_MESSAGE, "a DAP message of {length} bytes (at most {MAX_MESSAGE})");
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(serde_json::from_slice(&body).context("a DAP message that is not JSON")?))
}

/// Reads stdin on its own thread, so that `pause` reaches a running motion
/// (it sets `pause`, which the run's interrupt reads).
fn reader(pause: Arc<AtomicBool>) -> mpsc::Receiver<Result<Value>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut input = BufReader::new(std::io::stdin());
        loop {
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
        }
    });
    rx
}

/// The capabilities `initialize` answers.
fn capabilities(break_on_finding: bool) -> Value {
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

/// `q7 run`'s flags, parsed from a launch request's arguments.
#[derive(Debug, clap::Parser)]
#[command(name = "launch")]
struct LaunchArgv {
    #[command(flatten)]
    run: super::super::session::Args,
}

/// What a `launch` request asks for besides the op's run.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LaunchOptions {
    pub stop_on_entry: bool,
    pub break_on_finding: bool,
}

/// The `q7 run` argv a launch request's arguments stand for (see
/// docs/DEBUGGING.md for the keys).
fn launch_argv(args: &Value) -> Result<Vec<String>, String> {
    let text = |key: &str| args[key].as_str().map(String::from);
    let mut argv = vec!["launch".to_string()];
    argv.push(text("program").ok_or("launch needs \"program\": the build directory or image")?);
    argv.push("--fn".into());
    argv.push(text("fn").ok_or("launch needs \"fn\": the function to run")?);
    for input in args["in"].as_array().into_iter().flatten() {
        argv.push("--in".into());
        argv.push(input.as_str().ok_or("\"in\" lists .npy paths (strings)")?.into());
    }
    for number in args["args"].as_array().into_iter().flatten() {
        argv.push("--arg".into());
        argv.push(match number {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => return Err("\"args\" lists numbers".into()),
        });
    }
    if let Some(shape) = args["dstShape"].as_array() {
        let dims: Option<Vec<String>> = shape.iter().map(|d| d.as_u64().map(|d| d.to_string())).collect();
        argv.push("--dst-shape".into());
        argv.push(dims.ok_or("\"dstShape\" lists dimensions")?.join(","));
    }
    if let Some(dtype) = text("dstDtype") {
        argv.extend(["--dst-dtype".into(), dtype]);
    }
    for flag in args["runArgs"].as_array().into_iter().flatten() {
        argv.push(flag.as_str().ok_or("\"runArgs\" lists `q7 run` flags (strings)")?.into());
    }
    Ok(argv)
}

/// Parses a launch request's arguments as `q7 run` would its flags.
fn parse_launch(args: &Value) -> Result<(super::super::session::Args, ArgMatches), String> {
    let argv = launch_argv(args)?;
    let matches = LaunchArgv::command().try_get_matches_from(&argv).map_err(|e| e.to_string())?;
    let parsed = LaunchArgv::from_arg_matches(&matches).map_err(|e| e.to_string())?;
    Ok((parsed.run, matches))
}

/// Serves one debug session: `initialize`, `launch` (its arguments, or the
/// command line's when it gave the op's), then the session's requests.
pub fn serve(
    cli: Option<&super::super::session::Args>,
    matches: Option<&ArgMatches>,
    break_on_finding: bool,
) -> Result<()> {
    let pause = Arc::new(AtomicBool::new(false));
    let requests = reader(pause.clone());
    let mut out = Out { sink: std::io::stdout().lock(), seq: 0 };
    // Before `launch`: only initialize (and a goodbye) mean anything.
    let (launch, run_args, launch_matches, options) = loop {
        let Ok(message) = requests.recv() else { return Ok(()) };
        let request = message?;
        match request["command"].as_str().unwrap_or("") {
            "initialize" => {
                out.respond(&request, Ok(capabilities(break_on_finding)))?;
            }
            "launch" => {
                let args = &request["arguments"];
                if let Some(cwd) = args["cwd"].as_str() {
                    if let Err(e) = std::env::set_current_dir(cwd) {
                        out.respond(&request, Err(format!("{cwd}: {e}")))?;
                        continue;
                    }
                }
                let options = LaunchOptions {
                    stop_on_entry: args["stopOnEntry"].as_bool().unwrap_or(false),
                    break_on_finding: args["breakOnFinding"].as_bool().unwrap_or(break_on_finding),
                };
                match cli {
                    Some(run) if args.get("program").is_none() => {
                        break (request.clone(), run.clone(), matches.cloned(), options);
                    }
                    _ => match parse_launch(args) {
                        Ok((run, m)) => break (request.clone(), run, Some(m), options),
                        Err(e) => out.respond(&request, Err(e))?,
                    },
                }
            }
            "disconnect" | "terminate" => return out.respond(&request, Ok(Value::Null)),
            other => out.respond(&request, Err(format!("`{other}` before launch")))?,
        }
    };
    let mut run_args = run_args;
    run_args.json = true; // console output is captured: stdout carries the protocol
    let flag = pause.clone();
    let interrupt = q7_sim::interrupt::Interrupt::new(move || flag.load(Ordering::SeqCst));
    let mut started = false;
    let loaded =
        super::super::session::with_prepared(&run_args, launch_matches.as_ref(), Some(interrupt), |_, _, _, op| {
            started = true;
            let session = Session::new(op.into_debug(), options.break_on_finding);
            out.respond(&launch, Ok(Value::Null))?;
            out.event("initialized", Value::Null)?;
            requests::Adapter::new(session, options, pause.clone()).run(&requests, &mut out)
        });
    match loaded {
        // The op did not load: the client is told why, and the session ends.
        Err(e) if !started => {
            out.respond(&launch, Err(format!("{e:#}")))?;
            out.event("terminated", Value::Null)
        }
        other => other,
    }
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

    #[test]
    fn a_launch_becomes_q7_run_flags() {
        let args = json!({"program": "/b", "fn": "f", "in": ["x.npy", "y.npy"], "args": [3, 0.5],
                          "dstShape": [4, 5], "runArgs": ["--engine", "interp"]});
        let argv = launch_argv(&args).unwrap().join(" ");
        assert_eq!(argv, "launch /b --fn f --in x.npy --in y.npy --arg 3 --arg 0.5 --dst-shape 4,5 --engine interp");
        assert!(parse_launch(&args).is_ok());
        assert!(launch_argv(&json!({"fn": "f"})).unwrap_err().contains("\"program\""));
        assert!(parse_launch(&json!({"program": "/b", "fn": "f", "runArgs": ["--bogus"]})).is_err());
    }
}
