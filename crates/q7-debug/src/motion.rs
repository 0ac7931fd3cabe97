//! Source-level motion of the selected core: by instruction, by line (over
//! calls or into them), out of a frame; forwards on the timeline, and
//! backwards over the core's recent path.

use q7_sim::debug::{Arrival, Motion, PathStep};

use crate::session::Session;

/// Instructions `reverse-step` looks back over first (doubled, up to
/// [`LONGEST_LOOK_BACK`], when the line started earlier).
const LOOK_BACK: u64 = 4096;
const LONGEST_LOOK_BACK: u64 = 1 << 24;
/// Instructions `step` runs one at a time before it gives up on a line.
const LONGEST_LINE: u64 = 1 << 20;

impl Session<'_> {
    /// The selected core's next instruction (other cores run on as the
    /// schedule has it; breakpoints and watchpoints they reach stop it).
    pub(crate) fn stepi(&mut self) -> Arrival {
        let steps = self.op.timeline.machine.cores[self.core].cpu.steps();
        self.travel(Motion { core_steps: Some((self.core, steps + 1)), ..self.motion() }, false)
    }

    /// The source line (file and line) of core `core` at `pc`.
    fn line(&self, pc: u32) -> Option<(String, u32)> {
        self.op.line_at(self.core, pc).or_else(|| self.op.locate(self.core, pc).source)
    }

    fn pc_sp(&self) -> (u32, u32) {
        let cpu = &self.op.timeline.machine.cores[self.core].cpu;
        (cpu.pc, cpu.reg(1))
    }

    /// Runs the selected core until it is on another source line; `over`
    /// runs calls made from this frame whole (to their return).
    pub(crate) fn step_line(&mut self, over: bool) -> Arrival {
        let (pc, sp) = self.pc_sp();
        let start = self.line(pc);
        if start.is_none() {
            // No line information here (a build without -g, SDK code): out
            // of the function, as gdb does.
            return self.finish();
        }
        for _ in 0..LONGEST_LINE {
            let arrival = match over && self.at_call() {
                true => self.run_to_return(pc_after_call(self.pc_sp().0), self.pc_sp().1),
                false => self.stepi(),
            };
            if arrival != Arrival::Reached {
                return arrival;
            }
            let (now, now_sp) = self.pc_sp();
            let line = self.line(now);
            // Deeper frames (a call stepped into) stop `step` at their first
            // line; `next` only stops in this frame or an outer one.
            let here = !over || now_sp >= sp;
            if here && line.is_some() && line != start {
                return Arrival::Reached;
            }
        }
        Arrival::Reached
    }

    /// `until`: `next` until the line is past the current one (a loop's
    /// back edge does not stop it) or the frame returns.
    pub(crate) fn until_next_line(&mut self) -> Arrival {
        let (pc, sp) = self.pc_sp();
        let Some((_, start)) = self.line(pc) else { return self.finish() };
        loop {
            let arrival = self.step_line(true);
            let (now, now_sp) = self.pc_sp();
            let past = self.line(now).is_some_and(|(_, line)| line > start);
            if arrival != Arrival::Reached || past || now_sp > sp {
                return arrival;
            }
        }
    }

    fn at_call(&self) -> bool {
        self.op.at_call(self.core)
    }

    /// Runs until the selected core is at `ret` with stack pointer `sp`
    /// (the frame that made a call is back), or something else stops it.
    fn run_to_return(&mut self, ret: u32, sp: u32) -> Arrival {
        let core = self.core;
        let temporary = !self.op.timeline.machine.breakpoints[core].contains(&ret);
        self.op.timeline.add_breakpoint(core, ret);
        let arrival = loop {
            let arrival = self.travel(self.motion(), false);
            match arrival {
                Arrival::Breakpoint { core: c, pc } if c == core && pc == ret => {
                    if self.pc_sp().1 == sp {
                        break Arrival::Reached;
                    }
                }
                other => break other,
            }
        };
        if temporary {
            self.op.timeline.remove_breakpoint(core, ret);
        }
        arrival
    }

    /// Runs until the selected frame returns to its caller.
    pub(crate) fn finish(&mut self) -> Arrival {
        let stack = self.op.stack(self.core);
        let Some((caller, _)) = stack.get(self.frame + 1) else { return Arrival::Start };
        self.run_to_return(pc_after_call(caller.pc), caller.sp)
    }

    /// Back to the start of the previous source line the selected core ran
    /// (`over`: in this frame or an outer one, calls skipped).
    pub(crate) fn reverse_line(&mut self, over: bool) -> Arrival {
        let (pc, sp) = self.pc_sp();
        let current = self.line(pc);
        if current.is_none() {
            return self.reverse_finish();
        }
        let mut look = LOOK_BACK;
        loop {
            let path = self.op.timeline.path(self.core, look);
            if let Some(target) = self.previous_line_start(&path, current.clone(), sp, over) {
                self.op.timeline.seek_core(self.core, target);
                return Arrival::Reached;
            }
            if (path.len() as u64) < look || look >= LONGEST_LOOK_BACK {
                // The path reaches the start of the run.
                if let Some(first) = path.first() {
                    self.op.timeline.seek_core(self.core, first.steps);
                }
                return Arrival::Start;
            }
            look *= 4;
        }
    }

    /// In `path` (oldest first), the step where the run of the line before
    /// `current` began, when the path reaches back that far.
    fn previous_line_start(
        &self,
        path: &[PathStep],
        current: Option<(String, u32)>,
        sp: u32,
        over: bool,
    ) -> Option<u64> {
        // A callee's first instruction (its `entry`) still runs on the
        // caller's stack pointer: a function's start is a deeper frame too.
        let at_entry = |p: &PathStep| self.op.locate(self.core, p.pc).function.is_some_and(|(_, offset)| offset == 0);
        let counts = |p: &PathStep| !over || (p.sp >= sp && !at_entry(p));
        let mut i = path.len();
        // Back over the rest of the current line.
        while i > 0 && (!counts(&path[i - 1]) || self.line(path[i - 1].pc) == current) {
            i -= 1;
        }
        let previous = self.line(path.get(i.checked_sub(1)?)?.pc);
        // Back to where that line began (deeper frames inside it skipped).
        while i > 0 && (!counts(&path[i - 1]) || self.line(path[i - 1].pc) == previous) {
            i -= 1;
        }
        if i == 0 {
            return None;
        }
        let mut first = i;
        while !counts(&path[first]) {
            first += 1;
        }
        Some(path[first].steps)
    }

    /// Back to the call that made the selected frame.
    pub(crate) fn reverse_finish(&mut self) -> Arrival {
        let stack = self.op.stack(self.core);
        let Some(&(caller, _)) = stack.get(self.frame + 1).as_ref() else { return Arrival::Start };
        let mut look = LOOK_BACK;
        loop {
            let path = self.op.timeline.path(self.core, look);
            if let Some(call) = path.iter().rev().find(|p| p.pc == caller.pc && p.sp == caller.sp) {
                self.op.timeline.seek_core(self.core, call.steps);
                return Arrival::Reached;
            }
            if (path.len() as u64) < look || look >= LONGEST_LOOK_BACK {
                return Arrival::Start;
            }
            look *= 4;
        }
    }
}

/// Where a windowed call at `pc` returns (every `callN`/`callxN` is three bytes).
fn pc_after_call(pc: u32) -> u32 {
    pc + 3
}
