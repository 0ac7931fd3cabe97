//! Parking for the parallel schedule (`super::parallel`).
//!
//! A core that only waits (a barrier's spin on memory another core will
//! change) gives its turns away: when two turns in a row end at nearly
//! one pc (within a few instructions), a short look ahead
//! (`Core::spins_without_storing`) checks whether it spins without
//! storing; while it does, its turns are skipped, leaving the host thread
//! to the cores that work (looking again after 1, 2, 4, 4, ... skipped
//! turns). Its turn count stays the round-robin's; only its spinning is
//! shorter.

use crate::cpu::Core;
use crate::mem::Memory;

/// Instructions a spin loop must come back to its state within to count
/// as waiting (a barrier's loop is a handful).
const SPIN_LOOK_AHEAD: u64 = 64;
/// How close two turns' ends must be for the core to be suspected of
/// spinning (a spin loop's blocks are adjacent).
const SPIN_SPAN: u32 = 32;
/// Turns a waiting core skips before it looks again, at the most: the
/// turns between looks double while it keeps waiting (a look costs some
/// microseconds, more than a skipped turn), so a core waits at most this
/// many rounds past its release.
const MAX_UNSEEN_TURNS: u32 = 4;
/// Turns a core that was suspected but found working runs before it can
/// be suspected again, at first and at the most: the wait doubles while
/// its turns keep ending in the same place, so a working loop whose turns
/// happen to end at nearly one pc is looked at ever more rarely.
const SUSPICION_BACKOFF: u32 = 16;
const MAX_SUSPICION_BACKOFF: u32 = 1024;

/// What the schedule knows of whether one core only waits.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Parking {
    /// Where the core's last turn ended, and whether the one before ended
    /// nearly there too (a core that may only be waiting).
    last_end: Option<u32>,
    suspect: bool,
    /// Turns before the core can be suspected again, and the length of
    /// the last such wait (0 once its turns end elsewhere).
    backoff: u32,
    backoff_run: u32,
    /// While it waits: turns to skip before the next look, and the length
    /// of the last such run.
    unseen: u32,
    unseen_run: u32,
}

impl Parking {
    /// Whether the core only waits this turn: suspected, and a look ahead
    /// shows it spinning without storing (so memory another core changes
    /// is what it waits on). Clears the suspicion once it works again.
    pub(super) fn waiting(&mut self, core: &Core, view: &mut Memory) -> bool {
        if !self.suspect {
            return false;
        }
        if self.unseen > 0 {
            self.unseen -= 1;
            return true;
        }
        let spinning = core.spins_without_storing(view, SPIN_LOOK_AHEAD);
        if spinning {
            self.unseen_run = (self.unseen_run * 2).clamp(1, MAX_UNSEEN_TURNS);
            self.unseen = self.unseen_run;
        } else {
            self.suspect = false;
            self.backoff_run = (self.backoff_run * 2).clamp(SUSPICION_BACKOFF, MAX_SUSPICION_BACKOFF);
            self.backoff = self.backoff_run;
            self.unseen_run = 0;
        }
        spinning
    }

    /// Notes where a turn ended: two in a row at nearly one pc make the
    /// core a suspect (unless it was just found working).
    pub(super) fn turn_ended(&mut self, pc: u32) {
        let near = self.last_end.is_some_and(|last| last.abs_diff(pc) <= SPIN_SPAN);
        if !near {
            // Somewhere new: what was learnt of the last place is moot.
            (self.backoff, self.backoff_run) = (0, 0);
        }
        if self.backoff > 0 {
            self.backoff -= 1;
        } else {
            self.suspect = near;
        }
        self.last_end = Some(pc);
    }
}
