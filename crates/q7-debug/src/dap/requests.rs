//! The session's DAP requests, each answered by the prompt's [`Session`]:
//! threads are cores (thread id = core + 1, since some clients treat 0 as
//! "none"), frames and variable references are numbers that encode the
//! core, the frame and the scope.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use q7_sim::debug::Arrival;
use serde_json::{json, Value};

use super::{DapError, LaunchOptions, Out};
use crate::{Flow, Move, Session, Stop};

/// Frames per core in a frame id (more than the stack walk gives).
const FRAMES: i64 = 1024;
/// Scopes of a frame: Locals, Arguments, Tensors.
const SCOPES: i64 = 4;

pub struct Adapter<'lib> {
    session: Session<'lib>,
    options: LaunchOptions,
    pause: Arc<AtomicBool>,
    /// Breakpoint numbers of each source path's `setBreakpoints`.
    sources: HashMap<String, Vec<usize>>,
    functions: Vec<usize>,
    data: Vec<usize>,
    /// The last motion stopped for a `pause` (its stopped event is sent).
    paused: bool,
}

fn frame_id(core: usize, frame: usize) -> i64 {
    core as i64 * FRAMES + frame as i64 + 1
}

/// (core, frame) of a frame id.
fn frame_of(id: i64) -> Option<(usize, usize)> {
    let n = id.checked_sub(1).filter(|n| *n >= 0)?;
    Some(((n / FRAMES) as usize, (n % FRAMES) as usize))
}

