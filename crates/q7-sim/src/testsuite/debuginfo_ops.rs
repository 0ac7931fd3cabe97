//! `q7_sim::debuginfo` on a real op: tests/programs/ops/debug_locals.cpp
//! built with `-g` at `-O0` (locals on the stack, frame-base relative) and
//! `-O2` (registers, location lists, inlined accessors) by q7-build, run
//! on the simulator to the pcs the DWARF gives for a line or a function,
//! and read through a [`FrameView`] of the stopped core.
//!
//! The runs stop with the core's `halt_pc` on the instruction-at-a-time
//! path (`stop_on_finding` makes `Core::run` execute one instruction per
//! step, so a halt pc inside a block is seen): the debugger engine that
//! stops at any pc on the fast engines is built separately.

use std::path::{Path, PathBuf};

use q7_build::driver::{build, BuildRequest, Quiet, ToolchainChoice};
use q7_build::toolchain::ProcessEnv;
use q7_sim::debuginfo::{DebugInfo, DebugInfoError, FrameView, Value};
use q7_sim::machine::{CoreState, Machine};
use q7_sim::op::{ArgValue, OpLibrary, OpOptions, OpSession, TensorArg};
use q7_target::DType;

const SOURCE: &str = "debug_locals.cpp";
const FUNCTION: &str = "debug_locals_forward";
/// The input: each iteration i adds in[i] * window[i % 4] to acc, window = {3, 5, 7, 11}.
const INPUT: [f32; 8] = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0];
const WINDOW: [f32; 4] = [3.0, 5.0, 7.0, 11.0];

fn source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/ops").join(SOURCE)
}

/// The line of the fixture holding `marker`.
fn line_of(marker: &str) -> u32 {
    let text = std::fs::read_to_string(source()).expect("read the fixture");
    text.lines().position(|l| l.contains(marker)).expect("marker in the fixture") as u32 + 1
}

/// Builds the fixture with `-g` and `opt`; the library's path.
fn build_op(dir: &Path, opt: &str) -> PathBuf {
    let request = BuildRequest {
        name: "libdebug_locals".into(),
        functions: vec![FUNCTION.into()],
        schemas: vec![format!("{FUNCTION}(Tensor _0) -> Tensor")],
        sources: vec![source()],
        build_dir: dir.join("build"),
        cflags: vec!["-g".into(), format!("-{opt}")],
        toolchain: ToolchainChoice::Open,
        jobs: 1,
        ..BuildRequest::default()
    };
    let report = build(&request, &ProcessEnv, &Quiet).unwrap_or_else(|e| panic!("building {SOURCE} at -{opt}: {e}"));
    report.libraries[0].clone()
}

/// The innermost frame of core 0.
struct Frame<'a>(&'a Machine);

impl FrameView for Frame<'_> {
    fn register(&self, dwarf_reg: u16) -> Option<u32> {
        let cpu = &self.0.cores[0].cpu;
        match dwarf_reg {
            0..=15 => Some(cpu.reg(usize::from(dwarf_reg))),
            19..=34 => Some(cpu.fr[usize::from(dwarf_reg - 19)]),
            _ => None,
        }
    }

    fn read(&self, addr: u32, len: usize) -> Option<Vec<u8>> {
        self.0.mem.host_read_for(0, addr, len).ok().map(<[u8]>::to_vec)
    }

    fn pc(&self) -> u32 {
        self.0.cores[0].cpu.pc
    }
}

