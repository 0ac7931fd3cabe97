//! The normalised fact vocabulary and where each fact is spelled in each
//! format. The params key names docs/PLATFORM.md, "Cores", quotes (ConfigName, IsaIsBigEndian,
//! HasVectorPipe, SWToolsRelease, SWToolsVername, TargetHWVersion, arch,
//! uarchName) are used as quoted; the `XCHAL_*` names are those of the
//! public Xtensa overlay headers; the remaining params spellings are q7's
//! reading of the same naming scheme and live only here, so a real file
//! that spells one differently is a one-line fix.

/// How a raw value is normalised so the two formats can be compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A name or version; quotes are removed.
    Text,
    /// 0/1 (or yes/no, true/false) → `yes`/`no`.
    Flag,
    /// "is big-endian" 0/1 → `little`/`big`.
    BigEndianFlag,
    /// A count, in decimal.
    Count,
    /// An address, in hex.
    Address,
    /// A size in bytes, in hex.
    Size,
}

#[derive(Clone, Debug)]
pub struct FactDef {
    pub id: String,
    pub label: String,
    pub kind: ValueKind,
    pub params_keys: Vec<String>,
    pub core_isa_keys: Vec<String>,
}

fn def(id: &str, label: &str, kind: ValueKind, params: &[&str], core_isa: &[&str]) -> FactDef {
    FactDef {
        id: id.to_string(),
        label: label.to_string(),
        kind,
        params_keys: params.iter().map(|s| s.to_string()).collect(),
        core_isa_keys: core_isa.iter().map(|s| s.to_string()).collect(),
    }
}

/// Local memories, as (fact prefix, label, params stem, core-isa stem).
const MEMORIES: &[(&str, &str, &str, &str)] = &[
    ("iram0", "instruction RAM 0", "InstRAM0", "XCHAL_INSTRAM0"),
    ("iram1", "instruction RAM 1", "InstRAM1", "XCHAL_INSTRAM1"),
    ("dram0", "data RAM 0", "DataRAM0", "XCHAL_DATARAM0"),
    ("dram1", "data RAM 1", "DataRAM1", "XCHAL_DATARAM1"),
    ("irom0", "instruction ROM 0", "InstROM0", "XCHAL_INSTROM0"),
    ("drom0", "data ROM 0", "DataROM0", "XCHAL_DATAROM0"),
];

/// Every fact the reader knows, in report order.
pub fn facts() -> Vec<FactDef> {
    use ValueKind::*;
    let mut table = vec![
        def("config.name", "config name", Text, &["ConfigName"], &["XCHAL_CORE_ID"]),
        def("config.hw_version", "hardware version", Text, &["TargetHWVersion"], &["XCHAL_HW_VERSION_NAME"]),
        def("config.sw_release", "software release", Text, &["SWToolsRelease"], &["XCHAL_SW_VERSION_NAME"]),
        def("config.sw_version", "XtensaTools version", Text, &["SWToolsVername"], &[]),
        def("config.arch", "ISA family", Text, &["arch"], &[]),
        def("config.uarch", "microarchitecture", Text, &["uarchName"], &[]),
        def("isa.byte_order", "byte order", BigEndianFlag, &["IsaIsBigEndian"], &["XCHAL_HAVE_BE"]),
        def("isa.windowed", "windowed registers", Flag, &["IsaUseWindowedRegisters"], &["XCHAL_HAVE_WINDOWED"]),
        def(
            "isa.address_registers",
            "physical address registers",
            Count,
            &["NumAddressRegisters"],
            &["XCHAL_NUM_AREGS"],
        ),
        def(
            "isa.density",
            "density (16-bit) instructions",
            Flag,
            &["IsaUseDensityInstruction"],
            &["XCHAL_HAVE_DENSITY"],
        ),
        def("isa.loops", "zero-overhead loops", Flag, &["IsaUseLoops"], &["XCHAL_HAVE_LOOPS"]),
        def("isa.mul16", "MUL16", Flag, &["IsaUseMul16"], &["XCHAL_HAVE_MUL16"]),
        def("isa.mul32", "MUL32", Flag, &["IsaUse32bitMul"], &["XCHAL_HAVE_MUL32"]),
        def("isa.mul32_high", "MUL32 high", Flag, &["IsaUse32bitMulHigh"], &["XCHAL_HAVE_MUL32_HIGH"]),
        def("isa.div32", "DIV32", Flag, &["IsaUseDivide"], &["XCHAL_HAVE_DIV32"]),
        def("isa.mac16", "MAC16", Flag, &["IsaUseMAC16"], &["XCHAL_HAVE_MAC16"]),
        def("isa.nsa", "NSA/NSAU", Flag, &["IsaUseNSA"], &["XCHAL_HAVE_NSA"]),
        def("isa.minmax", "MIN/MAX", Flag, &["IsaUseMinMax"], &["XCHAL_HAVE_MINMAX"]),
        def("isa.sext", "SEXT", Flag, &["IsaUseSext"], &["XCHAL_HAVE_SEXT"]),
        def("isa.clamps", "CLAMPS", Flag, &["IsaUseClamps"], &["XCHAL_HAVE_CLAMPS"]),
        def("isa.booleans", "boolean registers", Flag, &["IsaUseBooleans"], &["XCHAL_HAVE_BOOLEANS"]),
        def(
            "isa.exceptions",
            "exception architecture version",
            Count,
            &["IsaExceptionArchitecture"],
            &["XCHAL_XEA_VERSION"],
        ),
        def("fp.single", "single-precision FP", Flag, &["IsaUseFloatingPoint"], &["XCHAL_HAVE_FP"]),
        def("fp.double", "double-precision FP", Flag, &["IsaUseDoubleFloatingPoint"], &["XCHAL_HAVE_DFP"]),
        def("fp.divide", "FP divide instruction", Flag, &["IsaUseFPDivide"], &["XCHAL_HAVE_FP_DIV"]),
        def("vector.pipe", "vector pipe (Vision)", Flag, &["HasVectorPipe"], &["XCHAL_HAVE_VISION"]),
        def("vector.data_width", "widest load/store (bytes)", Count, &["DataWidth"], &["XCHAL_DATA_WIDTH"]),
    ];
    for (id, label, params, core_isa) in MEMORIES {
        table.push(FactDef {
            id: format!("memory.{id}.base"),
            label: format!("{label} base"),
            kind: Address,
            params_keys: vec![format!("{params}Addr")],
            core_isa_keys: vec![format!("{core_isa}_PADDR")],
        });
        table.push(FactDef {
            id: format!("memory.{id}.size"),
            label: format!("{label} size"),
            kind: Size,
            params_keys: vec![format!("{params}Size")],
            core_isa_keys: vec![format!("{core_isa}_SIZE")],
        });
    }
    table
}

