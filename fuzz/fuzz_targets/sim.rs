//! Any byte string as code for the simulator, as an op image and as a
//! `.npy` file: errors and reported stops are fine, panics and hangs are bugs.
//!
//! * The bytes are placed in RAM and run on a de212-like core (program
//!   vectors) and on a Vision-Q7 core (firmware vectors), a few thousand
//!   instructions each: every decodable instruction, window exception, loop
//!   and fault path gets exercised with arbitrary register contents.
//! * The bytes are loaded as an op image (any q7 prelinker input) and, when
//!   that works, launched with a small budget.
//! * The bytes are parsed as `.npy`; what parses must round-trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_sim::config::CoreConfig;
use q7_sim::machine::{Machine, RunLimits};
use q7_sim::mem::{Memory, Perms, RegionKind};
use q7_sim::op::{OpImage, OpLibrary, OpOptions};
use q7_sim::output::OutputMode;
use q7_target::memmap::Window;

fuzz_target!(|data: &[u8]| {
    for config in [CoreConfig::de212(), CoreConfig::vision_q7()] {
        run_code(config, data);
    }
    if let Ok(image) = OpImage::load(data, Window::Single) {
        let options = OpOptions {
            limits: RunLimits { max_insns: 20_000, ..RunLimits::default() },
            function_index: Some(0),
            ..OpOptions::default()
        };
        if let Ok(library) = OpLibrary::from_images(std::path::Path::new("fuzz"), vec![image]) {
            let _ = library.run("f", &[], &options);
        }
    }
    if let Ok(array) = q7_sim::npy::read(data) {
        assert_eq!(q7_sim::npy::read(&q7_sim::npy::write(&array)).as_ref(), Ok(&array));
    }
});

fn run_code(config: CoreConfig, code: &[u8]) {
    let base = config.vecbase;
    let mut mem = Memory::new(1);
    mem.add_region("ram", RegionKind::Ram, base, 0x1_0000, Perms::RWX, None);
    let len = code.len().min(0xf000);
    mem.host_write(base + 0x400, &code[..len]).unwrap();
    let mut machine = Machine::new(mem, &config, 1, OutputMode { prefix: true, stream: false });
    machine.limits = RunLimits { max_insns: 5_000, quantum: 1_000, ..RunLimits::default() };
    let cpu = &mut machine.cores[0].cpu;
    cpu.pc = base + 0x400;
    for r in 0..16 {
        cpu.set_reg(r, base + 0x8000 + 64 * r as u32);
    }
    let _ = machine.run();
}
