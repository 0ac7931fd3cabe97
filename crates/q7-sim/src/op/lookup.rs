//! Finding an op's function index: by running the image's own
//! `get_func_cnt`/`get_func_name` on the simulator when it has symbols, else
//! by finding the wrapper's name table in the image bytes.

use super::OpError;
use super::OpImage;
use crate::machine::Machine;
use crate::SimError;

/// Finds the function index of `name`: by calling the image's
/// `get_func_cnt`/`get_func_name` on core 0 when it has symbols, else by
/// finding the wrapper's name table in the image bytes.
pub(super) fn resolve_function(machine: &mut Machine, img: &OpImage, name: &str) -> Result<u32, OpError> {
    if let (Some(cnt), Some(get_name)) = (img.symbol("get_func_cnt"), img.symbol("get_func_name")) {
        let count = call_function(machine, img, cnt, &[])?;
        let mut names = Vec::new();
        for i in 0..count.min(256) {
            let addr = call_function(machine, img, get_name, &[i])?;
            let found = machine.mem.host_read_cstr_for(0, addr, 256).unwrap_or_default();
            if found == name {
                return Ok(i);
            }
            names.push(found);
        }
        return Err(OpError::UnknownFunction { function: name.to_string(), available: names });
    }
    name_table_index(img, name).ok_or_else(|| OpError::NoFunctionTable { function: name.to_string() })
}

/// Without symbols: the wrapper's `q7_func_names` table is an array of
/// pointers to NUL-terminated names, next to `q7_func_ptrs`, an array of as
/// many pointers to functions (each starting with `entry`). Find the word
/// pointing at `name`, the run of name pointers around it, and the slice of
/// that run that has a function-pointer array of its length beside it.
fn name_table_index(img: &OpImage, name: &str) -> Option<u32> {
    img.find_strings(name).into_iter().find_map(|target| name_table_index_at(img, target))
}

fn name_table_index_at(img: &OpImage, target: u32) -> Option<u32> {
    let is_name = |addr: u32| -> bool {
        let Some(tail) = addr.checked_sub(img.base).and_then(|off| img.bytes.get(off as usize..)) else {
            return false;
        };
        // A C identifier: code bytes of `entry a1, N` (36 41 00: "6A") are
        // not, since identifiers do not start with a digit.
        let end = tail.iter().position(|&b| b == 0).unwrap_or(0);
        end > 0
            && (tail[0].is_ascii_alphabetic() || tail[0] == b'_')
            && tail[..end].iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let is_function = |addr: u32| {
        addr.checked_sub(img.base).and_then(|off| img.bytes.get(off as usize)).is_some_and(|&b| b & 0x0f == 6)
    };
    let words = |from: u32, count: u32| (0..count).map(move |k| from.wrapping_add(4 * k));
    for at in (0..img.bytes.len() / 4).map(|i| img.base + 4 * i as u32).filter(|&a| img.word_at(a) == Some(target)) {
        let mut start = at;
        while start >= img.base + 4 && img.word_at(start - 4).is_some_and(is_name) {
            start -= 4;
        }
        let mut end = at + 4;
        while img.word_at(end).is_some_and(is_name) {
            end += 4;
        }
        let mut best: Option<(u32, u32)> = None;
        for s in words(start, (at - start) / 4 + 1) {
            for e in words(at + 4, (end - at) / 4) {
                let len = (e - s) / 4;
                let ptrs_after = words(e, len).all(|w| img.word_at(w).is_some_and(is_function));
                let ptrs_before =
                    s >= img.base + 4 * len && words(s - 4 * len, len).all(|w| img.word_at(w).is_some_and(is_function));
                if (ptrs_after || ptrs_before) && best.is_none_or(|(_, l)| len > l) {
                    best = Some((s, len));
                }
            }
        }
        if let Some((s, _)) = best {
            return Some((at - s) / 4);
        }
    }
    None
}

/// Calls `addr(args...)` on core 0 as a `call4` would, and returns a2.
fn call_function(machine: &mut Machine, img: &OpImage, addr: u32, args: &[u32]) -> Result<u32, SimError> {
    let core = &mut machine.cores[0];
    core.reset();
    let ret = img.base;
    let cpu = &mut core.cpu;
    cpu.pc = addr;
    cpu.ps |= 1 << crate::ps::CALLINC_SHIFT;
    cpu.set_reg(1, img.stack_top() - 0x100);
    cpu.set_reg(4, 1 << 30 | (ret & 0x3fff_ffff));
    for (i, &a) in args.iter().enumerate() {
        cpu.set_reg(6 + i, a);
    }
    core.halt_pc = Some(ret);
    let event = core.run(&mut machine.mem, 10_000_000);
    let result = core.cpu.reg(6);
    core.reset();
    match event {
        crate::cpu::Event::Halted => Ok(result),
        crate::cpu::Event::Stopped(stop) => Err(SimError::CallStopped { addr, stop }),
        other => Err(SimError::CallDidNotReturn { addr, state: format!("{other:?}") }),
    }
}
