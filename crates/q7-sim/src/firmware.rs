//! The built-in "firmware": the window overflow/underflow handlers the
//! simulator places at iram0 (address 0, 4 KiB, shared by all cores) for q7
//! op images, which carry no exception vectors of their own.
//!
//! The handlers are the standard ones of the windowed ABI, assembled here
//! with q7-isa's encoder so no toolchain is needed at run time:
//!
//! * `WindowOverflowN` (N = 4, 8, 12) stores the spilled frame's a0..a3 in
//!   the 16 bytes below its callee's stack pointer (the callee's a1 is
//!   register a(N+1) of the spilled frame), and for N = 8/12 its a4..a(N-1)
//!   at the end of its own caller's frame, found through the stack pointer
//!   saved at [a1 - 12]; then `rfwo`.
//! * `WindowUnderflowN` reloads the same words and ends with `rfwu`.
//!
//! Every other vector slot holds `ill`; the simulator never vectors there
//! under [`crate::config::ExceptionModel::Firmware`] (it reports instead).
//!
//! The same handlers, as assembly, are `sdk/tests/qemu/window_vectors.inc`
//! (the QEMU test programs' vectors); a test checks that the two agree byte
//! for byte.

use q7_isa::{encode, Insn, Opcode, Operand};

use crate::config::vector;

/// Size of the vector block (iram0).
pub const SIZE: usize = 0x1000;

/// One handler instruction: `s32e`/`l32e` `at, as, offset`, or a return.
#[derive(Clone, Copy)]
enum H {
    S(u8, u8, i32),
    L(u8, u8, i32),
    Rfwo,
    Rfwu,
}

/// Overflow handler for a frame of `n` registers (4, 8, 12).
fn overflow(n: u8) -> Vec<H> {
    let sp = n + 1; // the callee's stack pointer, in the spilled frame
    let mut code = vec![H::S(0, sp, -16)];
    if n == 4 {
        code.extend([H::S(1, sp, -12), H::S(2, sp, -8), H::S(3, sp, -4)]);
    } else {
        // a0 is saved first, so it can hold the caller's caller's sp.
        code.extend([H::L(0, 1, -12), H::S(1, sp, -12), H::S(2, sp, -8), H::S(3, sp, -4)]);
        let extra = i32::from(n - 4) * 4;
        for (i, reg) in (4..n).enumerate() {
            code.push(H::S(reg, 0, -16 - extra + 4 * i as i32));
        }
    }
    code.push(H::Rfwo);
    code
}

/// Underflow handler for a frame of `n` registers.
fn underflow(n: u8) -> Vec<H> {
    let sp = n + 1;
    let mut code = vec![H::L(0, sp, -16), H::L(1, sp, -12), H::L(2, sp, -8)];
    if n == 4 {
        code.push(H::L(3, sp, -4));
    } else {
        // The last register of the frame temporarily holds the caller's sp.
        let tmp = n - 1;
        code.extend([H::L(tmp, 1, -12), H::L(3, sp, -4)]);
        let extra = i32::from(n - 4) * 4;
        for (i, reg) in (4..n).enumerate() {
            code.push(H::L(reg, tmp, -16 - extra + 4 * i as i32));
        }
    }
    code.push(H::Rfwu);
    code
}

fn assemble(code: &[H], at: u32, out: &mut [u8]) {
    let mut pc = at;
    for &h in code {
        let (op, operands) = match h {
            H::S(t, s, off) => (Opcode::S32e, vec![Operand::Ar(t), Operand::Ar(s), Operand::Imm(off)]),
            H::L(t, s, off) => (Opcode::L32e, vec![Operand::Ar(t), Operand::Ar(s), Operand::Imm(off)]),
            H::Rfwo => (Opcode::Rfwo, vec![]),
            H::Rfwu => (Opcode::Rfwu, vec![]),
        };
        let insn = Insn::new(op, pc, &operands).expect("handler instruction has an encoding");
        let bytes = encode(&insn).expect("handler operands are in range");
        let off = pc as usize;
        out[off..off + bytes.len()].copy_from_slice(&bytes);
        pc += bytes.len() as u32;
    }
}