impl<'lib> Adapter<'lib> {
    pub fn new(session: Session<'lib>, options: LaunchOptions, pause: Arc<AtomicBool>) -> Adapter<'lib> {
        Adapter {
            session,
            options,
            pause,
            sources: HashMap::new(),
            functions: Vec::new(),
            data: Vec::new(),
            paused: false,
        }
    }

    /// Answers requests until `disconnect`/`terminate` or the end of input.
    pub fn run(
        mut self,
        requests: &mpsc::Receiver<Result<Value, DapError>>,
        out: &mut Out<impl Write>,
    ) -> Result<(), DapError> {
        while let Ok(message) = requests.recv() {
            let request = message?;
            let command = request["command"].as_str().unwrap_or("").to_string();
            let args = &request["arguments"];
            let moving = match command.as_str() {
                "continue" => Some(Move::Continue),
                "next" => Some(Move::Next),
                "stepIn" => Some(Move::Step),
                "stepOut" => Some(Move::Finish),
                "stepBack" => Some(Move::ReverseNext),
                "reverseContinue" => Some(Move::ReverseContinue),
                _ => None,
            };
            if let Some(how) = moving {
                self.select(args);
                let body = (how == Move::Continue).then(|| json!({"allThreadsContinued": true}));
                out.respond(&request, Ok(body.unwrap_or(Value::Null)))?;
                self.motion(how, out)?;
                continue;
            }
            match command.as_str() {
                "disconnect" => return out.respond(&request, Ok(Value::Null)),
                // The run is the adapter's own: it ends with the session,
                // which the client ends with `disconnect`.
                "terminate" => {
                    out.respond(&request, Ok(Value::Null))?;
                    out.event("terminated", Value::Null)?;
                }
                "configurationDone" => {
                    out.respond(&request, Ok(Value::Null))?;
                    if self.options.stop_on_entry {
                        out.event("stopped", self.stopped_body("entry", None, None))?;
                    } else {
                        self.motion(Move::Continue, out)?;
                    }
                }
                "pause" => {
                    out.respond(&request, Ok(Value::Null))?;
                    if !std::mem::take(&mut self.paused) {
                        // Nothing was running: stopped where it is.
                        out.event("stopped", self.stopped_body("pause", None, None))?;
                    }
                    self.pause.store(false, Ordering::SeqCst);
                }
                "evaluate" => {
                    let before = self.session.op.timeline.time();
                    let answer = self.evaluate(args);
                    out.respond(&request, answer)?;
                    if self.session.op.timeline.time() != before {
                        // A motion typed in the debug console: the client hears of the stop.
                        self.console(out)?;
                        match self.session.op.timeline.ended() {
                            Some(_) => out.event("terminated", Value::Null)?,
                            None => out.event("stopped", self.stopped_body("step", None, None))?,
                        }
                    }
                }
                _ => {
                    let answer = self.answer(&command, args);
                    out.respond(&request, answer)?;
                }
            }
        }
        Ok(())
    }

    /// The requests that only look or set breakpoints.
    fn answer(&mut self, command: &str, args: &Value) -> Result<Value, String> {
        match command {
            "initialize" => Ok(super::capabilities(self.options.break_on_finding)),
            "threads" => {
                let threads: Vec<Value> =
                    (0..self.session.op.cores()).map(|c| json!({"id": c + 1, "name": format!("core {c}")})).collect();
                Ok(json!({ "threads": threads }))
            }
            "setBreakpoints" => self.set_source_breakpoints(args),
            "setFunctionBreakpoints" => {
                let asked = args["breakpoints"].as_array().cloned().unwrap_or_default();
                let specs = asked.iter().map(|b| with_condition(b["name"].as_str().unwrap_or(""), b)).collect();
                let old = std::mem::take(&mut self.functions);
                let (numbers, answers) = self.replace(&old, specs);
                self.functions = numbers;
                Ok(json!({ "breakpoints": answers }))
            }
            "setExceptionBreakpoints" => {
                let filters = args["filters"].as_array().cloned().unwrap_or_default();
                self.session.findings =
                    self.options.break_on_finding || filters.iter().any(|f| f.as_str() == Some("findings"));
                Ok(Value::Null)
            }
            "dataBreakpointInfo" => {
                let name = args["name"].as_str().unwrap_or("");
                Ok(match self.session.element(name) {
                    Ok(_) => json!({"dataId": name, "description": name, "accessTypes": ["write", "read"]}),
                    Err(why) => json!({"dataId": null, "description": format!(
                        "data breakpoints are on launch tensor elements (TENSOR[I], e.g. dst[17]): {why}")}),
                })
            }
            "setDataBreakpoints" => self.set_data_breakpoints(args),
            "stackTrace" => self.stack_trace(args),
            "scopes" => {
                let id = args["frameId"].as_i64().unwrap_or(0);
                frame_of(id).ok_or("no such frame")?;
                let scope = |name: &str, k: i64, expensive: bool| json!({"name": name, "variablesReference": id * SCOPES + k, "expensive": expensive});
                Ok(
                    json!({"scopes": [scope("Locals", 0, false), scope("Arguments", 1, false), scope("Tensors", 2, false)]}),
                )
            }
            "variables" => self.variables(args),
            "source" => Err("sources are read from disk (the frame's source path)".into()),
            other => Err(format!("q7's debug adapter does not answer `{other}`")),
        }
    }

    /// Selects the request's thread (core) as the prompt's `core N` does.
    fn select(&mut self, args: &Value) {
        let core = args["threadId"].as_u64().and_then(|id| usize::try_from(id).ok()?.checked_sub(1));
        if let Some(core) = core.filter(|&c| c < self.session.op.cores()) {
            (self.session.core, self.session.frame) = (core, 0);
        }
    }

    /// Runs a motion and tells the client where it stopped (and what the
    /// cores printed on the way).
    fn motion(&mut self, how: Move, out: &mut Out<impl Write>) -> Result<(), DapError> {
        let stop = self.session.step(how);
        q7_sim::interrupt::clear();
        self.console(out)?;
        self.report(&stop, out)
    }

    fn console(&mut self, out: &mut Out<impl Write>) -> Result<(), DapError> {
        let bytes = self.session.new_console();
        if bytes.is_empty() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&bytes);
        out.event("output", json!({"category": "stdout", "output": text}))
    }

