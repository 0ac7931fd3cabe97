//! The profiling collector of one core: every retired instruction priced by
//! the memory-class model ([`crate::cost::MODEL`]) and filed under its pc
//! and its simulated call stack.
//!
//! Call stacks are tracked from windowed and call0 calls and returns: a
//! call moves to the child node of the current stack (a trie keyed by the
//! callee's entry address), a return to the parent. Names come later, from
//! the image's symbols (`op::profile`), so this layer knows only addresses.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use q7_target::memmap::{SHARED_DRAM_BASE, SHARED_DRAM_SIZE, TCM_BASE, TCM_SIZE, TENSOR_BASE, TENSOR_MAX};

use crate::cost::{InsnClass, MemClass, MODEL};

/// One frame of the call-stack trie.
#[derive(Clone, Debug)]
pub struct StackNode {
    /// Index of the caller's node; the root is its own parent.
    pub parent: u32,
    /// The callee's entry address (0 for the root).
    pub entry: u32,
    /// Inside a transfer call (this frame or a caller is one).
    transfer: bool,
}

/// What the instructions at one pc under one stack cost.
#[derive(Clone, Debug, Default)]
pub struct PcCost {
    pub instructions: u64,
    /// Issue cycles (instruction classes, taken branches).
    pub issue_cycles: u64,
    /// The class of the instruction at this pc.
    pub class: Option<InsnClass>,
    /// Memory cycles by class (indexed as [`MemClass::ALL`]).
    pub memory_cycles: [f64; 5],
    pub accesses: [u64; 5],
    pub bytes: [u64; 5],
}

impl PcCost {
    pub fn cycles(&self) -> f64 {
        self.issue_cycles as f64 + self.memory_cycles.iter().sum::<f64>()
    }
}

/// A load or store an instruction is about to make.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub addr: u32,
    pub bytes: u8,
}

#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ n >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// The profile of one core.
#[derive(Clone, Debug)]
pub struct CoreProfile {
    pub nodes: Vec<StackNode>,
    children: FastMap<u64, u32>,
    /// (node << 32 | pc) → index into `costs`.
    index: FastMap<u64, u32>,
    /// (node, pc, cost), in first-seen order.
    pub costs: Vec<(u32, u32, PcCost)>,
    /// Entry addresses of the transfer calls (sorted).
    transfer_entries: Vec<u32>,
    current: u32,
    /// Transfer calls made.
    pub transfers: u64,
}

impl CoreProfile {
    /// A profile that prices calls to `transfer_entries` as DMA transfers.
    pub fn new(mut transfer_entries: Vec<u32>) -> CoreProfile {
        transfer_entries.sort_unstable();
        CoreProfile {
            nodes: vec![StackNode { parent: 0, entry: 0, transfer: false }],
            children: FastMap::default(),
            index: FastMap::default(),
            costs: Vec::new(),
            transfer_entries,
            current: 0,
            transfers: 0,
        }
    }

    fn cost_at(&mut self, node: u32, pc: u32) -> &mut PcCost {
        let key = u64::from(node) << 32 | u64::from(pc);
        let next = self.costs.len() as u32;
        let at = *self.index.entry(key).or_insert(next);
        if at == next {
            self.costs.push((node, pc, PcCost::default()));
        }
        &mut self.costs[at as usize].2
    }

    /// Files one retired instruction: `issue` cycles and its access, if any.
    pub fn retire(&mut self, pc: u32, class: InsnClass, issue: u64, access: Option<Access>) {
        let transfer = self.nodes[self.current as usize].transfer;
        let cost = self.cost_at(self.current, pc);
        cost.instructions += 1;
        cost.class = Some(class);
        // Inside a transfer call the DMA engine stands in for the copy
        // loop: its instructions cost nothing, its tensor bytes bandwidth.
        if !transfer {
            cost.issue_cycles += issue;
        }
        if let Some(access) = access {
            let class = classify(access.addr, transfer);
            let k = class as usize;
            cost.accesses[k] += 1;
            cost.bytes[k] += u64::from(access.bytes);
            cost.memory_cycles[k] += match (transfer, class) {
                (_, MemClass::TensorTransfer) => MODEL.transfer_cycles(u64::from(access.bytes)),
                (true, _) => 0.0,
                (false, class) => MODEL.latency(class),
            };
        }
    }

