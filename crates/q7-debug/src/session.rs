//! The debugger's commands: parsed from one line each, run against the op's
//! timeline, answered in text (gdb's names and, where it has one, its
//! output's shape).

use std::io::Write;

use q7_sim::debug::{Arrival, Motion, Watch};
use q7_sim::op::debug::OpDebug;
use q7_target::DType;

/// Whether the session goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// A motion of the session (each command that runs the machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Continue,
    ReverseContinue,
    Stepi,
    ReverseStepi,
    Step,
    Next,
    ReverseStep,
    ReverseNext,
    Finish,
    ReverseFinish,
    Until,
}

/// Where a motion stopped: the timeline's arrival, the breakpoint or
/// watchpoint number it hit, and the prompt's words for it.
#[derive(Clone, Debug)]
pub struct Stop {
    pub arrival: Arrival,
    pub hit: Option<usize>,
    pub text: String,
}

/// A breakpoint just set: its number and, for FILE:LINE, the line chosen.
#[derive(Clone, Debug)]
pub struct NewBreakpoint {
    pub number: usize,
    pub line: Option<u32>,
    pub text: String,
}

/// A numbered breakpoint: where it was asked for and the pcs it stands
/// for on each core.
struct Breakpoint {
    number: usize,
    spec: String,
    pcs: Vec<(usize, u32)>,
    /// A C expression: the breakpoint stops only where it is true.
    condition: Option<String>,
    hits: u64,
}

/// A numbered watchpoint: the n-th of its kind is the timeline's n-th
/// watch (`loads`: its load watches).
struct Watchpoint {
    number: usize,
    spec: String,
    dtype: DType,
    loads: bool,
}

pub struct Session<'lib> {
    pub op: OpDebug<'lib>,
    /// The core commands look at.
    pub core: usize,
    /// The frame of that core's stack they look at.
    pub frame: usize,
    breakpoints: Vec<Breakpoint>,
    watchpoints: Vec<Watchpoint>,
    next_number: usize,
    /// `continue` stops at findings too.
    pub findings: bool,
    /// Console output shown so far (bytes of the captured streams).
    shown: [usize; 2],
    /// Source files read for the lines stops show (`None`: unreadable).
    sources: std::cell::RefCell<std::collections::HashMap<String, Option<Vec<String>>>>,
}

const HELP: &str = "\
break LOCATION [core N] [if COND]
                     stop at FILE:LINE, FUNCTION or *ADDRESS (every core, or core N), where COND holds
delete [N]           delete breakpoint or watchpoint N (all without N)
watch TENSOR[I]...   stop when an element of a tensor changes (watch *ADDR LEN for bytes)
origin TENSOR[I]...  where the value came from: the stores, loads and moves behind it
continue (c)         run until a breakpoint, watchpoint, finding or the end
step (s), next (n)   run the selected core to the next source line (next: over calls)
stepi (si)           run the selected core one instruction
finish               run until the selected frame returns
until [LOCATION]     next, but not back into a loop (with LOCATION: continue to it)
reverse-continue (rc), reverse-step (rs), reverse-next (rn), reverse-stepi (rsi), reverse-finish
                     the same, backwards in time
backtrace (bt)       the selected core's call stack
frame N, up, down    select a frame of the selected core's stack (frame op: the op's own code)
core N               select a core
info cores|breakpoints|watchpoints|registers|tensors|time
print EXPR           a C/C++ expression of the selected frame (-g builds), an element of a
                     launch tensor (TENSOR[I]...), a register ($a5, $pc, $sp)
info locals, info args  the selected frame's variables (-g builds)
disassemble          the selected core's next instructions
x/NF ADDR            N units at ADDR as F: x (hex words), d, u, f (f32), b (bytes)
quit (q)";

