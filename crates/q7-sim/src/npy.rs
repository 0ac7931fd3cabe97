//! A small `.npy` reader and writer (NumPy format versions 1.0, 2.0 and 3.0).
//!
//! Supported element types, by descr: `f4 f2 f8 i1 i2 i4 i8 u1 b1` in either
//! byte order (`<`, `>`, `|`, `=`; data is converted to little-endian), and
//! bfloat16. NumPy has no bfloat16 of its own: arrays of
//! `ml_dtypes.bfloat16` are written as raw two-byte records, descr `<V2`, and
//! that is what q7 reads and writes for bfloat16 (read back in NumPy with
//! `np.load(f).view(ml_dtypes.bfloat16)`; the descr `bfloat16` is accepted
//! too). Only C-order arrays are supported, of rank at most 8 (a tensor
//! descriptor's).

use q7_target::launch::descriptor::MAX_RANK;
pub use q7_target::DType;

mod header;

/// The NumPy descr q7 writes for `dtype`.
pub fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::U8 => "|u1",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::Bool => "|b1",
        DType::BF16 => "<V2",
    }
}

/// A dense C-order array: little-endian element bytes plus shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

impl Array {
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn from_f32(shape: Vec<usize>, values: &[f32]) -> Array {
        Array { dtype: DType::F32, shape, data: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }

    /// The elements as f32 (only for F32 arrays).
    pub fn to_f32(&self) -> Option<Vec<f32>> {
        (self.dtype == DType::F32)
            .then(|| self.data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}

const MAGIC: &[u8] = b"\x93NUMPY";

/// Parses a `.npy` file. Errors are one line.
pub fn read(bytes: &[u8]) -> Result<Array, String> {
    let layout = parse(bytes)?;
    let data = bytes[layout.body..layout.body + layout.size].to_vec();
    Ok(layout.into_array(data))
}

/// [`read`] that keeps the file's buffer as the array's data (the header
/// moved out in place): no second buffer the size of the tensor.
pub fn read_owned(mut bytes: Vec<u8>) -> Result<Array, String> {
    let layout = parse(&bytes)?;
    bytes.truncate(layout.body + layout.size);
    bytes.drain(..layout.body);
    Ok(layout.into_array(bytes))
}

/// Where a `.npy` file's data is and what it holds.
struct Layout {
    dtype: DType,
    shape: Vec<usize>,
    big_endian: bool,
    /// Offset of the data, and its size in bytes (the file has at least that).
    body: usize,
    size: usize,
}

impl Layout {
    fn into_array(self, mut data: Vec<u8>) -> Array {
        if self.big_endian && self.dtype.size() > 1 {
            for element in data.chunks_exact_mut(self.dtype.size()) {
                element.reverse();
            }
        }
        Array { dtype: self.dtype, shape: self.shape, data }
    }
}

fn parse(bytes: &[u8]) -> Result<Layout, String> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    // NumPy writes, and reads, only these versions: any other minor is no
    // .npy anyone wrote.
    let (major, minor) = (bytes[6], bytes[7]);
    let (header_len, start) = match (major, minor) {
        (1, 0) => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10usize),
        (2 | 3, 0) => {
            let b = bytes.get(8..12).ok_or("truncated .npy header")?;
            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12)
        }
        _ => return Err(format!(".npy format version {major}.{minor} is not supported (1.0, 2.0 or 3.0)")),
    };
    let header = bytes
        .get(start..start.checked_add(header_len).ok_or("header length overflows")?)
        .ok_or_else(|| format!(".npy header of {header_len} bytes runs past the end of the file"))?;
    let header = std::str::from_utf8(header).map_err(|_| ".npy header is not text")?;
    let header::Header { descr, fortran_order, shape } = header::parse(header)?;
    if fortran_order {
        return Err("Fortran-order arrays are not supported: save a C-order array (np.ascontiguousarray)".into());
    }
    if shape.len() > MAX_RANK {
        // Refused here so that the message names the file, as every other.
        return Err(format!(
            "the array has rank {}; a tensor descriptor holds at most {MAX_RANK} dimensions",
            shape.len()
        ));
    }
    let (dtype, big_endian) = parse_descr(&descr)?;
    let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).ok_or("shape overflows")?;
    let size = count.checked_mul(dtype.size()).ok_or("data size overflows")?;
    let body = start + header_len;
    if bytes.len() - body < size {
        return Err(format!("{} data bytes for shape {shape:?} of {dtype}, need {size}", bytes.len() - body));
    }
    Ok(Layout { dtype, shape, big_endian, body, size })
}

fn parse_descr(descr: &str) -> Result<(DType, bool), String> {
    if descr == "bfloat16" {
        return Ok((DType::BF16, false));
    }
    let (order, code) = match descr.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &descr[1..]),
        _ => ('<', descr),
    };
    let dtype = match code {
        "f4" => DType::F32,
        "f2" => DType::F16,
        "f8" => DType::F64,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "u1" => DType::U8,
        "b1" => DType::Bool,
        "V2" => DType::BF16,
        _ => return Err(format!("dtype '{descr}' is not supported (f4 f2 f8 i1 i2 i4 i8 u1 b1, bfloat16 as V2)")),
    };
    Ok((dtype, order == '>'))
}

