//! Where a variable is at a pc: its DWARF location (an expression, or a
//! location list entry covering the pc) evaluated against one frame's
//! registers and memory. Addresses in the expressions (`DW_OP_addr`,
//! `DW_OP_addrx`) and list ranges are link addresses; register contents
//! and memory are the running image's.

use gimli::{AttributeValue, EvaluationResult, Location, Piece, Reader as _};

use super::die::DieRef;
use super::{DebugInfo, FrameView, R};

/// Where an object's bytes are.
#[derive(Clone, Debug)]
pub(crate) enum Loc {
    Memory(u32),
    /// Bytes known without an address (registers, constants, pieces);
    /// `None` for a byte the compiler did not keep.
    Bytes(Vec<Option<u8>>),
    OptimizedOut,
    Unavailable(String),
}

impl Loc {
    /// The `len` bytes at `offset` into this location.
    pub fn at(&self, offset: u32, len: u32) -> Loc {
        match self {
            Loc::Memory(a) => Loc::Memory(a.wrapping_add(offset)),
            Loc::Bytes(b) => {
                let (start, len) = (offset as usize, len as usize);
                Loc::Bytes((start..start + len).map(|i| b.get(i).copied().flatten()).collect())
            }
            other => other.clone(),
        }
    }

    pub fn known(bytes: &[u8]) -> Loc {
        Loc::Bytes(bytes.iter().map(|&b| Some(b)).collect())
    }
}

/// Expression evaluations stop after this many steps (a loop in a broken
/// file must end).
const MAX_STEPS: u32 = 10_000;

/// `a3`, `f8`: the name of an Xtensa DWARF register (LLVM numbering:
/// 0..=15 are a0..a15, 19..=34 are f0..f15).
pub fn register_name(n: u16) -> String {
    match n {
        0..=15 => format!("a{n}"),
        19..=34 => format!("f{}", n - 19),
        _ => format!("DWARF register {n}"),
    }
}

impl DebugInfo {
    /// Where variable `var` (declared in concrete function `function`) is
    /// at link address `a`.
    pub(crate) fn locate(&self, var: DieRef, function: DieRef, a: u32, frame: &dyn FrameView) -> Loc {
        if let Some((holder, value)) = self.sections.attr(var, gimli::DW_AT_location) {
            return match self.pieces(holder, value, function, a, frame, true) {
                Ok(Some(pieces)) => self.assemble(&pieces, frame),
                Ok(None) => Loc::OptimizedOut,
                Err(loc) => loc,
            };
        }
        match self.sections.attr(var, gimli::DW_AT_const_value) {
            Some((_, value)) => const_bytes(&value),
            None => Loc::OptimizedOut,
        }
    }