impl<'lib> Session<'lib> {
    pub fn new(op: OpDebug<'lib>, findings: bool) -> Session<'lib> {
        Session {
            op,
            core: 0,
            frame: 0,
            breakpoints: Vec::new(),
            watchpoints: Vec::new(),
            next_number: 1,
            findings,
            shown: [0, 0],
            sources: Default::default(),
        }
    }

    /// Runs one command line, answering on `out`. Errors in the command are
    /// answered, not returned: only failing to write is an error.
    pub fn execute(&mut self, line: &str, out: &mut dyn Write) -> std::io::Result<Flow> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(Flow::Continue);
        }
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let answer = match word {
            "q" | "quit" => return Ok(Flow::Quit),
            "help" | "h" => Ok(HELP.to_string()),
            "b" | "break" => self.add_breakpoint(rest),
            "delete" | "d" => self.delete(rest),
            "watch" => self.add_watch(rest),
            "origin" => self.origin(rest),
            "c" | "continue" => Ok(self.step(Move::Continue).text),
            "rc" | "reverse-continue" => Ok(self.step(Move::ReverseContinue).text),
            "si" | "stepi" => Ok(self.step(Move::Stepi).text),
            "rsi" | "reverse-stepi" => Ok(self.step(Move::ReverseStepi).text),
            "s" | "step" => Ok(self.step(Move::Step).text),
            "n" | "next" => Ok(self.step(Move::Next).text),
            "rs" | "reverse-step" => Ok(self.step(Move::ReverseStep).text),
            "rn" | "reverse-next" => Ok(self.step(Move::ReverseNext).text),
            "finish" => Ok(self.step(Move::Finish).text),
            "u" | "until" if rest.is_empty() => Ok(self.step(Move::Until).text),
            "u" | "until" | "advance" => self.run_to(rest),
            "reverse-finish" => Ok(self.step(Move::ReverseFinish).text),
            "bt" | "backtrace" | "where" => Ok(self.backtrace()),
            "frame" | "f" => self.select_frame(rest),
            "up" => self.select_frame(&(self.frame + 1).to_string()),
            "down" => self.select_frame(&self.frame.saturating_sub(1).to_string()),
            "core" => self.select_core(rest),
            "info" | "i" if matches!(rest, "locals" | "args") => self.locals(rest == "args"),
            "info" | "i" => self.info(rest),
            "disassemble" | "disas" => Ok(self.disassemble()),
            "p" | "print" => self.print(rest),
            _ if word.starts_with("x/") || word == "x" => self.examine(word, rest),
            _ => Err(format!("unknown command `{word}` (help lists them)")),
        };
        match answer {
            Ok(text) if text.is_empty() => {}
            Ok(text) => writeln!(out, "{text}")?,
            Err(message) => writeln!(out, "error: {message}")?,
        }
        self.show_console(out)?;
        q7_sim::interrupt::clear();
        Ok(Flow::Continue)
    }

    /// Runs motion `how` of the selected core (or all, for continue).
    pub fn step(&mut self, how: Move) -> Stop {
        self.go(|s| match how {
            Move::Continue => s.until_stop(false),
            Move::ReverseContinue => s.until_stop(true),
            Move::Stepi => s.stepi(),
            Move::ReverseStepi => s.op.timeline.reverse_step(s.core),
            Move::Step => s.step_line(false),
            Move::Next => s.step_line(true),
            Move::ReverseStep => s.reverse_line(false),
            Move::ReverseNext => s.reverse_line(true),
            Move::Finish => s.finish(),
            Move::ReverseFinish => s.reverse_finish(),
            Move::Until => s.until_next_line(),
        })
    }

    /// Continues (or goes back) to the next stop whose breakpoint's
    /// condition, if any, holds.
    fn until_stop(&mut self, backwards: bool) -> Arrival {
        self.travel(self.motion(), backwards)
    }

    /// Moves as `motion` says, breakpoints counting where their conditions hold.
    pub(crate) fn travel(&mut self, motion: Motion, backwards: bool) -> Arrival {
        let breakpoints = &self.breakpoints;
        let conditions = |core: usize, pc: u32| -> Vec<String> {
            let at: Vec<&Breakpoint> = breakpoints.iter().filter(|b| b.pcs.contains(&(core, pc))).collect();
            // Any unconditional breakpoint there: the hit counts.
            at.iter().map(|b| b.condition.clone()).collect::<Option<Vec<String>>>().unwrap_or_default()
        };
        self.op.travel(motion, backwards, &conditions)
    }

    /// What `continue` stops at.
    pub(crate) fn motion(&self) -> Motion {
        Motion { breakpoints: true, watches: true, findings: self.findings, ..Motion::default() }
    }

    /// Runs a motion and says where it stopped.
    fn go(&mut self, motion: impl FnOnce(&mut Self) -> Arrival) -> Stop {
        let arrival = motion(self);
        self.frame = 0;
        let mut text = String::new();
        let mut number = None;
        match &arrival {
            Arrival::Breakpoint { core, pc } => {
                self.core = *core;
                let hit = self.breakpoints.iter_mut().find(|b| b.pcs.contains(&(*core, *pc)));
                if let Some(b) = hit {
                    b.hits += 1;
                    number = Some(b.number);
                    text = format!("Breakpoint {}, ", b.number);
                }
            }
            Arrival::Watch { core, pc, index, old, new } => {
                self.core = *core;
                let at = self.op.locate(*core, *pc);
                if let Some(w) = self.watchpoints.iter().filter(|w| !w.loads).nth(*index) {
                    number = Some(w.number);
                    let (old, new) = (w.dtype.show(w.dtype.element(old)), w.dtype.show(w.dtype.element(new)));
                    text = format!(
                        "Watchpoint {} {}: {old} -> {new}\n  stored by core {core} at {at}\n",
                        w.number, w.spec
                    );
                }
            }
            Arrival::Load { core, pc, index, addr } => {
                self.core = *core;
                let at = self.op.locate(*core, *pc);
                if let Some(w) = self.watchpoints.iter().filter(|w| w.loads).nth(*index) {
                    number = Some(w.number);
                    let bytes = self.op.timeline.machine.mem.host_read_for(*core, *addr, w.dtype.size()).unwrap_or(&[]);
                    let value = w.dtype.show(w.dtype.element(bytes));
                    text =
                        format!("Read watchpoint {} {}: {value}\n  loaded by core {core} at {at}\n", w.number, w.spec);
                }
            }
            Arrival::Finding { core, .. } => {
                self.core = *core;
                let checker = self.op.timeline.machine.mem.checker.as_ref();
                match checker.and_then(|c| c.findings.last()) {
                    Some(finding) => {
                        let (by, pc) = finding.place();
                        text = format!("Finding: {finding}\n  by core {by} at {}\n", self.op.locate(by, pc));
                    }
                    None => text = "Finding (beyond the ones the checker keeps)\n".into(),
                }
            }
            Arrival::FailedExit { core, status } => {
                self.core = *core;
                let meaning = q7_sim::op::status_meaning(*status);
                text = format!(
                    "core {core} exited with status {status} ({meaning}); the other cores are where they were\n"
                );
                // The exit call's frame: the caller chain shows which check.
                self.frame = 0;
            }
            Arrival::Ended(end) => {
                let mut text = self.ended(end);
                if let q7_sim::machine::RunEnd::Fault(core) = end {
                    // The machine stands at the faulting instruction: look there.
                    (self.core, self.frame) = (*core, 0);
                    text = format!("{text}\n{}", self.where_now());
                }
                return Stop { arrival, hit: None, text };
            }
            Arrival::Start => text = "At the start of the run (no earlier history).\n".into(),
            Arrival::Interrupted => text = "Interrupted.\n".into(),
            Arrival::Reached => {}
        }
        text.push_str(&self.where_now());
        Stop { arrival, hit: number, text }
    }

    /// `core N at LOCATION`, and the source line when the file is at hand.
    fn where_now(&self) -> String {
        let pc = self.op.timeline.machine.cores[self.core].cpu.pc;
        let mut text = format!("core {} at {}", self.core, self.op.locate(self.core, pc));
        if let Some(span) = self.op.line_span(self.core, pc) {
            if let Some(line) = self.source_line(&span.file, span.line) {
                text.push_str(&format!("\n{}\t{}", span.line, line.trim_end()));
            }
        }
        text
    }

    /// Line `line` of the source file at `path` (as the build named it).
    fn source_line(&self, path: &str, line: u32) -> Option<String> {
        let mut sources = self.sources.borrow_mut();
        let lines = sources.entry(path.to_string()).or_insert_with(|| {
            // Sources are small; a file too large to be one is not shown.
            std::fs::metadata(path).ok().filter(|m| m.is_file() && m.len() < 16 << 20)?;
            std::fs::read_to_string(path).ok().map(|t| t.lines().map(String::from).collect())
        });
        lines.as_ref()?.get(line.checked_sub(1)? as usize).cloned()
    }

    fn ended(&mut self, end: &q7_sim::machine::RunEnd) -> String {
        let states: Vec<String> = (0..self.op.cores()).map(|c| format!("core {c} {}", self.op.core_state(c))).collect();
        let findings = self.op.timeline.machine.mem.checker.as_ref().map_or(0, |c| c.counts.iter().sum::<u64>());
        format!("The run ended ({end:?}): {}; {findings} findings.", states.join(", "))
    }

    fn add_breakpoint(&mut self, text: &str) -> Result<String, String> {
        self.set_breakpoint(text).map(|b| b.text)
    }

    /// `break TEXT`: the breakpoint set, or why not.
    pub fn set_breakpoint(&mut self, text: &str) -> Result<NewBreakpoint, String> {
        let (spec, condition) = match text.split_once(" if ") {
            Some((spec, condition)) => (spec.trim(), Some(condition.trim().to_string())),
            None => (text.trim(), None),
        };
        // `LOCATION core N`: one core's copy only (gdb's `thread N`).
        let (spec, only) = match spec.rsplit_once(" core ") {
            Some((spec, n)) => {
                let n: usize = n.trim().parse().map_err(|_| format!("`{}` is not a core number", n.trim()))?;
                if n >= self.op.cores() {
                    return Err(format!("the op runs on {} cores", self.op.cores()));
                }
                (spec.trim(), Some(n))
            }
            None => (spec, None),
        };
        if spec.is_empty() {
            return Err("break needs a location: FILE:LINE, FUNCTION or *ADDRESS".into());
        }
        let file_line = spec.rsplit_once(':').filter(|(f, l)| !f.ends_with(':') && l.parse::<u32>().is_ok());
        let mut pcs = Vec::new();
        let mut chosen = None;
        for core in (0..self.op.cores()).filter(|&c| only.is_none_or(|n| n == c)) {
            if let Some(addr) = spec.strip_prefix('*') {
                pcs.push((core, parse_address(addr)?));
            } else if let Some((file, line)) = file_line {
                let line: u32 = line.parse().map_err(|_| format!("`{line}` is not a line"))?;
                let (at, found) = self.op.line_breakpoints(core, file, line).map_err(|e| e.to_string())?;
                chosen = Some(at);
                pcs.extend(found.into_iter().map(|pc| (core, pc)));
            } else {
                pcs.extend(self.op.function_breakpoints(core, spec).into_iter().map(|pc| (core, pc)));
            }
        }
        if pcs.is_empty() {
            return Err(format!("no function `{spec}` in the op's images"));
        }
        if let Some(condition) = &condition {
            // Parsed now, so a typo is said at once (evaluated at each hit).
            if let Err(e) = self.op.evaluate(pcs[0].0, 0, condition) {
                if matches!(e, q7_sim::debuginfo::DebugInfoError::Syntax { .. }) {
                    return Err(e.to_string());
                }
            }
        }
        for &(core, pc) in &pcs {
            self.op.timeline.add_breakpoint(core, pc);
        }
        let number = self.take_number();
        let (first_core, first_pc) = pcs[0];
        let mut at = self.op.locate(first_core, first_pc).to_string();
        if let (Some(line), Some((file, asked))) = (chosen, file_line) {
            if asked.parse() != Ok(line) {
                at = format!("{at} ({file}:{asked} has no code; line {line})");
            }
        }
        self.breakpoints.push(Breakpoint { number, spec: text.trim().into(), pcs, condition, hits: 0 });
        let every = match only {
            Some(n) => format!(" (core {n} only)"),
            None if self.op.cores() > 1 => " (core 0; every core at its copy)".into(),
            None => String::new(),
        };
        Ok(NewBreakpoint { number, line: chosen, text: format!("Breakpoint {number} at {at}{every}") })
    }

    /// `until LOCATION`: continues to LOCATION (a breakpoint for this once),
    /// or anything else that stops `continue`.
    fn run_to(&mut self, spec: &str) -> Result<String, String> {
        let before: Vec<usize> = self.breakpoints.iter().map(|b| b.number).collect();
        self.add_breakpoint(spec)?;
        let arrival = self.step(Move::Continue).text;
        let added: Vec<usize> = self.breakpoints.iter().map(|b| b.number).filter(|n| !before.contains(n)).collect();
        for n in added {
            self.delete(&n.to_string())?;
        }
        // The temporary breakpoint is not named.
        Ok(arrival.replacen(&format!("Breakpoint {}, ", self.next_number - 1), "", 1))
    }

    /// `info locals` / `info args` of the selected frame.
    fn locals(&self, args: bool) -> Result<String, String> {
        let vars = self.op.variables(self.core, self.frame).map_err(|e| e.to_string())?;
        let lines: Vec<String> =
            vars.iter().filter(|v| v.is_parameter == args).map(|v| format!("{} = {:#}", v.name, v.value)).collect();
        Ok(if lines.is_empty() {
            format!("No {}.", if args { "arguments" } else { "locals" })
        } else {
            lines.join("\n")
        })
    }

    /// The number the last breakpoint or watchpoint set took.
    pub fn last_number(&self) -> usize {
        self.next_number - 1
    }

    fn take_number(&mut self) -> usize {
        self.next_number += 1;
        self.next_number - 1
    }

    pub fn delete(&mut self, what: &str) -> Result<String, String> {
        let numbers: Vec<usize> = match what {
            "" => self.breakpoints.iter().map(|b| b.number).chain(self.watchpoints.iter().map(|w| w.number)).collect(),
            n => vec![n.parse().map_err(|_| format!("`{n}` is not a breakpoint number"))?],
        };
        for number in numbers {
            if let Some(i) = self.breakpoints.iter().position(|b| b.number == number) {
                for (core, pc) in self.breakpoints.remove(i).pcs {
                    let shared = self.breakpoints.iter().any(|b| b.pcs.contains(&(core, pc)));
                    if !shared {
                        self.op.timeline.remove_breakpoint(core, pc);
                    }
                }
            } else if let Some(i) = self.watchpoints.iter().position(|w| w.number == number) {
                let loads = self.watchpoints[i].loads;
                let nth = self.watchpoints[..i].iter().filter(|w| w.loads == loads).count();
                self.watchpoints.remove(i);
                let list = if loads { &mut self.op.timeline.load_watches } else { &mut self.op.timeline.watches };
                list.remove(nth);
            } else {
                return Err(format!("no breakpoint or watchpoint {number}"));
            }
        }
        Ok(String::new())
    }

    pub fn add_watch(&mut self, spec: &str) -> Result<String, String> {
        let (loads, spec) = match spec.strip_prefix("-r ") {
            Some(rest) => (true, rest.trim()),
            None => (false, spec),
        };
        let (dtype, addr, len) = self.bytes(spec)?;
        let watch = Watch { core: self.core, addr, len };
        let number = self.take_number();
        match loads {
            true => self.op.timeline.load_watches.push(watch),
            false => self.op.timeline.watches.push(watch),
        }
        self.watchpoints.push(Watchpoint { number, spec: spec.into(), dtype, loads });
        let kind = if loads { "Read watchpoint" } else { "Watchpoint" };
        Ok(format!("{kind} {number}: {spec}"))
    }

    /// `origin TENSOR[I]...` (or `*ADDR [LEN]`): the stores, loads and moves
    /// behind the value, back to input bytes or the instruction that
    /// computed it.
    fn origin(&mut self, spec: &str) -> Result<String, String> {
        let (dtype, addr, len) = self.bytes(spec)?;
        let bytes =
            self.op.timeline.machine.mem.host_read_for(self.core, addr, len as usize).map_err(|e| e.to_string())?;
        let mut text = format!("{spec} = {}", dtype.show(dtype.element(bytes)));
        for link in self.op.timeline.origin(self.core, addr, len, 16) {
            use q7_sim::debug::Link;
            let line = match link {
                Link::Stored { core, pc, .. } => format!("stored by core {core} at {}", self.op.locate(core, pc)),
                Link::Loaded { core, pc, addr, .. } => {
                    format!("loaded by core {core} at {} from {}", self.op.locate(core, pc), self.name_address(addr))
                }
                Link::Moved { core, pc } => format!("moved by core {core} at {}", self.op.locate(core, pc)),
                Link::Computed { core, pc } => {
                    let insn = self.op.disassemble(core, pc, 1).into_iter().next().map(|(_, t)| t).unwrap_or_default();
                    format!("computed by core {core} at {} (`{insn}`)", self.op.locate(core, pc))
                }
                Link::Unwritten { addr, .. } => {
                    let tensor = self
                        .op
                        .tensors
                        .iter()
                        .any(|t| !t.output && self.tensor_of(addr).is_some_and(|n| n.starts_with(&t.name)));
                    match tensor {
                        true => format!("{}: an input, as the host wrote it", self.name_address(addr)),
                        false => format!("{}: as it was at the start (no core changed it)", self.name_address(addr)),
                    }
                }
                Link::Beyond { core } => format!("... (core {core} set it earlier than the debugger looks back)"),
            };
            text.push_str(&format!("\n  {line}"));
        }
        Ok(text)
    }

    /// The bytes `watch` and `origin` name: `*ADDR [LEN]` (bytes, 4 by
    /// default, at most 64) or a tensor element (its dtype and size).
    fn bytes(&self, spec: &str) -> Result<(DType, u32, u32), String> {
        match spec.strip_prefix('*') {
            Some(rest) => {
                let mut words = rest.split_whitespace();
                let addr = parse_address(words.next().unwrap_or(""))?;
                let len =
                    words.next().map_or(Ok(4), |l| l.parse::<u32>().map_err(|_| format!("`{l}` is not a length")))?;
                Ok((DType::U8, addr, len.clamp(1, 64)))
            }
            None => {
                let (dtype, addr) = self.element(spec)?;
                Ok((dtype, addr, dtype.size() as u32))
            }
        }
    }

    /// `grad[5]` for an address inside a launch tensor.
    fn tensor_of(&self, addr: u32) -> Option<String> {
        self.op.tensors.iter().find_map(|t| {
            let offset = addr.checked_sub(t.addr)? as usize;
            (offset < t.numel() * t.dtype.size()).then(|| format!("{}[{}]", t.name, offset / t.dtype.size()))
        })
    }

    fn name_address(&self, addr: u32) -> String {
        match self.tensor_of(addr) {
            Some(name) => format!("{name} ({addr:#010x})"),
            None => format!("{addr:#010x}"),
        }
    }

    /// `NAME[I][J]...` or `NAME[FLAT]`: the tensor's dtype and the address.
    pub fn element(&self, spec: &str) -> Result<(DType, u32), String> {
        let (name, indices) = spec.split_once('[').ok_or_else(|| format!("`{spec}` is not TENSOR[INDEX]"))?;
        let tensor = self.op.tensor(name.trim()).ok_or_else(|| {
            let names: Vec<&str> = self.op.tensors.iter().map(|t| t.name.as_str()).collect();
            format!("no tensor `{}` (the launch has {})", name.trim(), names.join(", "))
        })?;
        // Each index a number, or an expression of the selected frame.
        let index = (indices.trim_end_matches(']').split("]["))
            .map(|i| match i.trim().parse::<usize>() {
                Ok(n) => Ok(n),
                Err(_) => {
                    let value = self.op.evaluate(self.core, self.frame, i).map_err(|e| format!("index `{i}`: {e}"))?;
                    value
                        .as_i64()
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or_else(|| format!("`{i}` = {value} is not an index"))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((tensor.dtype, tensor.element(&index)?))
    }

    fn backtrace(&self) -> String {
        let stack = self.op.stack(self.core);
        let lines: Vec<String> = (stack.iter().enumerate())
            .map(|(i, (frame, at))| {
                let mark = if i == self.frame { '*' } else { ' ' };
                format!("{mark}#{i} {at} (sp {:#010x})", frame.sp)
            })
            .collect();
        lines.join("\n")
    }

    fn select_frame(&mut self, n: &str) -> Result<String, String> {
        let stack = self.op.stack(self.core);
        let n: usize = match n {
            // The op's own code, not the SDK's check or the wrapper it failed in.
            "op" => {
                let locations: Vec<_> = stack.iter().map(|(_, at)| at.clone()).collect();
                let op = q7_sim::op::op_frame(&locations).ok_or("no frame of the op's own code on this stack")?;
                locations.iter().position(|at| std::ptr::eq(at, op)).unwrap_or(0)
            }
            _ => n.parse().map_err(|_| format!("`{n}` is not a frame number"))?,
        };
        let (frame, at) = stack.get(n).ok_or_else(|| format!("core {} has {} frames", self.core, stack.len()))?;
        self.frame = n;
        // An outer frame's pc is a return address: its line is the call's.
        let pc = if n == 0 { frame.pc } else { frame.pc.wrapping_sub(1) };
        let mut text = format!("#{n} {at}");
        if let Some(span) = self.op.line_span(self.core, pc) {
            if let Some(line) = self.source_line(&span.file, span.line) {
                text.push_str(&format!("\n{}\t{}", span.line, line.trim_end()));
            }
        }
        Ok(text)
    }

    fn select_core(&mut self, n: &str) -> Result<String, String> {
        let n: usize = n.parse().map_err(|_| format!("`{n}` is not a core number"))?;
        if n >= self.op.cores() {
            return Err(format!("the op runs on {} cores", self.op.cores()));
        }
        (self.core, self.frame) = (n, 0);
        Ok(self.where_now())
    }

    fn info(&mut self, what: &str) -> Result<String, String> {
        if what == "cores" {
            let lines: Vec<String> = (0..self.op.cores())
                .map(|c| {
                    let mark = if c == self.core { '*' } else { ' ' };
                    let state = self.op.core_state(c);
                    let cpu = &self.op.timeline.machine.cores[c].cpu;
                    let at = self.op.locate(c, cpu.pc);
                    format!("{mark}core {c}: {state} at {at}, {} instructions", cpu.insns)
                })
                .collect();
            return Ok(lines.join("\n"));
        }
        let machine = &self.op.timeline.machine;
        Ok(match what {
            "breakpoints" | "b" | "watchpoints" => {
                let mut lines: Vec<String> = (self.breakpoints.iter())
                    .map(|b| format!("{}  breakpoint  {}  hit {} times", b.number, b.spec, b.hits))
                    .collect();
                lines.extend(self.watchpoints.iter().map(|w| {
                    format!("{}  {}  {}", w.number, if w.loads { "read watchpoint" } else { "watchpoint" }, w.spec)
                }));
                if lines.is_empty() {
                    "No breakpoints or watchpoints.".into()
                } else {
                    lines.join("\n")
                }
            }
            "registers" | "r" => {
                let cpu = &machine.cores[self.core].cpu;
                let mut text = format!("pc  {:#010x}  {}\n", cpu.pc, self.op.locate(self.core, cpu.pc));
                for n in 0..16 {
                    text.push_str(&format!("a{n:<2} {:#010x}{}", cpu.reg(n), if n % 4 == 3 { "\n" } else { "  " }));
                }
                text.push_str(&format!(
                    "sar {:#x}  ps {:#x}  windowbase {}  lcount {}",
                    cpu.sar, cpu.ps, cpu.windowbase, cpu.lcount
                ));
                text
            }
            "tensors" => (self.op.tensors.iter())
                .map(|t| {
                    format!(
                        "{}: {:?} {:?} at {:#010x}{}",
                        t.name,
                        t.dtype,
                        t.shape,
                        t.addr,
                        if t.output { " (output)" } else { "" }
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
            "time" => {
                let (count, bytes) = self.op.timeline.snapshot_memory();
                format!(
                    "{} steps over all cores; {count} snapshots holding {:.1} MiB",
                    self.op.timeline.time(),
                    bytes as f64 / (1 << 20) as f64
                )
            }
            _ => return Err(format!("info {what}: say cores, breakpoints, watchpoints, registers, tensors or time")),
        })
    }

    /// The selected core's next instructions.
    fn disassemble(&self) -> String {
        let pc = self.op.timeline.machine.cores[self.core].cpu.pc;
        let lines = self.op.disassemble(self.core, pc, 8);
        lines
            .iter()
            .map(|(at, text)| format!("{} {at:#010x}: {text}", if *at == pc { "=>" } else { "  " }))
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn print(&self, what: &str) -> Result<String, String> {
        if let Some(reg) = what.strip_prefix('$') {
            let cpu = &self.op.timeline.machine.cores[self.core].cpu;
            let value = match reg {
                "pc" => cpu.pc,
                "sp" => cpu.reg(1),
                _ => {
                    let n: usize = reg
                        .strip_prefix('a')
                        .and_then(|n| n.parse().ok())
                        .filter(|&n| n < 16)
                        .ok_or_else(|| format!("no register ${reg}"))?;
                    let frames = self.op.stack(self.core);
                    let frame = &frames.get(self.frame).ok_or("no such frame")?.0;
                    cpu.frame_register(&self.op.timeline.machine.mem, frame, n)
                        .ok_or_else(|| format!("a{n} of frame {} is not known", self.frame))?
                }
            };
            return Ok(format!("${reg} = {value} ({value:#x})"));
        }
        let tensor = what.split_once('[').is_some_and(|(name, _)| self.op.tensor(name.trim()).is_some());
        if !tensor {
            let value = self.op.evaluate(self.core, self.frame, what).map_err(|e| e.to_string())?;
            return Ok(format!("{what} = {value}"));
        }
        let (dtype, addr) = self.element(what)?;
        let bytes =
            self.op.timeline.machine.mem.host_read_for(self.core, addr, dtype.size()).map_err(|e| e.to_string())?;
        Ok(format!("{what} = {}", dtype.show(dtype.element(bytes))))
    }

    fn examine(&self, word: &str, rest: &str) -> Result<String, String> {
        let format = word.strip_prefix("x/").unwrap_or("1x");
        let digits: String = format.chars().take_while(char::is_ascii_digit).collect();
        let count: usize = if digits.is_empty() { 1 } else { digits.parse().map_err(|_| "bad count")? };
        let unit = format[digits.len()..].chars().next().unwrap_or('x');
        let addr = parse_address(rest)?;
        let size = if unit == 'b' { 1 } else { 4 };
        let count = count.clamp(1, 4096);
        let mem = &self.op.timeline.machine.mem;
        let bytes = mem.host_read_for(self.core, addr, count * size).map_err(|e| e.to_string())?;
        let per_line = if unit == 'b' { 16 } else { 4 };
        let mut text = String::new();
        for (i, chunk) in bytes.chunks(size).enumerate() {
            if i % per_line == 0 {
                if i > 0 {
                    text.push('\n');
                }
                text.push_str(&format!("{:#010x}:", addr + (i * size) as u32));
            }
            let word = chunk.iter().rev().fold(0u32, |w, &b| w << 8 | u32::from(b));
            let item = match unit {
                'd' => (word as i32).to_string(),
                'u' => word.to_string(),
                'f' => DType::F32.show(DType::F32.element(chunk)),
                'b' => format!("{word:02x}"),
                _ => format!("{word:#010x}"),
            };
            text.push_str(&format!(" {item}"));
        }
        Ok(text)
    }

    /// The cores' console output the user has not seen yet.
    fn show_console(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(&self.new_console())?;
        Ok(())
    }

    /// The cores' console output not taken yet (stdout's, then stderr's).
    pub fn new_console(&mut self) -> Vec<u8> {
        let output = &self.op.timeline.machine.output;
        let mut bytes = Vec::new();
        for (k, stream) in [&output.stdout, &output.stderr].into_iter().enumerate() {
            if stream.len() > self.shown[k] {
                bytes.extend_from_slice(&stream[self.shown[k]..]);
            }
            self.shown[k] = stream.len();
        }
        bytes
    }
}

fn parse_address(text: &str) -> Result<u32, String> {
    q7_target::num::parse_u32(text.trim()).ok_or_else(|| format!("`{}` is not an address", text.trim()))
}

/// The commands' full names, for completion at a prompt.
pub const COMMAND_NAMES: &[&str] = &[
    "backtrace",
    "break",
    "continue",
    "core",
    "delete",
    "finish",
    "frame",
    "help",
    "info",
    "next",
    "print",
    "quit",
    "reverse-continue",
    "reverse-finish",
    "reverse-next",
    "reverse-step",
    "reverse-stepi",
    "step",
    "stepi",
    "watch",
];