    /// The current stack called the function at `entry`.
    pub fn call(&mut self, entry: u32) {
        let key = u64::from(self.current) << 32 | u64::from(entry);
        let parent = self.current;
        let next = self.nodes.len() as u32;
        let node = *self.children.entry(key).or_insert(next);
        if node == next {
            let starts_transfer = self.transfer_entries.binary_search(&entry).is_ok();
            let transfer = self.nodes[parent as usize].transfer || starts_transfer;
            self.nodes.push(StackNode { parent, entry, transfer });
        }
        let starts = !self.nodes[parent as usize].transfer && self.nodes[node as usize].transfer;
        self.current = node;
        if starts {
            self.transfers += 1;
            let k = MemClass::TensorTransfer as usize;
            self.cost_at(node, entry).memory_cycles[k] += MODEL.transfer_setup;
        }
    }

    /// The current function returned.
    pub fn ret(&mut self) {
        self.current = self.nodes[self.current as usize].parent;
    }

    /// Instructions and modelled cycles over the whole core.
    pub fn totals(&self) -> (u64, f64) {
        self.costs.iter().fold((0, 0.0), |(i, c), (_, _, cost)| (i + cost.instructions, c + cost.cycles()))
    }
}

/// The memory class of an access to `addr`.
pub fn classify(addr: u32, in_transfer: bool) -> MemClass {
    if addr.wrapping_sub(TCM_BASE) < TCM_SIZE {
        MemClass::Tcm
    } else if addr.wrapping_sub(TENSOR_BASE) < TENSOR_MAX {
        if in_transfer {
            MemClass::TensorTransfer
        } else {
            MemClass::TensorAccess
        }
    } else if addr.wrapping_sub(SHARED_DRAM_BASE) < SHARED_DRAM_SIZE {
        MemClass::SharedDram
    } else {
        MemClass::Local
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_fall_in_their_classes() {
        assert_eq!(classify(TCM_BASE + TCM_SIZE - 1, false), MemClass::Tcm);
        assert_eq!(classify(TCM_BASE + TCM_SIZE, false), MemClass::Local);
        assert_eq!(classify(TENSOR_BASE, false), MemClass::TensorAccess);
        assert_eq!(classify(TENSOR_BASE, true), MemClass::TensorTransfer);
        assert_eq!(classify(SHARED_DRAM_BASE, true), MemClass::SharedDram);
        assert_eq!(classify(0x8400_0100, false), MemClass::Local);
    }

    #[test]
    fn transfers_cost_set_up_and_bandwidth_not_their_instructions() {
        let (copy, memcpy) = (0x100, 0x200);
        let mut p = CoreProfile::new(vec![copy]);
        p.retire(0x10, InsnClass::LoadStore, 1, Some(Access { addr: TENSOR_BASE, bytes: 4 }));
        p.call(copy);
        p.call(memcpy); // nested: still the same transfer, no second set-up
        p.retire(memcpy, InsnClass::LoadStore, 2, Some(Access { addr: TENSOR_BASE + 4, bytes: 4 }));
        p.retire(memcpy + 3, InsnClass::LoadStore, 2, Some(Access { addr: TCM_BASE, bytes: 4 }));
        p.ret();
        p.ret();
        p.retire(0x13, InsnClass::Alu, 1, None);
        assert_eq!(p.transfers, 1);
        let (insns, cycles) = p.totals();
        assert_eq!(insns, 4);
        let expected = 2.0 + MODEL.latency(MemClass::TensorAccess) + MODEL.transfer_setup + MODEL.transfer_cycles(4);
        assert!((cycles - expected).abs() < 1e-9, "{cycles} vs {expected}");
        // The stack came back to the root, and memcpy's node hangs under copy's.
        let memcpy_node = p.costs.iter().find(|c| c.1 == memcpy).unwrap().0 as usize;
        assert_eq!(p.nodes[p.nodes[memcpy_node].parent as usize].entry, copy);
        assert_eq!(p.costs.last().unwrap().0, 0);
    }
}