/// Runs core 0 until it is about to execute `pc` (after first leaving
/// `pc`, when it is there already); false when it finished first.
fn run_to(session: &mut OpSession, pc: u32) -> bool {
    let m = &mut session.machine;
    m.cores[0].stop_on_finding = true;
    if m.cores[0].cpu.pc == pc {
        m.cores[0].halt_pc = None;
        m.cores[0].run(&mut m.mem, 1);
    }
    m.cores[0].halt_pc = Some(pc);
    m.states[0] = CoreState::Running;
    m.run();
    m.states[0] == CoreState::Halted && m.cores[0].cpu.pc == pc
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn float(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// What acc holds after iteration `i`.
fn acc_after(i: usize) -> f64 {
    (0..=i).map(|k| f64::from(INPUT[k] * WINDOW[k % 4])).sum()
}

struct Op {
    _dir: tempfile::TempDir,
    library: OpLibrary,
    info: DebugInfo,
    input: Vec<u8>,
}

fn open(opt: &str) -> Op {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = build_op(dir.path(), opt);
    let library = OpLibrary::open(&path, None).expect("open the op");
    let debug = library.images[0].debug.clone().expect("a -g build has DWARF");
    let info = DebugInfo::new(&debug).expect("read the DWARF");
    let input = INPUT.iter().flat_map(|f| f.to_le_bytes()).collect();
    Op { _dir: dir, library, info, input }
}

impl Op {
    fn session(&self) -> (Vec<ArgValue<'_>>, OpOptions) {
        let tensor = TensorArg { name: "x".into(), dtype: DType::F32, shape: vec![INPUT.len()], data: &self.input };
        (vec![ArgValue::Tensor(tensor)], OpOptions::default())
    }
}

fn eval(info: &DebugInfo, pc: u32, session: &OpSession, expr: &str) -> Value {
    info.evaluate(pc, &Frame(&session.machine), expr).unwrap_or_else(|e| panic!("{expr}: {e}"))
}

#[test]
fn debuginfo_o0_lines_and_functions() {
    let op = open("O0");
    let info = &op.info;
    let store = line_of("// loop: store");
    let (line, pcs) = info.line_breakpoints(SOURCE, store).expect("the store line has code");
    assert_eq!((line, pcs.len()), (store, 1), "{pcs:x?}");
    let pc = pcs[0];
    // A line without code moves to the next one that has some; paths match by suffix.
    assert_eq!(info.line_breakpoints(SOURCE, line_of("no code on this line")).unwrap(), (store, pcs.clone()));
    assert_eq!(info.line_breakpoints("ops/debug_locals.cpp", store).unwrap(), (store, pcs.clone()));
    assert_eq!(info.line_breakpoints(&source().display().to_string(), store).unwrap(), (store, pcs.clone()));
    assert!(matches!(info.line_breakpoints("locals.cpp", store), Err(DebugInfoError::NoSourceFile { .. })));
    let past = info.line_breakpoints(SOURCE, 10_000).unwrap_err();
    assert_eq!(past.to_string(), "no code for line 10000 or any line after it in debug_locals.cpp");

    let span = info.line_at(pc).expect("a line at the breakpoint");
    assert!(span.file.ends_with("/tests/programs/ops/debug_locals.cpp"), "{span:?}");
    assert_eq!(span.line, store);
    assert!(span.start <= pc && pc < span.end, "{span:x?}");
    assert!(info.is_statement(pc));
    // The line's code is one span: every pc in it names the same line.
    assert!((span.start..span.end).all(|p| info.line_at(p).is_some_and(|s| s == span)));
    // Then the loop's closing brace (the jump back).
    assert_eq!(info.line_at(span.end).map(|s| s.line), Some(store + 1));

    // Functions break after their prologue, on their first line of code.
    let entry = info.function_breakpoints(FUNCTION);
    assert_eq!(entry.len(), 1);
    assert_eq!(info.line_at(entry[0]).unwrap().line, line_of("t_out = get_dst_tensor()"));
    let note = info.function_breakpoints("note");
    assert_eq!(note.len(), 1);
    assert_eq!(info.line_at(note[0]).unwrap().line, line_of("// note: first line"));
    assert_eq!(info.function_breakpoints("note(Stats&, float, Mode)"), note);
    assert_eq!(info.function_breakpoints("_ZL4noteR5Statsf4Mode"), note);
    assert_eq!(info.function_at(note[0]).as_deref(), Some("note"));
    assert_eq!(info.function_at(pc).as_deref(), Some(FUNCTION));
    assert!(info.function_breakpoints("no_such_function").is_empty());
    // A line break at a function's first line lands after its prologue too, on the first line of code.
    let first = line_of("// note: first line");
    assert_eq!(info.line_breakpoints(SOURCE, line_of("static void note")).unwrap(), (first, note.clone()));

    // An image that moved from its link address: every pc moves with it.
    let mut moved = op.library.images[0].debug.clone().unwrap();
    moved.delta = moved.delta.wrapping_add(0x10_0000);
    let moved = DebugInfo::new(&moved).unwrap();
    assert_eq!(moved.line_breakpoints(SOURCE, store).unwrap(), (store, vec![pc + 0x10_0000]));
    assert_eq!(moved.function_breakpoints("note"), vec![note[0] + 0x10_0000]);
    let moved_span = moved.line_at(pc + 0x10_0000).unwrap();
    assert_eq!(
        (moved_span.line, moved_span.start, moved_span.end),
        (store, span.start + 0x10_0000, span.end + 0x10_0000)
    );
    assert!(moved.is_statement(pc + 0x10_0000) && !moved.is_statement(pc));
}

#[test]
fn debuginfo_o0_locals_and_expressions() {
    let op = open("O0");
    let info = &op.info;
    let pc = info.line_breakpoints(SOURCE, line_of("// loop: store")).unwrap().1[0];
    let (args, opts) = op.session();
    let mut session = op.library.prepare(FUNCTION, &args, &opts).expect("prepare");
    for round in 0..3 {
        assert!(run_to(&mut session, pc), "round {round}");
    }
    // Third time on the store: i == 2, and acc holds three products.
    let vars = info.variables(pc, &Frame(&session.machine));
    let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["i", "t_in", "t_out", "in", "out", "n", "window", "stats", "acc", "w"]);
    let params: Vec<&str> = vars.iter().filter(|v| v.is_parameter).map(|v| v.name.as_str()).collect();
    assert_eq!(params, ["t_in"]);
    let by_name = |name: &str| vars.iter().find(|v| v.name == name).unwrap();
    assert_eq!((by_name("i").type_name.as_str(), int(&by_name("i").value)), ("int", 2));
    assert_eq!(by_name("n").value.as_i64(), Some(8));
    assert_eq!((by_name("acc").type_name.as_str(), float(&by_name("acc").value)), ("float", acc_after(2)));
    assert_eq!(by_name("window").type_name, "int [4]");
    assert_eq!(by_name("window").value.to_string(), "{3, 5, 7, 11}");
    assert_eq!(by_name("stats").value.to_string(), "{count = 3, total = 3, max = 1.5}");
    assert_eq!(by_name("w").type_name, "const int *");
    assert_eq!(by_name("t_in").type_name, "const at::Tensor &");
    assert_eq!(by_name("in").type_name, "at::TensorAccessor<float, 1U, true>");

    let e = |expr: &str| eval(info, pc, &session, expr);
    assert_eq!(int(&e("w[i % 4]")), 7);
    assert_eq!(int(&e("*w")), 3);
    assert_eq!(e("w == &window[0]"), Value::Bool(true));
    assert_eq!(e("w + 3 == window + 3"), Value::Bool(true));
    assert_eq!(int(&e("&window[3] - w")), 3);
    assert_eq!(float(&e("stats.total + stats.max")), 4.5);
    assert_eq!(int(&e("(&stats)->count")), 3);
    assert_eq!(float(&e("acc / 2")), acc_after(2) / 2.0);
    assert_eq!(e("i == 2 && n > i"), Value::Bool(true));
    // The accessors' raw pointers reach the tensors.
    assert_eq!(int(&e("in.stride0_")), 1);
    assert_eq!(float(&e("in.data_[i]")), f64::from(INPUT[2]));
    assert_eq!(float(&e("out.data_[i - 1]")), acc_after(1));
    let Value::Pointer { type_name, address } = e("&acc") else { panic!("&acc is a pointer") };
    assert_eq!(type_name, "float *");
    assert_eq!(
        address,
        Frame(&session.machine).register(7).unwrap() + 28,
        "acc is at DW_OP_fbreg +28, a7 the frame base"
    );
    assert!(matches!(info.evaluate(pc, &Frame(&session.machine), "nosuch + 1"), Err(DebugInfoError::NoSymbol { .. })));

    // A condition, as `break … if i == 5` evaluates it at each hit.
    while eval(info, pc, &session, "i == 5").is_true() != Some(true) {
        assert!(run_to(&mut session, pc), "never i == 5");
    }
    assert_eq!(float(&eval(info, pc, &session, "acc")), acc_after(5));
    assert_eq!(int(&eval(info, pc, &session, "stats.count")), 6);

    // Into the helper: the reference parameter shows its referent.
    let note = info.function_breakpoints("note")[0];
    assert!(run_to(&mut session, note));
    let vars = info.variables(note, &Frame(&session.machine));
    let shown: Vec<String> = vars.iter().map(|v| format!("{} = {:#}", v.name, v.value)).collect();
    let s = match &vars[0].value {
        Value::Reference { address, .. } => *address,
        other => panic!("s is a reference, not {other}"),
    };
    let total: f32 = INPUT[..6].iter().sum();
    let expected =
        [format!("s = @{s:#x}: {{count = 6, total = {total}, max = 3}}"), "v = 3.5".into(), "mode = MODE_MAX".into()];
    assert_eq!(shown, expected);
    assert!(vars.iter().all(|v| v.is_parameter));
    assert_eq!(vars[0].type_name, "Stats &");
    let e = |expr: &str| eval(info, note, &session, expr);
    assert_eq!(int(&e("s.count")), 6);
    assert_eq!(e("mode == 2 && v > s.max"), Value::Bool(true));
    // Enumeration constants: unscoped by plain name, scoped (the SDK's c10::ScalarType) qualified.
    assert_eq!(e("mode == MODE_MAX && mode != MODE_SUM"), Value::Bool(true));
    assert_eq!(int(&e("MODE_MAX + 1")), 3);
    assert_eq!(e("c10::ScalarType::Float").to_string(), "Float");
    assert_eq!(int(&e("ScalarType::Float")), 6);
    assert!(info.evaluate(note, &Frame(&session.machine), "Float").is_err(), "a scoped constant needs its enum");
    // A global, by qualified and plain name (its address is DW_OP_addrx + the image's delta).
    assert_eq!(int(&e("probe::calls")), 6);
    assert_eq!(int(&e("calls + 1")), 7);
    assert_eq!(e("&probe::calls").as_i64().map(|a| a as u32), op.library.images[0].symbol("_ZN5probe5callsE"));
}

#[test]
fn debuginfo_o2_registers_and_location_lists() {
    let op = open("O2");
    let info = &op.info;
    // Line 26's code is all inlined from the SDK's Tensor.h: it still has a breakpoint, named by line 26.
    let accessor = line_of("auto in = t_in.accessor");
    let (line, pcs) = info.line_breakpoints(SOURCE, accessor).unwrap();
    assert_eq!((line, pcs.len()), (accessor, 1));
    assert_eq!(info.line_at(pcs[0]).map(|s| s.line), Some(accessor));
    assert_eq!(info.function_at(pcs[0]).as_deref(), Some(FUNCTION));

    let (args, opts) = op.session();
    let mut session = op.library.prepare(FUNCTION, &args, &opts).expect("prepare");
    // The loop's first line: i and acc are constants there (DW_OP_consts/stack_value,
    // DW_OP_implicit_value), n a register.
    let head = info.line_breakpoints(SOURCE, line_of("for (int i = 0")).unwrap().1[0];
    assert!(run_to(&mut session, head));
    let e = |session: &OpSession, pc: u32, expr: &str| eval(info, pc, session, expr);
    assert_eq!(int(&e(&session, head, "i")), 0);
    assert_eq!(float(&e(&session, head, "acc")), 0.0);
    assert_eq!(int(&e(&session, head, "n")), INPUT.len() as i64);

    let store = info.line_breakpoints(SOURCE, line_of("// loop: store")).unwrap().1[0];
    for round in 0..3 {
        assert!(run_to(&mut session, store), "round {round}");
    }
    let vars = info.variables(store, &Frame(&session.machine));
    let by_name = |name: &str| &vars.iter().find(|v| v.name == name).unwrap().value;
    assert_eq!(int(by_name("i")), 2, "i lives in a6 here");
    assert_eq!(float(by_name("acc")), acc_after(2), "acc lives in f8 here");
    assert_eq!(by_name("stats").to_string(), "{count = 3, total = 3, max = 1.5}");
    // Gone at -O2: the array and the pointer into it; the parameter after its last use.
    assert_eq!(*by_name("window"), Value::OptimizedOut);
    assert_eq!(*by_name("w"), Value::OptimizedOut);
    assert_eq!(*by_name("t_in"), Value::OptimizedOut);
    assert_eq!(e(&session, store, "window[1]"), Value::OptimizedOut);
    let err = info.evaluate(store, &Frame(&session.machine), "w[0] + 1").unwrap_err();
    assert_eq!(err.to_string(), "`w[0] + 1`: value has been optimized out");
    assert_eq!(float(&e(&session, store, "acc * 2 + i")), 2.0 * acc_after(2) + 2.0);

    // The helper's parameters are registers (a2: the reference, a3: the
    // float) and a constant (mode).
    let note = info.function_breakpoints("note");
    assert_eq!(note.len(), 1);
    assert!(run_to(&mut session, note[0]));
    let e = |expr: &str| eval(info, note[0], &session, expr);
    assert_eq!(float(&e("v")), f64::from(INPUT[3]));
    assert_eq!(e("mode").to_string(), "MODE_MAX");
    assert_eq!(float(&e("s.total")), 3.0);
    assert_eq!(float(&e("s.max")), 1.5);
    assert_eq!(int(&e("probe::calls")), 3);
    assert_eq!(info.function_at(note[0]).as_deref(), Some("note"));
}

/// A frame that answers everything: registers hold `0x8400_1000`, memory is zeros.
struct Anything;

impl FrameView for Anything {
    fn register(&self, _: u16) -> Option<u32> {
        Some(0x8400_1000)
    }
    fn read(&self, _: u32, len: usize) -> Option<Vec<u8>> {
        (len <= 1 << 20).then(|| vec![0; len])
    }
    fn pc(&self) -> u32 {
        0x8400_0000
    }
}

#[test]
fn debuginfo_damaged_dwarf_never_panics() {
    let op = open("O2");
    let debug = op.library.images[0].debug.clone().unwrap();
    let elf = q7_elf::ElfFile::parse(&debug.bytes).unwrap();
    let sections: Vec<(usize, usize)> = (elf.sections().iter())
        .filter(|s| s.name.starts_with(".debug_") && !s.data().is_empty())
        .map(|s| (s.offset as usize, s.data().len()))
        .collect();
    let pcs = op.info.function_breakpoints(FUNCTION);
    let mut rng = q7_testkit::Rng::new(0xd1ba6);
    for _ in 0..120 {
        let mut bytes = debug.bytes.to_vec();
        for _ in 0..1 + rng.below(4) {
            let (start, len) = sections[rng.below(sections.len())];
            let at = start + rng.below(len);
            bytes[at] = rng.next_u64() as u8;
        }
        let damaged = q7_sim::op::DebugElf { bytes: bytes.into(), delta: 0 };
        let Ok(info) = DebugInfo::new(&damaged) else { continue };
        let _ = info.line_breakpoints(SOURCE, line_of("// loop: store"));
        let _ = info.function_breakpoints("note");
        for pc in pcs.iter().flat_map(|&pc| pc..pc + 0x40) {
            let _ = (info.line_at(pc), info.is_statement(pc), info.function_at(pc));
        }
        for v in info.variables(pcs[0] + 0x80, &Anything) {
            let _ = v.value.to_string();
        }
        for expr in ["stats", "w[i] + acc", "*t_in", "probe::calls", "in.data_[3]"] {
            let _ = info.evaluate(pcs[0] + 0x80, &Anything, expr).map(|v| v.to_string());
        }
    }
}