/// Serialises an array as a version 1.0 `.npy` (2.0 if the header needs it).
pub fn write(array: &Array) -> Vec<u8> {
    let mut out = header(array.dtype, &array.shape);
    out.extend_from_slice(&array.data);
    out
}

/// The bytes of a `.npy` file before its data: a writer can follow them
/// with the data from wherever it is, without assembling one buffer.
pub fn header(dtype: DType, shape: &[usize]) -> Vec<u8> {
    let shape = match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!("({})", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    };
    let dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", descr(dtype));
    // The header (magic, version, length, dict, padding, '\n') is a multiple of 64.
    let unpadded = dict.len() + 1;
    let (version, prefix) = if unpadded + 10 <= 65535 { (1u8, 10) } else { (2u8, 12) };
    let total = (prefix + unpadded).div_ceil(64) * 64;
    let header_len = total - prefix;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header_len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_dtype() {
        for dtype in DType::ALL {
            let array = Array { dtype, shape: vec![2, 3], data: (0..6 * dtype.size() as u8).collect() };
            let bytes = write(&array);
            assert_eq!(bytes.len() % 64, 6 * dtype.size() % 64);
            assert_eq!(read(&bytes).unwrap(), array, "{dtype}");
            assert_eq!(bytes[..bytes.len() - array.data.len()], header(dtype, &array.shape), "{dtype}");
            assert_eq!(read_owned(bytes).unwrap(), array, "{dtype}");
        }
    }

    #[test]
    fn reads_numpy_headers() {
        // As numpy 1.x writes a scalar-shaped big-endian int16 array.
        let mut file = b"\x93NUMPY\x01\x00".to_vec();
        let dict = "{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }";
        let mut header = dict.to_string();
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        file.extend_from_slice(&(header.len() as u16).to_le_bytes());
        file.extend_from_slice(header.as_bytes());
        file.extend_from_slice(&[0x01, 0x02, 0xff, 0xfe]);
        let array = read(&file).unwrap();
        assert_eq!((array.dtype, array.shape.clone()), (DType::I16, vec![2]));
        assert_eq!(array.data, [0x02, 0x01, 0xfe, 0xff]);
        // Bytes past the data are ignored by both readers.
        file.push(0x55);
        assert_eq!(read_owned(file).unwrap(), array);
    }

    /// A one-element float32 `.npy` whose header says version `major.minor`
    /// (the length field is two bytes in version 1, four after).
    fn of_version(major: u8, minor: u8) -> Vec<u8> {
        let prefix = if major == 1 { 10 } else { 12 };
        let mut header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }".to_string();
        while !(prefix + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut file = b"\x93NUMPY".to_vec();
        file.extend_from_slice(&[major, minor]);
        match major {
            1 => file.extend_from_slice(&(header.len() as u16).to_le_bytes()),
            _ => file.extend_from_slice(&(header.len() as u32).to_le_bytes()),
        }
        file.extend_from_slice(header.as_bytes());
        file.extend_from_slice(&1.5f32.to_le_bytes());
        file
    }

    #[test]
    fn only_numpys_format_versions_are_read() {
        for (major, minor) in [(1, 0), (2, 0), (3, 0)] {
            assert_eq!(read(&of_version(major, minor)).unwrap().to_f32().unwrap(), [1.5], "{major}.{minor}");
        }
        for (major, minor) in [(1, 1), (2, 255), (3, 1), (0, 0), (4, 0)] {
            assert_eq!(
                read(&of_version(major, minor)).unwrap_err(),
                format!(".npy format version {major}.{minor} is not supported (1.0, 2.0 or 3.0)")
            );
        }
    }

    #[test]
    fn an_array_a_tensor_descriptor_cannot_hold_is_refused() {
        let at_most = write(&Array::from_f32(vec![1; MAX_RANK], &[1.0]));
        assert_eq!(read(&at_most).unwrap().shape.len(), MAX_RANK);
        let more = write(&Array::from_f32(vec![1; MAX_RANK + 1], &[1.0]));
        assert_eq!(read(&more).unwrap_err(), "the array has rank 9; a tensor descriptor holds at most 8 dimensions");
    }

    #[test]
    fn clear_errors() {
        assert!(read(b"hello").unwrap_err().contains("magic"));
        let mut bad = write(&Array::from_f32(vec![4], &[1.0, 2.0, 3.0, 4.0]));
        bad.truncate(bad.len() - 1);
        assert!(read(&bad).unwrap_err().contains("need 16"));
        assert!(read_owned(bad).unwrap_err().contains("need 16"));
        let mut fortran = write(&Array::from_f32(vec![1], &[1.0]));
        let at = fortran.windows(5).position(|w| w == b"False").unwrap();
        fortran[at..at + 5].copy_from_slice(b"True ");
        assert!(read(&fortran).unwrap_err().contains("Fortran"));
    }
}
