//! The JSON that sits beside an image: a real opcode manifest (SUNDA-style,
//! a list of `{name, opcode}`) or the `{"dummy_message":"hello world"}` stub
//! the Cayman-style slots ship instead (docs/FACTS.md, "JSON manifest vs stub").

use serde::Serialize;
use serde_json::Value;

/// What a header blob turned out to be.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Header {
    Manifest(Manifest),
    /// The placeholder: an object with `dummy_message` and nothing to join.
    Stub {
        message: String,
    },
    /// Valid JSON that names no kernels.
    OtherJson,
    NotJson {
        problem: String,
    },
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Manifest {
    pub version: Option<String>,
    pub kernels: Vec<ManifestKernel>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ManifestKernel {
    pub name: String,
    pub opcode: u32,
}

impl Header {
    /// Classifies header bytes; trailing NULs and whitespace (C-string
    /// storage, a final newline) are not part of the JSON.
    pub fn classify(bytes: &[u8]) -> Header {
        let end = bytes.iter().rposition(|b| !matches!(b, 0 | b' ' | b'\n' | b'\r' | b'\t')).map_or(0, |i| i + 1);
        match serde_json::from_slice::<Value>(&bytes[..end]) {
            Ok(v) => Header::from_value(&v),
            Err(e) => Header::NotJson { problem: e.to_string() },
        }
    }

    pub fn from_value(v: &Value) -> Header {
        if let Some(msg) = v.get("dummy_message") {
            return Header::Stub { message: msg.as_str().unwrap_or_default().to_string() };
        }
        match kernel_list(v) {
            Some(kernels) => Header::Manifest(Manifest {
                version: v.get("ulib_to_ucode_version").and_then(Value::as_str).map(str::to_string),
                kernels,
            }),
            None => Header::OtherJson,
        }
    }

    /// A short description for reports.
    pub fn describe(&self) -> String {
        match self {
            Header::Manifest(m) => {
                let version = m.version.as_deref().map(|v| format!(", version {v}")).unwrap_or_default();
                format!("JSON manifest ({} kernel names{version})", m.kernels.len())
            }
            Header::Stub { message } => format!("stub {{\"dummy_message\":{message:?}}}"),
            Header::OtherJson => "JSON without kernel names".into(),
            Header::NotJson { .. } => "not JSON".into(),
        }
    }
}

/// The `{name, opcode}` list: the value itself when it is an array, else the
/// first member of the object that is one.
fn kernel_list(v: &Value) -> Option<Vec<ManifestKernel>> {
    let parse = |items: &Vec<Value>| -> Option<Vec<ManifestKernel>> {
        let list: Vec<ManifestKernel> = items.iter().map(kernel_of).collect::<Option<_>>()?;
        (!list.is_empty()).then_some(list)
    };
    match v {
        Value::Array(items) => parse(items),
        Value::Object(map) => map.values().find_map(|m| m.as_array().and_then(parse)),
        _ => None,
    }
}

fn kernel_of(v: &Value) -> Option<ManifestKernel> {
    let name = v.get("name")?.as_str()?.to_string();
    let opcode = match v.get("opcode")? {
        Value::Number(n) => u32::try_from(n.as_u64()?).ok()?,
        Value::String(s) => q7_target::num::parse_u32(s)?,
        _ => return None,
    };
    Some(ManifestKernel { name, opcode })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_manifest_stub_and_other_apart() {
        let stub = Header::classify(b"{\"dummy_message\":\"hello world\"}\0");
        assert_eq!(stub, Header::Stub { message: "hello world".into() });
        let m = Header::classify(br#"{"ulib_to_ucode_version":"1.2","kernels":[{"name":"a","opcode":"0xe7"}]}"#);
        match m {
            Header::Manifest(m) => {
                assert_eq!(m.version.as_deref(), Some("1.2"));
                assert_eq!(m.kernels, vec![ManifestKernel { name: "a".into(), opcode: 231 }]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(Header::classify(b"{\"x\":1}\n"), Header::OtherJson);
        assert!(matches!(Header::classify(b"\x7fELF"), Header::NotJson { .. }));
    }
}
