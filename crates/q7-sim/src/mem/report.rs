//! Memory in words: the map a core sees, and why an access faulted.

use std::fmt::Write as _;

use super::{FaultKind, MemFault, Memory};

impl Memory {
    /// One line per region `core` can see, then the private regions of others.
    pub fn describe_map(&self, core: usize) -> String {
        let mut out = String::new();
        for (i, r) in self.regions.iter().enumerate() {
            let visible = self.region_for(core, r.base).is_some_and(|j| j == i);
            let _ = writeln!(
                out,
                "  {:#010x}..{:#010x} {} {}{}",
                r.base,
                r.end(),
                r.perms.describe(),
                r.name,
                if visible { "" } else { " (not visible to this core)" }
            );
        }
        out
    }

    /// A one-line explanation of a fault: the access, and what lies there.
    pub fn explain_fault(&self, core: usize, fault: &MemFault) -> String {
        let what = match fault.kind {
            FaultKind::Permission => {
                let region = self.region_for(core, fault.addr).map(|i| &self.regions[i]);
                match region {
                    Some(r) => format!("{} is {}", r.name, r.perms.describe()),
                    None => "permission denied".into(),
                }
            }
            FaultKind::Unmapped => {
                let page = self.page(core, fault.addr);
                let own = (page.flags != 0).then(|| &self.regions[usize::from(page.region)]);
                match (own, self.any_region(fault.addr)) {
                    (Some(r), _) => {
                        format!("the access runs past the end of {} ({:#010x}..{:#010x})", r.name, r.base, r.end())
                    }
                    (None, Some(r)) => format!("{} is not visible to core {core}", r.name),
                    (None, None) => "nothing is mapped there".into(),
                }
            }
        };
        format!("{}-byte {} {:#010x}: {what}", fault.size, fault.access.verb(), fault.addr)
    }
}
