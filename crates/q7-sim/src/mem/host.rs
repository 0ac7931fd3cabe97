//! The host's accesses (loader, launch block, tensors, simcall services):
//! by address, for every core or as one core sees it, with errors a report
//! can name.

use super::{Memory, Region};

/// Why a host access (loader, launch block, tensors, services) failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HostAccessError {
    #[error("address {addr:#010x} is not in any region")]
    Unmapped { addr: u32 },
    #[error("{len} bytes at {addr:#010x} run past the end of {region} ({base:#010x}..{end:#010x})")]
    PastEnd { len: usize, addr: u32, region: String, base: u32, end: u64 },
    #[error("core {core}: nothing mapped at {addr:#010x}")]
    UnmappedFor { core: usize, addr: u32 },
    #[error("core {core}: {len} bytes at {addr:#010x} overrun {region}")]
    OverrunFor { core: usize, len: usize, addr: u32, region: String },
    #[error("no NUL within {max} bytes at {addr:#x}")]
    NoNul { max: usize, addr: u32 },
}

/// For callers that report errors as text.
impl From<HostAccessError> for String {
    fn from(e: HostAccessError) -> String {
        e.to_string()
    }
}

impl Memory {
    /// The region and offset holding `[addr, addr + len)` entirely.
    pub(super) fn host_span(&self, addr: u32, len: usize) -> Result<(usize, usize), HostAccessError> {
        let index = self.regions.iter().position(|r| r.contains(addr)).ok_or(HostAccessError::Unmapped { addr })?;
        let region = &self.regions[index];
        let off = (addr - region.base) as usize;
        if off + len > region.size as usize {
            return Err(HostAccessError::PastEnd {
                len,
                addr,
                region: region.name.clone(),
                base: region.base,
                end: region.end(),
            });
        }
        Ok((index, off))
    }

    /// The region holding `addr` as `core` sees it, and the offset there.
    pub(super) fn host_region_for(&self, core: usize, addr: u32) -> Result<(&Region, usize), HostAccessError> {
        let index = self.region_for(core, addr).ok_or(HostAccessError::UnmappedFor { core, addr })?;
        let region = &self.regions[index];
        Ok((region, (addr - region.base) as usize))
    }

    /// Writes bytes as the host (loader, launch block, tensors).
    pub fn host_write(&mut self, addr: u32, bytes: &[u8]) -> Result<(), HostAccessError> {
        let (index, off) = self.host_span(addr, bytes.len())?;
        self.regions[index].data[off..off + bytes.len()].copy_from_slice(bytes);
        self.forget_code();
        Ok(())
    }

    /// Writes bytes into the copy of a private region that `core` sees.
    pub fn host_write_for(&mut self, core: usize, addr: u32, bytes: &[u8]) -> Result<(), HostAccessError> {
        let index = self.region_for(core, addr).ok_or(HostAccessError::UnmappedFor { core, addr })?;
        let region = &mut self.regions[index];
        let off = (addr - region.base) as usize;
        let len = bytes.len();
        let Some(dst) = region.data.get_mut(off..off + len) else {
            return Err(HostAccessError::OverrunFor { core, len, addr, region: region.name.clone() });
        };
        dst.copy_from_slice(bytes);
        self.forget_code();
        Ok(())
    }

    pub fn host_read(&self, addr: u32, len: usize) -> Result<&[u8], HostAccessError> {
        let (index, off) = self.host_span(addr, len)?;
        Ok(&self.regions[index].data[off..off + len])
    }

    pub fn host_read_for(&self, core: usize, addr: u32, len: usize) -> Result<&[u8], HostAccessError> {
        let (region, off) = self.host_region_for(core, addr)?;
        region.data.get(off..off + len).ok_or_else(|| HostAccessError::OverrunFor {
            core,
            len,
            addr,
            region: region.name.clone(),
        })
    }

    /// A copy of [`Memory::host_read_for`]'s bytes, read as relaxed atomics
    /// and never as a slice: other cores' threads may be writing the region
    /// (a simcall's text in shared memory; see `crate::zeroed::SharedView`).
    pub fn host_copy_for(&mut self, core: usize, addr: u32, len: usize) -> Result<Vec<u8>, HostAccessError> {
        let index = self.region_for(core, addr).ok_or(HostAccessError::UnmappedFor { core, addr })?;
        let region = &mut self.regions[index];
        let off = (addr - region.base) as usize;
        let (data, size) = region.data.raw();
        if off.checked_add(len).is_none_or(|end| end > size) {
            return Err(HostAccessError::OverrunFor { core, len, addr, region: region.name.clone() });
        }
        // SAFETY: `off + len` is within the region's live buffer.
        #[allow(unsafe_code)]
        let bytes = (0..len).map(|i| unsafe { crate::zeroed::read_relaxed::<1>(data.add(off + i)) }[0]).collect();
        Ok(bytes)
    }

    /// The bytes `[addr, addr + len)` as `core` sees them, taken out of
    /// their region (see [`ZeroedBytes::into_vec`](crate::zeroed::ZeroedBytes::into_vec)), which is left empty,
    /// so every later access to it faults or fails. For collecting a
    /// finished run's output.
    pub fn take_bytes_for(&mut self, core: usize, addr: u32, len: usize) -> Result<Vec<u8>, HostAccessError> {
        self.host_read_for(core, addr, len)?;
        let index = self.region_for(core, addr).ok_or(HostAccessError::UnmappedFor { core, addr })?;
        let region = &mut self.regions[index];
        let off = (addr - region.base) as usize;
        let data = std::mem::take(&mut region.data);
        region.size = 0;
        self.layout_epoch += 1;
        Ok(data.into_vec(off..off + len))
    }

    pub fn host_read_u32_for(&self, core: usize, addr: u32) -> Result<u32, HostAccessError> {
        let b = self.host_read_for(core, addr, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads a NUL-terminated string (at most `max` bytes) as `core` sees it.
    pub fn host_read_cstr_for(&self, core: usize, addr: u32, max: usize) -> Result<String, HostAccessError> {
        let (region, off) = self.host_region_for(core, addr)?;
        let tail = &region.data[off..];
        let tail = &tail[..tail.len().min(max)];
        let end = tail.iter().position(|&b| b == 0).ok_or(HostAccessError::NoNul { max, addr })?;
        Ok(String::from_utf8_lossy(&tail[..end]).into_owned())
    }
}