    /// The stopped (or exited and terminated) events for `stop`.
    fn report(&mut self, stop: &Stop, out: &mut Out<impl Write>) -> Result<(), DapError> {
        let reason = match &stop.arrival {
            Arrival::Ended(_) => {
                let findings =
                    self.session.op.timeline.machine.mem.checker.as_ref().map_or(0, |c| c.counts.iter().sum());
                let failed = (0..self.session.op.cores()).any(|c| self.session.op.core_state(c) != "exited");
                out.event("output", json!({"category": "console", "output": format!("{}\n", stop.text)}))?;
                let code = i32::from(failed || findings > 0u64);
                out.event("exited", json!({"exitCode": code}))?;
                return out.event("terminated", Value::Null);
            }
            Arrival::Breakpoint { .. } => "breakpoint",
            Arrival::Watch { .. } | Arrival::Load { .. } => "data breakpoint",
            Arrival::Finding { .. } | Arrival::FailedExit { .. } => "exception",
            Arrival::Interrupted => {
                self.paused = true;
                "pause"
            }
            Arrival::Reached | Arrival::Start => "step",
        };
        let first = stop.text.lines().next().unwrap_or("").to_string();
        let text = matches!(
            stop.arrival,
            Arrival::Finding { .. }
                | Arrival::FailedExit { .. }
                | Arrival::Watch { .. }
                | Arrival::Load { .. }
                | Arrival::Start
        )
        .then(|| stop.text.lines().take_while(|l| !l.starts_with("core ")).collect::<Vec<_>>().join("\n"));
        let mut body = self.stopped_body(reason, stop.hit, text);
        if !first.is_empty() {
            body["description"] = json!(first);
        }
        out.event("stopped", body)
    }

    fn stopped_body(&self, reason: &str, hit: Option<usize>, text: Option<String>) -> Value {
        let mut body = json!({"reason": reason, "threadId": self.session.core + 1, "allThreadsStopped": true});
        if let Some(hit) = hit {
            body["hitBreakpointIds"] = json!([hit]);
        }
        if let Some(text) = text {
            body["text"] = json!(text);
        }
        body
    }

    /// Deletes breakpoints `old`, sets `specs` (each `break` text); the
    /// numbers set and each one's DAP answer.
    fn replace(&mut self, old: &[usize], specs: Vec<String>) -> (Vec<usize>, Vec<Value>) {
        for number in old {
            let _ = self.session.delete(&number.to_string());
        }
        let mut numbers = Vec::new();
        let answers = specs
            .iter()
            .map(|spec| match self.session.set_breakpoint(spec) {
                Ok(b) => {
                    numbers.push(b.number);
                    let mut answer = json!({"id": b.number, "verified": true});
                    if let Some(line) = b.line {
                        answer["line"] = json!(line);
                    }
                    answer
                }
                Err(why) => json!({"verified": false, "message": why}),
            })
            .collect();
        (numbers, answers)
    }

