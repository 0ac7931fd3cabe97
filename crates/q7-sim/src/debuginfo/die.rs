//! The DWARF sections of one ELF file and reads of single DIEs by
//! reference: attributes found through `DW_AT_abstract_origin` and
//! `DW_AT_specification` (an inlined or out-of-class definition names
//! itself through its declaration), strings and numbers.

use std::sync::Arc;

use gimli::{AttributeValue, Reader as _};
use q7_elf::ElfFile;

use super::{DebugInfoError, Dwarf, Unit, R};

/// A DIE: its unit's index and its offset in that unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct DieRef {
    pub unit: usize,
    pub offset: gimli::UnitOffset<usize>,
}

pub(crate) type Entry<'a> = gimli::DebuggingInformationEntry<'a, 'a, R>;

/// Chains of origins and specifications are short; a cycle (a broken
/// file) must still end.
const MAX_HOPS: usize = 8;

pub(crate) struct Sections {
    pub dwarf: Dwarf,
    pub units: Vec<Unit>,
}

impl Sections {
    /// Copies the debug sections out of `elf` (they are small next to the
    /// image) and parses every unit's header and abbreviations.
    pub fn load(elf: &[u8]) -> Result<Sections, DebugInfoError> {
        let file = ElfFile::parse(elf).map_err(|e| DebugInfoError::Elf(e.to_string()))?;
        if file.section_by_name(".debug_info").is_none_or(|s| s.data().is_empty()) {
            return Err(DebugInfoError::NoDebugInfo);
        }
        let endian = match file.endian() {
            q7_elf::Endian::Little => gimli::RunTimeEndian::Little,
            q7_elf::Endian::Big => gimli::RunTimeEndian::Big,
        };
        let dwarf = gimli::Dwarf::load(|id| -> Result<R, gimli::Error> {
            let data = file.section_by_name(id.name()).map_or(&[][..], |s| s.data());
            Ok(gimli::EndianArcSlice::new(Arc::from(data), endian))
        })
        .map_err(DebugInfoError::dwarf)?;
        let mut units = Vec::new();
        let mut headers = dwarf.units();
        while let Some(header) = headers.next().map_err(DebugInfoError::dwarf)? {
            units.push(dwarf.unit(header).map_err(DebugInfoError::dwarf)?);
        }
        Ok(Sections { dwarf, units })
    }

    pub fn entry(&self, r: DieRef) -> Option<Entry<'_>> {
        self.units.get(r.unit)?.entry(r.offset).ok()
    }

    /// The DIE a reference attribute of `from` names.
    pub fn reference(&self, from: DieRef, value: &AttributeValue<R>) -> Option<DieRef> {
        match *value {
            AttributeValue::UnitRef(offset) => Some(DieRef { unit: from.unit, offset }),
            AttributeValue::DebugInfoRef(offset) => self
                .units
                .iter()
                .enumerate()
                .find_map(|(unit, u)| offset.to_unit_offset(&u.header).map(|offset| DieRef { unit, offset })),
            _ => None,
        }
    }

    /// Attribute `at` of `r`, or of the DIEs it is an instance or the
    /// definition of; with the DIE that holds it (references inside the
    /// value are relative to that DIE's unit).
    pub fn attr(&self, r: DieRef, at: gimli::DwAt) -> Option<(DieRef, AttributeValue<R>)> {
        let mut at_die = r;
        for _ in 0..MAX_HOPS {
            let entry = self.entry(at_die)?;
            if let Ok(Some(value)) = entry.attr_value(at) {
                return Some((at_die, value));
            }
            let next = [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification]
                .into_iter()
                .find_map(|link| entry.attr_value(link).ok().flatten())?;
            at_die = self.reference(at_die, &next)?;
        }
        None
    }

    /// The DIE attribute `at` of `r` refers to (following origins).
    pub fn attr_ref(&self, r: DieRef, at: gimli::DwAt) -> Option<DieRef> {
        let (holder, value) = self.attr(r, at)?;
        self.reference(holder, &value)
    }

    pub fn string(&self, r: DieRef, value: AttributeValue<R>) -> Option<String> {
        let unit = self.units.get(r.unit)?;
        let s = self.dwarf.attr_string(unit, value).ok()?;
        Some(s.to_string_lossy().ok()?.into_owned())
    }

    /// `DW_AT_name` of `r` (through origins and specifications).
    pub fn name(&self, r: DieRef) -> Option<String> {
        let (holder, value) = self.attr(r, gimli::DW_AT_name)?;
        self.string(holder, value)
    }

    pub fn udata(&self, r: DieRef, at: gimli::DwAt) -> Option<u64> {
        self.attr(r, at).and_then(|(_, v)| v.udata_value())
    }

    pub fn flag(&self, r: DieRef, at: gimli::DwAt) -> bool {
        matches!(self.attr(r, at), Some((_, AttributeValue::Flag(true))))
    }

    /// The link-address ranges of `r` (empty for a DIE without code, or
    /// code the linker dropped: those start at 0).
    pub fn ranges(&self, r: DieRef) -> Vec<(u32, u32)> {
        let (Some(unit), Some(entry)) = (self.units.get(r.unit), self.entry(r)) else { return Vec::new() };
        let Ok(mut iter) = self.dwarf.die_ranges(unit, &entry) else { return Vec::new() };
        let mut out = Vec::new();
        while let Ok(Some(range)) = iter.next() {
            if range.begin != 0 && range.begin < range.end && range.end <= u64::from(u32::MAX) {
                out.push((range.begin as u32, range.end as u32));
            }
        }
        out
    }
}
