//! Source-level debug information of an op image built with `-g`: lines
//! and statements, breakpoint addresses by line or function, and the
//! parameters, locals and C/C++ expressions of a frame, read from DWARF
//! (what gimli reads, versions 2 to 5; built and tested against clang-22's
//! DWARF 5: location lists, inlined code, lexical blocks).
//!
//! Every address in and out of this API is a runtime pc (the DWARF's link
//! address plus [`DebugElf::delta`]). Registers are numbered as the
//! compiler's DWARF numbers them for Xtensa (LLVM): 0..=15 are a0..a15 of
//! the frame's window, 19..=34 are f0..f15; a frame's registers and memory
//! come from a [`FrameView`], so this module knows nothing of the
//! simulator.
//!
//! Lines are shown as the op author sees them: code inlined from another
//! file (an SDK header's accessor) is named by the line in the function's
//! own file that it was inlined into, as [`crate::op::CodeLocation`] does.

mod die;
mod eval;
mod expr;
mod lines;
mod location;
mod object;
mod scopes;
mod source;
mod types;
mod value;

#[cfg(test)]
mod tests;

use std::sync::Arc;

pub use location::register_name;
pub use value::{Value, MAX_ELEMENTS};

type R = gimli::EndianArcSlice<gimli::RunTimeEndian>;
type Dwarf = gimli::Dwarf<R>;
type Unit = gimli::Unit<R>;

/// The linked ELF file whose debug sections describe an image, and how far
/// the image moved from where that file was linked.
#[derive(Clone, Debug)]
pub struct DebugElf {
    pub bytes: Arc<[u8]>,
    pub delta: u32,
}

/// What a debugger gives for one frame of a call stack.
pub trait FrameView {
    /// DWARF register `dwarf_reg` (see the module docs) in this frame;
    /// `None` when the frame cannot recover it.
    fn register(&self, dwarf_reg: u16) -> Option<u32>;
    /// `len` bytes at `addr` as the frame's core sees them; `None` when
    /// not mapped.
    fn read(&self, addr: u32, len: usize) -> Option<Vec<u8>>;
    fn pc(&self) -> u32;
}

/// The source line at a pc and the code of that line around it: `step`
/// and `next` run until the pc leaves `start..end`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineSpan {
    /// The path as the compiler recorded it.
    pub file: String,
    pub line: u32,
    pub start: u32,
    pub end: u32,
}

/// A parameter or local variable in scope, with its value in the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub type_name: String,
    pub value: Value,
    pub is_parameter: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum DebugInfoError {
    #[error("not an ELF file: {0}")]
    Elf(String),
    #[error("the image has no DWARF debug information (not built with -g)")]
    NoDebugInfo,
    #[error("the image's DWARF debug information is malformed: {0}")]
    Dwarf(String),
    #[error("no source file named {file} in the image's debug information")]
    NoSourceFile { file: String },
    #[error("no code for line {line} or any line after it in {file}")]
    NoCode { file: String, line: u32 },
    #[error("`{expr}`: {reason}")]
    Syntax { expr: String, reason: String },
    #[error("no symbol `{name}` in the current context")]
    NoSymbol { name: String },
    #[error("`{expr}`: {reason}")]
    Evaluation { expr: String, reason: String },
}

impl DebugInfoError {
    fn dwarf(e: gimli::Error) -> DebugInfoError {
        DebugInfoError::Dwarf(e.to_string())
    }
}

/// The debug information of one linked image, parsed once.
pub struct DebugInfo {
    sections: die::Sections,
    lines: lines::LineTable,
    scopes: scopes::Scopes,
    /// Runtime address = link address + delta.
    delta: u32,
}

impl DebugInfo {
    pub fn new(debug: &DebugElf) -> Result<DebugInfo, DebugInfoError> {
        let sections = die::Sections::load(&debug.bytes)?;
        let lines = lines::LineTable::read(&sections.dwarf, &sections.units)?;
        let scopes = scopes::Scopes::read(&sections, &lines)?;
        Ok(DebugInfo { sections, lines, scopes, delta: debug.delta })
    }

    fn link(&self, pc: u32) -> u32 {
        pc.wrapping_sub(self.delta)
    }

    fn runtime(&self, a: u32) -> u32 {
        a.wrapping_add(self.delta)
    }

    /// Whether a statement (an `is_stmt` row) starts at `pc`: where `step`
    /// stops.
    pub fn is_statement(&self, pc: u32) -> bool {
        self.lines.is_statement(self.link(pc))
    }

    /// Every source file the line tables name (full paths).
    pub fn files(&self) -> &[String] {
        &self.lines.files
    }

    /// Parameters and locals in scope at `pc`, read through `frame`:
    /// the innermost lexical block's first, out to the function's (or the
    /// inlined function's whose line [`DebugInfo::line_at`] shows); each in
    /// declaration order. Parameters carry `is_parameter`.
    pub fn variables(&self, pc: u32, frame: &dyn FrameView) -> Vec<Variable> {
        let a = self.link(pc);
        let Some((chain, _)) = self.own_scopes(a) else { return Vec::new() };
        let Some(&root) = chain.first() else { return Vec::new() };
        let function = self.scopes.scopes[root].die;
        let mut out = Vec::new();
        for &s in chain.iter().rev() {
            let scope = &self.scopes.scopes[s];
            for var in &scope.vars {
                let ty = self.type_of(var.die);
                let obj = object::Object { loc: self.locate(var.die, function, a, frame), ty };
                out.push(Variable {
                    name: var.name.clone(),
                    type_name: self.type_name(&obj.ty),
                    value: self.value(&obj, frame),
                    is_parameter: var.is_parameter,
                });
            }
            if !matches!(scope.kind, scopes::ScopeKind::Block) {
                break;
            }
        }
        out
    }

    /// The value of C/C++ expression `expr` at `pc`, read through `frame`:
    /// identifiers (locals and parameters in scope, then members of
    /// `this`, then globals and enumeration constants, plain or
    /// qualified: `ns::x`, `Mode::MODE_MAX`), registers
    /// (`$pc`, `$sp`, `$a0`..`$a15`, `$f0`..`$f15`), integer, floating,
    /// character and `true`/`false` literals, unary `- + ! ~ * &`, binary
    /// `* / % + - << >> < <= > >= == != & ^ | && ||` (C's precedence and
    /// conversions; comparisons give `bool`), member `.`/`->`, index `[]`,
    /// parentheses. Calls, casts and assignments are refused.
    pub fn evaluate(&self, pc: u32, frame: &dyn FrameView, expr: &str) -> Result<Value, DebugInfoError> {
        let ast = expr::parse(expr).map_err(|reason| DebugInfoError::Syntax { expr: expr.to_string(), reason })?;
        let context = eval::Context::new(self, self.link(pc), frame);
        let obj = context.eval(&ast).map_err(|e| match e {
            eval::Failure::NoSymbol(name) => DebugInfoError::NoSymbol { name },
            eval::Failure::Invalid(reason) => DebugInfoError::Evaluation { expr: expr.to_string(), reason },
        })?;
        Ok(self.value(&obj, frame))
    }
}