    fn set_source_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let path = args["source"]["path"].as_str().ok_or("setBreakpoints needs source.path")?.to_string();
        let asked = args["breakpoints"].as_array().cloned().unwrap_or_default();
        let old = self.sources.remove(&path).unwrap_or_default();
        let base = path.rsplit('/').next().unwrap_or(&path).to_string();
        // The path as the client has it when the build recorded the same,
        // else the file's name (the build may have compiled a copy).
        let file = match self.session.op.line_breakpoints(0, &path, 1) {
            Ok(_) => path.clone(),
            Err(_) => base,
        };
        let specs = asked.iter().map(|b| with_condition(&format!("{file}:{}", b["line"]), b)).collect();
        let (numbers, mut answers) = self.replace(&old, specs);
        for answer in &mut answers {
            answer["source"] = json!({"path": path});
        }
        self.sources.insert(path, numbers);
        Ok(json!({ "breakpoints": answers }))
    }

    fn set_data_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        for number in std::mem::take(&mut self.data) {
            let _ = self.session.delete(&number.to_string());
        }
        let asked = args["breakpoints"].as_array().cloned().unwrap_or_default();
        let mut answers = Vec::new();
        for b in &asked {
            let id = b["dataId"].as_str().unwrap_or("");
            // `read` is a read watchpoint; `write` and `readWrite` stop at stores.
            let spec = if b["accessType"] == "read" { format!("-r {id}") } else { id.to_string() };
            answers.push(match self.session.add_watch(&spec) {
                Ok(_) => {
                    let number = self.session.last_number();
                    self.data.push(number);
                    json!({"id": number, "verified": true, "description": id})
                }
                Err(why) => json!({"verified": false, "message": why}),
            });
        }
        Ok(json!({ "breakpoints": answers }))
    }

    fn stack_trace(&mut self, args: &Value) -> Result<Value, String> {
        let core = args["threadId"].as_u64().and_then(|id| (id as usize).checked_sub(1)).ok_or("no threadId")?;
        if core >= self.session.op.cores() {
            return Err(format!("no thread {}", core + 1));
        }
        let op = &self.session.op;
        let frames: Vec<Value> = (op.stack(core).iter().enumerate())
            .map(|(i, (frame, at))| {
                let name = at.function.as_ref().map_or_else(|| format!("{:#010x}", frame.pc), |(f, _)| f.clone());
                // An outer frame's pc is its return address: its line is the call's.
                let pc = if i == 0 { frame.pc } else { frame.pc.saturating_sub(1) };
                let mut json = json!({"id": frame_id(core, i), "name": name, "line": 0, "column": 0,
                                      "instructionPointerReference": format!("{:#010x}", frame.pc)});
                if let Some(span) = op.line_span(core, pc) {
                    let file = span.file.rsplit('/').next().unwrap_or(&span.file).to_string();
                    json["source"] = json!({"name": file, "path": span.file});
                    json["line"] = json!(span.line);
                    json["column"] = json!(1);
                }
                json
            })
            .collect();
        let total = frames.len();
        Ok(json!({"stackFrames": frames, "totalFrames": total}))
    }

    fn variables(&mut self, args: &Value) -> Result<Value, String> {
        let reference = args["variablesReference"].as_i64().unwrap_or(0);
        let (core, frame) = frame_of(reference / SCOPES).ok_or("no such variables reference")?;
        let op = &self.session.op;
        let variables: Vec<Value> = match reference % SCOPES {
            2 => (op.tensors.iter())
                .map(|t| {
                    let output = if t.output { ", output" } else { "" };
                    json!({"name": t.name, "value": format!("{:?} {:?} at {:#010x}{output}", t.dtype, t.shape, t.addr),
                           "type": format!("{:?}", t.dtype), "variablesReference": 0})
                })
                .collect(),
            scope => {
                let vars = op.variables(core, frame).map_err(|e| e.to_string())?;
                (vars.iter())
                    .filter(|v| v.is_parameter == (scope == 1))
                    .map(|v| {
                        json!({"name": v.name, "value": v.value.to_string(), "type": v.type_name,
                               "evaluateName": v.name, "variablesReference": 0})
                    })
                    .collect()
            }
        };
        Ok(json!({ "variables": variables }))
    }

    /// `evaluate`: in the watch and hover contexts `print EXPR`; in the
    /// debug console (`repl`) any prompt command, whose motions the client
    /// then hears about as stops.
    fn evaluate(&mut self, args: &Value) -> Result<Value, String> {
        let expr = args["expression"].as_str().unwrap_or("").trim().to_string();
        let (core, frame) = args["frameId"].as_i64().and_then(frame_of).unwrap_or((self.session.core, 0));
        if core < self.session.op.cores() {
            (self.session.core, self.session.frame) = (core, frame);
        }
        if args["context"] != "repl" {
            let text = self.session.print(&expr)?;
            let value = text.strip_prefix(&format!("{expr} = ")).unwrap_or(&text).to_string();
            return Ok(json!({"result": value, "variablesReference": 0}));
        }
        let mut text = Vec::new();
        if self.session.execute(&expr, &mut text).map_err(|e| e.to_string())? == Flow::Quit {
            return Err("quit: end the session from the client (disconnect)".into());
        }
        let text = String::from_utf8_lossy(&text).trim_end().to_string();
        Ok(json!({"result": text, "variablesReference": 0}))
    }
}

/// `SPEC if CONDITION` when the DAP breakpoint has a condition.
fn with_condition(spec: &str, breakpoint: &Value) -> String {
    match breakpoint["condition"].as_str().map(str::trim).filter(|c| !c.is_empty()) {
        Some(condition) => format!("{spec} if {condition}"),
        None => spec.to_string(),
    }
}