/// Normalises one raw value; `Err` keeps a value the kind cannot read.
pub fn normalise(kind: ValueKind, raw: &str) -> Result<String, String> {
    let text = unwrap_value(raw);
    match kind {
        ValueKind::Text => Ok(text.trim_matches('"').to_string()),
        ValueKind::Flag => flag(&text).map(|f| if f { "yes" } else { "no" }.to_string()),
        ValueKind::BigEndianFlag => flag(&text).map(|f| if f { "big" } else { "little" }.to_string()),
        ValueKind::Count => integer(&text).map(|n| n.to_string()),
        ValueKind::Address | ValueKind::Size => integer(&text).map(|n| format!("{n:#x}")),
    }
}

/// Strips the wrapping C puts around numbers: parentheses and U/L suffixes.
fn unwrap_value(raw: &str) -> String {
    let mut text = raw.trim();
    while text.starts_with('(') && text.ends_with(')') && text.len() >= 2 {
        text = text[1..text.len() - 1].trim();
    }
    let is_number = text.starts_with(|c: char| c.is_ascii_digit());
    if is_number {
        text = text.trim_end_matches(['u', 'U', 'l', 'L']);
    }
    text.to_string()
}

fn flag(text: &str) -> Result<bool, String> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "yes" | "true" => Ok(true),
        "0" | "no" | "false" => Ok(false),
        _ => Err(format!("`{text}` is not 0/1")),
    }
}

fn integer(text: &str) -> Result<u64, String> {
    q7_target::num::parse_u64(text).ok_or_else(|| format!("`{text}` is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_normalise_across_formats() {
        assert_eq!(normalise(ValueKind::Text, "\"Xm_ncore2gp\""), Ok("Xm_ncore2gp".into()));
        assert_eq!(normalise(ValueKind::Flag, "1"), Ok("yes".into()));
        assert_eq!(normalise(ValueKind::BigEndianFlag, "0"), Ok("little".into()));
        assert_eq!(normalise(ValueKind::Size, "(0x40000UL)"), normalise(ValueKind::Size, "262144"));
        assert_eq!(normalise(ValueKind::Count, "64"), Ok("64".into()));
        assert!(normalise(ValueKind::Flag, "maybe").is_err());
        assert!(normalise(ValueKind::Address, "XCHAL_X + 4").is_err());
    }

    #[test]
    fn table_ids_and_keys_are_unique() {
        let table = facts();
        let mut ids: Vec<&str> = table.iter().map(|f| f.id.as_str()).collect();
        let mut keys: Vec<&str> =
            table.iter().flat_map(|f| f.params_keys.iter().chain(&f.core_isa_keys)).map(String::as_str).collect();
        let (n_ids, n_keys) = (ids.len(), keys.len());
        ids.sort();
        ids.dedup();
        keys.sort();
        keys.dedup();
        assert_eq!((ids.len(), keys.len()), (n_ids, n_keys));
    }
}