/// The vector block, to be loaded at VECBASE = 0.
pub fn vector_block() -> Vec<u8> {
    let mut block = vec![0u8; SIZE];
    for (n, of, uf) in [
        (4, vector::WINDOW_OVERFLOW4, vector::WINDOW_UNDERFLOW4),
        (8, vector::WINDOW_OVERFLOW8, vector::WINDOW_UNDERFLOW8),
        (12, vector::WINDOW_OVERFLOW12, vector::WINDOW_UNDERFLOW12),
    ] {
        assemble(&overflow(n), of, &mut block);
        assemble(&underflow(n), uf, &mut block);
    }
    block
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_isa::{decode, IsaOptions};

    fn listing(block: &[u8], at: u32) -> Vec<String> {
        let mut out = Vec::new();
        let mut pc = at;
        loop {
            let insn = decode(&block[pc as usize..], pc, &IsaOptions::vision_q7()).unwrap();
            out.push(insn.to_string().replace('\t', " "));
            if matches!(insn.op, Opcode::Rfwo | Opcode::Rfwu) {
                return out;
            }
            pc = insn.next_pc();
        }
    }

    #[test]
    fn handlers_are_the_textbook_sequences() {
        let block = vector_block();
        assert_eq!(
            listing(&block, vector::WINDOW_OVERFLOW8),
            [
                "s32e a0, a9, -16",
                "l32e a0, a1, -12",
                "s32e a1, a9, -12",
                "s32e a2, a9, -8",
                "s32e a3, a9, -4",
                "s32e a4, a0, -32",
                "s32e a5, a0, -28",
                "s32e a6, a0, -24",
                "s32e a7, a0, -20",
                "rfwo"
            ]
        );
        assert_eq!(
            listing(&block, vector::WINDOW_UNDERFLOW12),
            [
                "l32e a0, a13, -16",
                "l32e a1, a13, -12",
                "l32e a2, a13, -8",
                "l32e a11, a1, -12",
                "l32e a3, a13, -4",
                "l32e a4, a11, -48",
                "l32e a5, a11, -44",
                "l32e a6, a11, -40",
                "l32e a7, a11, -36",
                "l32e a8, a11, -32",
                "l32e a9, a11, -28",
                "l32e a10, a11, -24",
                "l32e a11, a11, -20",
                "rfwu"
            ]
        );
        assert_eq!(listing(&block, vector::WINDOW_OVERFLOW4).len(), 5);
    }

    /// The handler bytes equal what llvm-mc assembles from the shared vector
    /// source that the QEMU test programs use.
    #[test]
    fn firmware_matches_the_shared_vector_source() {
        let source = q7_testkit::repo_root().join("sdk/tests/qemu/window_vectors.inc");
        let dir = tempfile::tempdir().unwrap();
        let wrapper = dir.path().join("vectors.S");
        let include = format!("\t.section .vectors, \"ax\", @progbits\n#include \"{}\"\n", source.display());
        std::fs::write(&wrapper, include).unwrap();
        let (text, object) = (dir.path().join("vectors.s"), dir.path().join("vectors.o"));
        let run = |tool: &str, args: &[&std::ffi::OsStr]| {
            let out = std::process::Command::new(tool)
                .args(args)
                .output()
                .unwrap_or_else(|e| panic!("{tool} is not runnable ({e}); run scripts/bootstrap.sh"));
            assert!(out.status.success(), "{tool}: {}", String::from_utf8_lossy(&out.stderr));
        };
        let os = |s: &'static str| std::ffi::OsStr::new(s);
        run(
            "clang-22",
            &[
                os("--target=xtensa"),
                os("-E"),
                os("-x"),
                os("assembler-with-cpp"),
                wrapper.as_os_str(),
                os("-o"),
                text.as_os_str(),
            ],
        );
        run(
            "llvm-mc-22",
            &[
                os("-triple=xtensa"),
                os("-mattr=+windowed,+exception"),
                os("-filetype=obj"),
                text.as_os_str(),
                os("-o"),
                object.as_os_str(),
            ],
        );
        let bytes = std::fs::read(&object).unwrap();
        let elf = q7_elf::ElfFile::parse(&bytes).unwrap();
        let assembled = elf.section_by_name(".vectors").expect("a .vectors section").data();

        // The six window handlers end where vector 1 (kernel level 1) starts.
        let handlers_end = 0x180;
        let block = vector_block();
        assert!(assembled.len() > handlers_end, "{} bytes", assembled.len());
        for at in (0..handlers_end).step_by(4) {
            assert_eq!(block[at..at + 4], assembled[at..at + 4], "at VECBASE + {at:#x}");
        }
        assert!(block[handlers_end..].iter().all(|&b| b == 0), "past the handlers the firmware holds only ill");
    }
}