    /// The pieces a location attribute gives at `a` (`None`: no list
    /// entry covers `a`).
    fn pieces(
        &self,
        holder: DieRef,
        value: AttributeValue<R>,
        function: DieRef,
        a: u32,
        frame: &dyn FrameView,
        frame_base_allowed: bool,
    ) -> Result<Option<Vec<Piece<R>>>, Loc> {
        let unit = self.sections.units.get(holder.unit).ok_or(Loc::OptimizedOut)?;
        let expr = match value {
            AttributeValue::Exprloc(expr) => expr,
            other => {
                let mut list = match self.sections.dwarf.attr_locations(unit, other) {
                    Ok(Some(list)) => list,
                    _ => return Ok(None),
                };
                let found = loop {
                    match list.next() {
                        Ok(Some(entry)) if entry.range.begin <= u64::from(a) && u64::from(a) < entry.range.end => {
                            break Some(entry.data)
                        }
                        Ok(Some(_)) => {}
                        _ => break None,
                    }
                };
                match found {
                    Some(expr) => expr,
                    None => return Ok(None),
                }
            }
        };
        let mut eval = expr.evaluation(unit.encoding());
        eval.set_max_iterations(MAX_STEPS);
        let mut step = eval.evaluate();
        loop {
            let result = step.map_err(|e| Loc::Unavailable(format!("its DWARF location: {e}")))?;
            step = match result {
                EvaluationResult::Complete => break,
                EvaluationResult::RequiresMemory { address, size, .. } => {
                    let bytes = frame
                        .read(address as u32, usize::from(size.min(8)))
                        .ok_or_else(|| Loc::Unavailable(format!("cannot read memory at {address:#x}")))?;
                    eval.resume_with_memory(gimli::Value::Generic(le_u64(&bytes)))
                }
                EvaluationResult::RequiresRegister { register, .. } => {
                    let value = frame.register(register.0).ok_or_else(|| unrecoverable(register.0))?;
                    eval.resume_with_register(gimli::Value::Generic(u64::from(value)))
                }
                EvaluationResult::RequiresFrameBase if frame_base_allowed => {
                    let base = self.frame_base(function, a, frame)?;
                    eval.resume_with_frame_base(u64::from(base))
                }
                EvaluationResult::RequiresRelocatedAddress(address) => {
                    eval.resume_with_relocated_address(u64::from((address as u32).wrapping_add(self.delta)))
                }
                EvaluationResult::RequiresIndexedAddress { index, relocate } => {
                    let address = self
                        .sections
                        .dwarf
                        .address(unit, index)
                        .map_err(|e| Loc::Unavailable(format!("its DWARF location: {e}")))?;
                    let moved = if relocate { (address as u32).wrapping_add(self.delta) } else { address as u32 };
                    eval.resume_with_indexed_address(u64::from(moved))
                }
                EvaluationResult::RequiresBaseType(offset) => {
                    let base = DieRef { unit: holder.unit, offset };
                    let size = self.sections.udata(base, gimli::DW_AT_byte_size).unwrap_or(0);
                    let value_type = match self.sections.attr(base, gimli::DW_AT_encoding) {
                        Some((_, AttributeValue::Encoding(e))) => gimli::ValueType::from_encoding(e, size),
                        _ => None,
                    };
                    let value_type = value_type.ok_or_else(|| Loc::Unavailable("its DWARF location's type".into()))?;
                    eval.resume_with_base_type(value_type)
                }
                EvaluationResult::RequiresEntryValue(_) => {
                    return Err(Loc::Unavailable("its value at the function's entry was not kept".into()))
                }
                EvaluationResult::RequiresFrameBase => {
                    return Err(Loc::Unavailable("a frame base in a frame base".into()))
                }
                EvaluationResult::RequiresCallFrameCfa => {
                    return Err(Loc::Unavailable("it is relative to the call frame address".into()))
                }
                EvaluationResult::RequiresTls(_) => return Err(Loc::Unavailable("it is thread-local".into())),
                _ => return Err(Loc::Unavailable("its DWARF location uses an unsupported operation".into())),
            };
        }
        Ok(Some(eval.result()))
    }

    /// The value `DW_AT_frame_base` of `function` gives at `a`: the
    /// contents of a register (`DW_OP_reg7`: a7, the windowed ABI's frame
    /// pointer) or a computed address.
    fn frame_base(&self, function: DieRef, a: u32, frame: &dyn FrameView) -> Result<u32, Loc> {
        let no_base = || Loc::Unavailable("the function has no frame base".into());
        let (holder, value) = self.sections.attr(function, gimli::DW_AT_frame_base).ok_or_else(no_base)?;
        let pieces = self.pieces(holder, value, function, a, frame, false)?.ok_or_else(no_base)?;
        match pieces.as_slice() {
            [Piece { location: Location::Register { register }, .. }] => {
                frame.register(register.0).ok_or_else(|| unrecoverable(register.0))
            }
            [Piece { location: Location::Address { address }, .. }] => Ok(*address as u32),
            _ => Err(Loc::Unavailable("the function's frame base is not a register or an address".into())),
        }
    }

