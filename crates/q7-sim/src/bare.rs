//! Bare-metal programs on a single core laid out like QEMU's `-M sim`
//! machine for a sample core: the ELF's segments are loaded where they are
//! linked and the core starts at the reset vector, exactly as
//! `qemu-system-xtensa -M sim -cpu <core> -semihosting -kernel prog.elf`
//! does. This is what the differential tests compare against QEMU.

use crate::config::CoreConfig;
use crate::machine::{CoreState, Machine, RunEnd, RunLimits};
use crate::mem::{Memory, Perms, RegionKind};
use crate::output::OutputMode;
use crate::SimError;

/// A QEMU sample board: the core and where its memories and reset are.
#[derive(Clone, Debug)]
pub struct Board {
    pub core: CoreConfig,
    pub ram: (u32, u32),
    pub rom: (u32, u32),
    pub reset: u32,
}

impl Board {
    /// `-cpu de212`: system ROM at 0x50000000 (the reset vector), RAM at
    /// 0x60000000 where VECBASE points (128 MiB, QEMU's default RAM size).
    pub fn de212() -> Board {
        Board {
            core: CoreConfig::de212(),
            ram: (0x6000_0000, 0x0800_0000),
            rom: (0x5000_0000, 0x1_0000),
            reset: 0x5000_0000,
        }
    }

    /// `-cpu de233_fpu`: RAM from 0 (VECBASE 0x2000), reset in the system
    /// ROM at 0xfe000000.
    pub fn de233_fpu() -> Board {
        Board { core: CoreConfig::de233_fpu(), ram: (0, 0x0800_0000), rom: (0xfe00_0000, 0x1_0000), reset: 0xfe00_0000 }
    }
}

/// What a bare run produced.
#[derive(Debug)]
pub struct BareRun {
    pub end: RunEnd,
    /// The status passed to SYS_exit, when the program exited.
    pub exit_code: Option<i32>,
    /// The console output, up to [`crate::output::CAPTURE_LIMIT`] bytes a
    /// stream; `console_dropped` counts the bytes past it.
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub console_dropped: u64,
    pub insns: u64,
    pub cycles: u64,
    /// Why the core stopped, when it did not exit.
    pub stop: Option<crate::stop::Stop>,
}

/// Builds the board's memory and loads `elf` into it.
pub fn load(board: &Board, elf: &[u8]) -> Result<Machine, SimError> {
    let mut mem = Memory::new(1);
    mem.add_region("rom", RegionKind::Rom, board.rom.0, board.rom.1, Perms::RWX, None);
    mem.add_region("ram", RegionKind::Ram, board.ram.0, board.ram.1, Perms::RWX, None);
    // As QEMU's loader: an Xtensa program, whose segments do not overlap.
    let file = q7_elf::ElfFile::parse_xtensa(elf)?;
    let mut spans: Vec<(u64, u64)> = file
        .load_segments()
        .filter(|seg| seg.memsz > 0)
        .map(|seg| (u64::from(seg.vaddr), u64::from(seg.vaddr) + u64::from(seg.memsz)))
        .collect();
    spans.sort();
    if let Some(pair) = spans.windows(2).find(|pair| pair[1].0 < pair[0].1) {
        return Err(SimError::OverlappingSegments { first: pair[0].0 as u32, second: pair[1].0 as u32 });
    }
    for seg in file.load_segments() {
        if seg.filesz == 0 {
            continue;
        }
        let bytes = elf
            .get(seg.offset as usize..(seg.offset as usize).saturating_add(seg.filesz as usize))
            .ok_or(SimError::SegmentPastEnd { vaddr: seg.vaddr })?;
        mem.host_write(seg.vaddr, bytes)?;
    }
    let output = OutputMode { prefix: false, stream: false };
    let mut machine = Machine::new(mem, &board.core, 1, output);
    machine.cores[0].cpu.pc = board.reset;
    Ok(machine)
}

/// Loads and runs `elf` to completion.
pub fn run(board: &Board, elf: &[u8], limits: RunLimits) -> Result<BareRun, SimError> {
    let mut machine = load(board, elf)?;
    Ok(finish(&mut machine, limits))
}

/// A hash of core 0's architectural state (pc, the visible window, the
/// window, loop, boolean, FP and exception registers, the counts) and of
/// all memory: two engines that ran the same program must give the same.
pub fn state_digest(machine: &Machine) -> u64 {
    use std::hash::{Hash, Hasher};
    const PAGE: usize = 4096;
    static ZEROS: [u8; PAGE] = [0; PAGE];
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let cpu = &machine.cores[0].cpu;
    (cpu.pc, cpu.ar, cpu.windowbase, cpu.windowstart, cpu.ps, cpu.sar).hash(&mut hasher);
    (cpu.lbeg, cpu.lend, cpu.lcount, cpu.br, cpu.fr, cpu.fcr, cpu.fsr).hash(&mut hasher);
    (cpu.epc1, cpu.exccause, cpu.excvaddr, cpu.insns, cpu.cycles, cpu.exceptions).hash(&mut hasher);
    (&cpu.irq, cpu.region_attr).hash(&mut hasher);
    // Pages of zeros are left out, the others hashed with their index: most
    // of a board's 128 MiB is never written, and hashing all of it cost more
    // than running most programs.
    for region in &machine.mem.regions {
        (region.base, region.data.len()).hash(&mut hasher);
        for (index, page) in region.data.chunks(PAGE).enumerate() {
            if page != &ZEROS[..page.len()] {
                (index, page).hash(&mut hasher);
            }
        }
    }
    hasher.finish()
}

/// Runs a loaded machine to completion; the machine keeps its final state.
pub fn finish(machine: &mut Machine, limits: RunLimits) -> BareRun {
    machine.limits = limits;
    let end = machine.run();
    let (exit_code, stop) = match &machine.states[0] {
        CoreState::Exited(code) => (Some(*code), None),
        CoreState::Stopped(stop) => (None, Some(stop.clone())),
        CoreState::Running | CoreState::Halted => (None, None),
    };
    let cpu = &machine.cores[0].cpu;
    BareRun {
        end,
        exit_code,
        insns: cpu.insns,
        cycles: cpu.cycles,
        stop,
        stdout: std::mem::take(&mut machine.output.stdout),
        stderr: std::mem::take(&mut machine.output.stderr),
        console_dropped: machine.output.dropped,
    }
}
