//! `q7 layout --svg OUT.svg IMAGE…`: the picture of the core windows. A
//! golden snapshot over the committed eight-core fixture, well-formed XML
//! (a small checker here, and Python's minidom as a peer when present), the
//! structure a reader relies on (one column per window, to-scale headroom,
//! legend), atomic writes, and the odd inputs (shared windows, the single
//! fat core, an object with no window).

use crate::common;

use std::path::Path;
use std::process::Command;

use common::*;

fn fixtures(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| fixture(n).display().to_string()).collect()
}

fn eight() -> Vec<String> {
    let names: Vec<String> = (0..8).map(|i| format!("prog_cpu{i}.so")).collect();
    fixtures(&names.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Runs `q7 layout --svg out images…` and returns the SVG text.
fn draw(out: &Path, images: &[String]) -> String {
    let mut args = vec!["layout".to_string(), "--svg".to_string(), out.display().to_string()];
    args.extend(images.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = q7(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "--svg replaces the text report");
    assert!(stderr(&o).contains(&format!("q7 layout: wrote {}", out.display())), "{}", stderr(&o));
    std::fs::read_to_string(out).unwrap()
}

/// A small well-formedness check: one root, every tag closed in order,
/// attributes quoted and unique, only the five predefined entities (and
/// numeric ones), no stray '<' or '&'.
fn check_xml(text: &str) -> Result<usize, String> {
    let body = text.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n").ok_or("no XML declaration")?;
    let bytes = body.as_bytes();
    let mut stack: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut elements = 0;
    let mut i = 0;
    let check_entities = |s: &str| -> Result<(), String> {
        let mut rest = s;
        while let Some(at) = rest.find('&') {
            let end = rest[at..].find(';').ok_or(format!("unterminated entity in {s:?}"))?;
            let name = &rest[at + 1..at + end];
            let ok = matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
                || name.strip_prefix('#').is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty());
            if !ok {
                return Err(format!("unknown entity &{name};"));
            }
            rest = &rest[at + end + 1..];
        }
        Ok(())
    };
    while i < bytes.len() {
        if bytes[i] != b'<' {
            let next = body[i..].find('<').map_or(bytes.len(), |n| i + n);
            let chars = &body[i..next];
            if stack.is_empty() && !chars.trim().is_empty() {
                return Err(format!("text outside the root: {chars:?}"));
            }
            check_entities(chars)?;
            i = next;
            continue;
        }
        let end = body[i..].find('>').map(|n| i + n).ok_or("unterminated tag")?;
        let tag = &body[i + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("</{name}> closes nothing"))?;
            if open != name.trim() {
                return Err(format!("</{name}> closes <{open}>"));
            }
        } else {
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name: String = tag.chars().take_while(|c| !c.is_whitespace()).collect();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == ':' || c == '-') {
                return Err(format!("bad element name in <{tag}>"));
            }
            // Attributes: name="value" pairs, each name once.
            let mut rest = tag[name.len()..].trim_start();
            let mut seen = Vec::new();
            while !rest.is_empty() {
                let eq = rest.find('=').ok_or(format!("attribute without value in <{tag}>"))?;
                let attr = rest[..eq].trim();
                if attr.is_empty() || seen.contains(&attr) {
                    return Err(format!("bad or repeated attribute {attr:?} in <{name}>"));
                }
                seen.push(attr);
                let value = rest[eq + 1..].strip_prefix('"').ok_or(format!("unquoted attribute {attr} in <{name}>"))?;
                let close = value.find('"').ok_or(format!("unterminated attribute {attr}"))?;
                if value[..close].contains('<') {
                    return Err(format!("'<' in attribute {attr}"));
                }
                check_entities(&value[..close])?;
                rest = value[close + 1..].trim_start();
            }
            if stack.is_empty() {
                roots += 1;
            }
            elements += 1;
            if !self_closing {
                stack.push(name);
            }
        }
        i = end + 1;
    }
    if !stack.is_empty() {
        return Err(format!("unclosed elements: {stack:?}"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(elements)
}

#[test]
fn xml_checker_rejects_what_it_should() {
    let decl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    assert!(check_xml(&format!("{decl}<svg><g/><text x=\"1\">a &amp; b</text></svg>\n")).is_ok());
    for bad in [
        "<svg><g></svg>",
        "<svg><text>a & b</text></svg>",
        "<svg x=1/>",
        "<svg x=\"1\" x=\"2\"/>",
        "<svg/><svg/>",
        "<svg>&nbsp;</svg>",
    ] {
        assert!(check_xml(&format!("{decl}{bad}")).is_err(), "{bad}");
    }
}

#[test]
fn eight_core_fixture_matches_the_golden_picture() {
    let dir = tempfile::tempdir().unwrap();
    let svg = draw(&dir.path().join("layout.svg"), &eight());
    let elements = check_xml(&svg).unwrap_or_else(|e| panic!("not well-formed: {e}"));
    assert!(elements > 100, "{elements} elements");
    assert_golden("layout_svg_prog_cpu.svg", &svg);

    // Python's parser agrees, when there is one.
    if let Ok(o) = Command::new("python3")
        .args(["-c", "import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); print(d.documentElement.tagName)"])
        .arg(dir.path().join("layout.svg"))
        .output()
    {
        assert!(o.status.success(), "minidom: {}", stderr(&o));
        assert_eq!(stdout(&o).trim(), "svg");
    }
}

#[test]
fn one_column_per_window_with_headroom_to_scale() {
    let dir = tempfile::tempdir().unwrap();
    let svg = draw(&dir.path().join("a.svg"), &eight());
    // Two frames per window: the to-scale column and its magnified view.
    assert_eq!(svg.matches(r#"class="frame""#).count(), 16);
    for i in 0..8u32 {
        assert!(svg.contains(&format!(r#"class="label" text-anchor="middle">cpu{i}</text>"#)), "cpu{i}");
        assert!(svg.contains(&format!("base {:#010x}", 0x8400_0000 + i * 0x20_0000)));
        assert!(svg.contains(&format!("prog_cpu{i}.so: headroom 0x1ffca8 bytes (2.00 MiB)")));
        assert!(svg.contains(&format!("prog_cpu{i}.so: LOAD RWE 0x{:08x}", 0x8400_0000 + i * 0x20_0000)));
    }
    assert!(svg.contains("windows tile 0x84000000..0x85000000 (16.00 MiB)"));
    assert!(svg.contains("entry at window base + 0x7c in every image"));
    assert!(svg.contains("2 LOAD segments each"));
    // The to-scale column is 400 px for 2 MiB; the headroom band fills all
    // of it but the image's 0x358 bytes (under 1 px).
    assert!(svg.contains(r#"height="399.8" fill="url(#headroom)""#), "headroom band height");
    for legend in [".bss: LOAD segment, zero-filled (RW)", "headroom: stack, heap, launch block", "code (.text)"] {
        assert!(svg.contains(legend), "{legend}");
    }
    // No absolute paths leak into the picture.
    assert!(!svg.contains(&root().display().to_string()));
}

#[test]
fn odd_inputs_shared_window_single_core_and_objects() {
    let dir = tempfile::tempdir().unwrap();
    // Two images in cpu0's window share its column; an object has no window.
    let svg = draw(&dir.path().join("b.svg"), &fixtures(&["prog_cpu0.so", "prog_cpu0.stripped.so", "prog.o"]));
    check_xml(&svg).unwrap();
    assert_eq!(svg.matches(r#"class="frame""#).count(), 2);
    assert!(svg.contains("prog_cpu0.stripped.so: headroom"));
    assert!(svg.contains("not drawn (in no core window): prog.o"));
    // The single fat core: one 32 MiB column.
    let svg = draw(&dir.path().join("c.svg"), &fixtures(&["prog_single.so"]));
    check_xml(&svg).unwrap();
    assert!(svg.contains(">single</text>"));
    assert!(svg.contains("end 0x86000000"));
    assert!(svg.contains("q7 layout: prog_single.so"));
}

#[test]
fn the_file_is_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new/dir/pic.svg");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, "x".repeat(1_000_000)).unwrap();
    let svg = draw(&out, &eight());
    assert!(svg.ends_with("</svg>\n"), "the old, longer file is replaced whole");
    let names: Vec<String> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["pic.svg"], "no temporary files left behind");
    // Parent directories are created; a bad input writes nothing.
    let fresh = dir.path().join("a/b/c.svg");
    draw(&fresh, &eight());
    assert!(fresh.is_file());
    let missing = dir.path().join("never.svg");
    let o = q7(&["layout", "--svg", missing.to_str().unwrap(), "/nonexistent/x.so"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!missing.exists());
}

#[test]
fn json_can_accompany_the_picture() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("j.svg");
    let mut args = vec!["layout", "--json", "--svg", out.to_str().unwrap()];
    let imgs = eight();
    args.extend(imgs.iter().map(String::as_str));
    let o = q7(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["images"].as_array().unwrap().len(), 8);
    assert!(out.is_file());
}