    /// The bytes the pieces describe.
    fn assemble(&self, pieces: &[Piece<R>], frame: &dyn FrameView) -> Loc {
        if let [piece] = pieces {
            if piece.size_in_bits.is_none() {
                return match &piece.location {
                    Location::Address { address } => Loc::Memory(*address as u32),
                    Location::Empty => Loc::OptimizedOut,
                    location => match piece_bytes(location, 8, frame) {
                        Ok(bytes) => Loc::Bytes(bytes),
                        Err(loc) => loc,
                    },
                };
            }
        }
        let mut bytes = Vec::new();
        for piece in pieces {
            let bits = piece.size_in_bits.unwrap_or(32);
            if bits % 8 != 0 || piece.bit_offset.is_some_and(|o| o != 0) || bits > 8 * 4096 {
                return Loc::Unavailable("it is split into bit pieces".into());
            }
            let len = (bits / 8) as usize;
            match &piece.location {
                Location::Address { address } => match frame.read(*address as u32, len) {
                    Some(b) => bytes.extend(b.into_iter().map(Some)),
                    None => bytes.extend(std::iter::repeat_n(None, len)),
                },
                Location::Empty => bytes.extend(std::iter::repeat_n(None, len)),
                location => match piece_bytes(location, len, frame) {
                    Ok(b) => bytes.extend(b.into_iter().chain(std::iter::repeat(None)).take(len)),
                    Err(_) => bytes.extend(std::iter::repeat_n(None, len)),
                },
            }
        }
        Loc::Bytes(bytes)
    }
}

fn unrecoverable(register: u16) -> Loc {
    Loc::Unavailable(format!("{} is not recoverable in this frame", register_name(register)))
}

/// The bytes of a register, value or constant piece (up to `len`; a
/// register piece wider than a register continues in the next one).
fn piece_bytes(location: &Location<R>, len: usize, frame: &dyn FrameView) -> Result<Vec<Option<u8>>, Loc> {
    match location {
        Location::Register { register } => {
            let mut out = Vec::new();
            let mut n = register.0;
            while out.len() < len.max(4) {
                let value = frame.register(n).ok_or_else(|| unrecoverable(n))?;
                out.extend(value.to_le_bytes().map(Some));
                if out.len() >= len {
                    break;
                }
                n = n.checked_add(1).ok_or_else(|| unrecoverable(n))?;
            }
            Ok(out)
        }
        Location::Value { value } => Ok(value_bytes(*value).into_iter().map(Some).collect()),
        Location::Bytes { value } => {
            Ok(value.to_slice().map_or_else(|_| Vec::new(), |s| s.iter().map(|&b| Some(b)).collect()))
        }
        Location::ImplicitPointer { .. } => Err(Loc::Unavailable("it is an implicit pointer".into())),
        Location::Empty => Err(Loc::OptimizedOut),
        Location::Address { .. } => Err(Loc::Unavailable("address piece".into())),
    }
}

fn value_bytes(value: gimli::Value) -> Vec<u8> {
    use gimli::Value as V;
    match value {
        V::Generic(v) | V::U64(v) => v.to_le_bytes().to_vec(),
        V::I8(v) => v.to_le_bytes().to_vec(),
        V::U8(v) => v.to_le_bytes().to_vec(),
        V::I16(v) => v.to_le_bytes().to_vec(),
        V::U16(v) => v.to_le_bytes().to_vec(),
        V::I32(v) => v.to_le_bytes().to_vec(),
        V::U32(v) => v.to_le_bytes().to_vec(),
        V::I64(v) => v.to_le_bytes().to_vec(),
        V::F32(v) => v.to_le_bytes().to_vec(),
        V::F64(v) => v.to_le_bytes().to_vec(),
    }
}

/// `DW_AT_const_value` as bytes (little-endian, sign-extended when signed).
fn const_bytes(value: &AttributeValue<R>) -> Loc {
    match value {
        AttributeValue::Block(block) => match block.to_slice() {
            Ok(bytes) => Loc::known(bytes.as_ref()),
            Err(_) => Loc::OptimizedOut,
        },
        AttributeValue::Sdata(v) => Loc::known(&v.to_le_bytes()),
        AttributeValue::Data1(v) => Loc::known(&u64::from(*v).to_le_bytes()),
        AttributeValue::Data2(v) => Loc::known(&u64::from(*v).to_le_bytes()),
        AttributeValue::Data4(v) => Loc::known(&u64::from(*v).to_le_bytes()),
        other => match other.udata_value() {
            Some(v) => Loc::known(&v.to_le_bytes()),
            None => Loc::OptimizedOut,
        },
    }
}

pub(crate) fn le_u64(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}
