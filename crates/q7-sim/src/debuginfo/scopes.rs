//! Where code is in the source: every function with code, the inlined
//! copies and lexical blocks inside it, and the variables each declares;
//! the global variables; qualified names (`ns::Class::f`). Read once, from
//! every unit's DIE tree. Addresses are link addresses.

use std::collections::HashMap;

use gimli::AttributeValue;

use super::die::{DieRef, Sections};
use super::lines::LineTable;
use super::DebugInfoError;

#[derive(Clone, Debug)]
pub(crate) enum ScopeKind {
    Function,
    /// An inlined copy, called from `call_file` (a [`LineTable::files`]
    /// index) at `call_line`.
    Inlined {
        call_file: Option<u32>,
        call_line: u32,
    },
    Block,
}

#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub kind: ScopeKind,
    pub die: DieRef,
    /// Empty: the parent's (a block the compiler gave no ranges).
    pub ranges: Vec<(u32, u32)>,
    pub vars: Vec<VarDecl>,
    pub children: Vec<usize>,
}

impl Scope {
    fn contains(&self, a: u32) -> bool {
        self.ranges.is_empty() || self.ranges.iter().any(|&(s, e)| s <= a && a < e)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct VarDecl {
    pub name: String,
    pub die: DieRef,
    pub is_parameter: bool,
}

/// A function by name: a concrete copy or an inlined one.
#[derive(Clone, Debug)]
pub(crate) struct FunctionEntry {
    /// Qualified (`at::Tensor::accessor<float, 1U>`).
    pub name: String,
    pub linkage: Option<String>,
    pub scope: usize,
    pub entry: u32,
    pub inlined: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Global {
    pub name: String,
    pub qualified: String,
    pub die: DieRef,
}

/// A constant of an enumeration.
#[derive(Clone, Debug)]
pub(crate) struct Enumerator {
    /// `Mode::MODE_MAX`.
    pub qualified: String,
    /// `MODE_MAX` (or `ns::MODE_MAX`) for an unscoped enum.
    pub outer: Option<String>,
    pub die: DieRef,
    /// The enumeration.
    pub ty: DieRef,
}

#[derive(Debug, Default)]
pub(crate) struct Scopes {
    pub scopes: Vec<Scope>,
    /// (start, end, function scope), sorted by start.
    roots: Vec<(u32, u32, usize)>,
    pub functions: Vec<FunctionEntry>,
    pub globals: Vec<Global>,
    /// Qualified names of named DIEs (namespaces, types, functions, variables).
    pub names: HashMap<DieRef, String>,
    /// Complete definitions of structures, classes, unions and enums by
    /// qualified name (a unit may only declare a type another defines).
    pub definitions: HashMap<String, DieRef>,
    pub enumerators: Vec<Enumerator>,
}

impl Scopes {
    pub fn read(sections: &Sections, lines: &LineTable) -> Result<Scopes, DebugInfoError> {
        let mut scopes = Scopes::default();
        for (unit, u) in sections.units.iter().enumerate() {
            let mut tree = u.entries_tree(None).map_err(DebugInfoError::dwarf)?;
            let root = tree.root().map_err(DebugInfoError::dwarf)?;
            collect_names(sections, unit, root, "", &mut scopes, 0).map_err(DebugInfoError::dwarf)?;
        }
        for (unit, u) in sections.units.iter().enumerate() {
            let files = lines.unit_files.get(unit).map_or(&[][..], |f| &f[..]);
            let mut tree = u.entries_tree(None).map_err(DebugInfoError::dwarf)?;
            let root = tree.root().map_err(DebugInfoError::dwarf)?;
            let mut walk = Walk { sections, files, unit, scopes: &mut scopes };
            walk.node(root, None, 0).map_err(DebugInfoError::dwarf)?;
        }
        scopes.roots.sort_unstable();
        Ok(scopes)
    }

    /// The scopes containing link address `a`, outermost (the function)
    /// first.
    pub fn chain(&self, a: u32) -> Vec<usize> {
        let upto = self.roots.partition_point(|&(s, _, _)| s <= a);
        // Ranges of distinct functions do not overlap; look back a little
        // in case a broken file says otherwise.
        let Some(&(_, _, root)) = self.roots[..upto].iter().rev().take(8).find(|&&(s, e, _)| s <= a && a < e) else {
            return Vec::new();
        };
        let mut chain = vec![root];
        while let Some(&next) =
            self.scopes[*chain.last().unwrap_or(&root)].children.iter().find(|&&c| self.scopes[c].contains(a))
        {
            chain.push(next);
        }
        chain
    }

    /// The qualified name of `r`, through its specification or origin.
    pub fn qualified(&self, sections: &Sections, r: DieRef) -> Option<String> {
        let mut at = r;
        for _ in 0..8 {
            if let Some(name) = self.names.get(&at) {
                return Some(name.clone());
            }
            let entry = sections.entry(at)?;
            let next = [gimli::DW_AT_specification, gimli::DW_AT_abstract_origin]
                .into_iter()
                .find_map(|link| entry.attr_value(link).ok().flatten())?;
            at = sections.reference(at, &next)?;
        }
        None
    }
}

/// Tags whose name qualifies what they contain, or that are looked up by name.
fn named_tag(tag: gimli::DwTag) -> bool {
    matches!(
        tag,
        gimli::DW_TAG_namespace
            | gimli::DW_TAG_structure_type
            | gimli::DW_TAG_class_type
            | gimli::DW_TAG_union_type
            | gimli::DW_TAG_enumeration_type
            | gimli::DW_TAG_typedef
            | gimli::DW_TAG_subprogram
            | gimli::DW_TAG_variable
            | gimli::DW_TAG_base_type
    )
}

/// DIE trees nest a few levels (namespaces, classes, blocks); a deeper
/// one (a broken file) is read no further than this.
const MAX_NESTING: usize = 256;

fn collect_names(
    sections: &Sections,
    unit: usize,
    node: gimli::EntriesTreeNode<super::R>,
    prefix: &str,
    scopes: &mut Scopes,
    depth: usize,
) -> gimli::Result<()> {
    let entry = node.entry();
    let tag = entry.tag();
    let r = DieRef { unit, offset: entry.offset() };
    let own = match entry.attr_value(gimli::DW_AT_name)? {
        Some(value) => sections.string(r, value),
        None if tag == gimli::DW_TAG_namespace => Some("(anonymous namespace)".to_string()),
        None => None,
    };
    let qualified = match (&own, named_tag(tag)) {
        (Some(own), true) if prefix.is_empty() => Some(own.clone()),
        (Some(own), true) => Some(format!("{prefix}::{own}")),
        _ => None,
    };
    if let Some(q) = &qualified {
        scopes.names.insert(r, q.clone());
        let aggregate = matches!(
            tag,
            gimli::DW_TAG_structure_type
                | gimli::DW_TAG_class_type
                | gimli::DW_TAG_union_type
                | gimli::DW_TAG_enumeration_type
        );
        if aggregate && entry.attr_value(gimli::DW_AT_declaration)?.is_none() {
            scopes.definitions.entry(q.clone()).or_insert(r);
        }
    }
    // Members of namespaces and types are qualified by them; what a
    // function declares (local types) keeps the plain name.
    let child_prefix = match tag {
        gimli::DW_TAG_compile_unit => String::new(),
        gimli::DW_TAG_namespace
        | gimli::DW_TAG_structure_type
        | gimli::DW_TAG_class_type
        | gimli::DW_TAG_union_type
        | gimli::DW_TAG_enumeration_type => match qualified {
            Some(q) => q,
            None => prefix.to_string(),
        },
        gimli::DW_TAG_subprogram | gimli::DW_TAG_lexical_block | gimli::DW_TAG_inlined_subroutine => String::new(),
        _ => return Ok(()),
    };
    if depth >= MAX_NESTING {
        return Ok(());
    }
    let scoped_enum = matches!(entry.attr_value(gimli::DW_AT_enum_class)?, Some(AttributeValue::Flag(true)));
    let mut children = node.children();
    while let Some(child) = children.next()? {
        let e = child.entry();
        if tag == gimli::DW_TAG_enumeration_type && e.tag() == gimli::DW_TAG_enumerator {
            let die = DieRef { unit, offset: e.offset() };
            let Some(name) = e.attr_value(gimli::DW_AT_name)?.and_then(|v| sections.string(die, v)) else { continue };
            // An unscoped enum's constants are also named in the scope around it.
            let outer =
                (!scoped_enum).then(|| if prefix.is_empty() { name.clone() } else { format!("{prefix}::{name}") });
            let qualified = format!("{child_prefix}::{name}");
            scopes.enumerators.push(Enumerator { qualified, outer, die, ty: r });
            continue;
        }
        collect_names(sections, unit, child, &child_prefix, scopes, depth + 1)?;
    }
    Ok(())
}

struct Walk<'a> {
    sections: &'a Sections,
    files: &'a [Option<u32>],
    unit: usize,
    scopes: &'a mut Scopes,
}

impl Walk<'_> {
    fn node(
        &mut self,
        node: gimli::EntriesTreeNode<super::R>,
        parent: Option<usize>,
        depth: usize,
    ) -> gimli::Result<()> {
        let entry = node.entry();
        let tag = entry.tag();
        let r = DieRef { unit: self.unit, offset: entry.offset() };
        let mut inner = parent;
        match (tag, parent) {
            (gimli::DW_TAG_compile_unit | gimli::DW_TAG_namespace, None) => {}
            (gimli::DW_TAG_subprogram, None) => {
                let ranges = self.sections.ranges(r);
                if ranges.is_empty() {
                    return Ok(());
                }
                let index = self.add(
                    Scope { kind: ScopeKind::Function, die: r, ranges, vars: Vec::new(), children: Vec::new() },
                    None,
                );
                self.function(r, index, false);
                inner = Some(index);
            }
            (gimli::DW_TAG_variable, None) => {
                let has_location = entry.attr_value(gimli::DW_AT_location)?.is_some();
                if let (true, Some(name)) = (has_location, self.sections.name(r)) {
                    let qualified = self.scopes.qualified(self.sections, r).unwrap_or_else(|| name.clone());
                    self.scopes.globals.push(Global { name, qualified, die: r });
                }
                return Ok(());
            }
            (gimli::DW_TAG_lexical_block, Some(_)) => {
                let ranges = self.sections.ranges(r);
                let scope = Scope { kind: ScopeKind::Block, die: r, ranges, vars: Vec::new(), children: Vec::new() };
                inner = Some(self.add(scope, parent));
            }
            (gimli::DW_TAG_inlined_subroutine, Some(_)) => {
                let ranges = self.sections.ranges(r);
                if ranges.is_empty() {
                    return Ok(());
                }
                let call_file = match entry.attr_value(gimli::DW_AT_call_file)? {
                    Some(AttributeValue::FileIndex(i)) => Some(i),
                    other => other.and_then(|v| v.udata_value()),
                }
                .and_then(|i| self.files.get(i as usize).copied().flatten());
                let call_line =
                    entry.attr_value(gimli::DW_AT_call_line)?.and_then(|v| v.udata_value()).unwrap_or(0) as u32;
                let kind = ScopeKind::Inlined { call_file, call_line };
                let index = self.add(Scope { kind, die: r, ranges, vars: Vec::new(), children: Vec::new() }, parent);
                self.function(r, index, true);
                inner = Some(index);
            }
            (gimli::DW_TAG_formal_parameter | gimli::DW_TAG_variable, Some(scope)) => {
                if let Some(name) = self.sections.name(r) {
                    let is_parameter = tag == gimli::DW_TAG_formal_parameter;
                    self.scopes.scopes[scope].vars.push(VarDecl { name, die: r, is_parameter });
                }
                return Ok(());
            }
            _ => return Ok(()),
        }
        if depth >= MAX_NESTING {
            return Ok(());
        }
        let mut children = node.children();
        while let Some(child) = children.next()? {
            self.node(child, inner, depth + 1)?;
        }
        Ok(())
    }

    fn add(&mut self, scope: Scope, parent: Option<usize>) -> usize {
        let index = self.scopes.scopes.len();
        if parent.is_none() {
            for &(s, e) in &scope.ranges {
                self.scopes.roots.push((s, e, index));
            }
        }
        self.scopes.scopes.push(scope);
        if let Some(p) = parent {
            self.scopes.scopes[p].children.push(index);
        }
        index
    }

    /// Names the function whose code (or inlined copy) `r` is.
    fn function(&mut self, r: DieRef, scope: usize, inlined: bool) {
        let Some(name) = self.scopes.qualified(self.sections, r).or_else(|| self.sections.name(r)) else { return };
        let linkage = self
            .sections
            .attr(r, gimli::DW_AT_linkage_name)
            .or_else(|| self.sections.attr(r, gimli::DW_AT_MIPS_linkage_name))
            .and_then(|(holder, v)| self.sections.string(holder, v));
        let low = self.sections.attr(r, gimli::DW_AT_low_pc).and_then(|(holder, v)| {
            let unit = self.sections.units.get(holder.unit)?;
            self.sections.dwarf.attr_address(unit, v).ok().flatten()
        });
        let first = self.scopes.scopes[scope].ranges.iter().map(|&(s, _)| s).min();
        let Some(entry) = low.map(|l| l as u32).filter(|&l| l != 0).or(first) else { return };
        self.scopes.functions.push(FunctionEntry { name, linkage, scope, entry, inlined });
    }
}
