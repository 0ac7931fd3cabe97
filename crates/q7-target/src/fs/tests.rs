use super::*;
use std::time::SystemTime;

#[cfg(unix)]
use std::os::unix::fs::{FileTypeExt, PermissionsExt};

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn writes_replaces_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/dir/out.so");
    write_atomic(&path, b"first").unwrap();
    write_atomic(&path, b"second").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"second");
    write_atomic_parts(&path, &[b"head", b"", b"body"]).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"headbody");
    assert_eq!(names(path.parent().unwrap()), ["out.so"]);
}

#[cfg(unix)]
#[test]
fn gives_a_new_file_the_mode_of_an_ordinary_one_and_keeps_a_replaced_files() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::File::create(&plain).unwrap();
    let ours = dir.path().join("ours");
    write_atomic(&ours, b"x").unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&ours), mode(&plain));
    std::fs::set_permissions(&ours, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&ours, b"y").unwrap();
    assert_eq!(mode(&ours), 0o640);
}

#[test]
fn a_directory_in_the_way_is_an_error_and_nothing_is_left_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("taken");
    std::fs::create_dir_all(path.join("inner")).unwrap();
    let err = write_atomic(&path, b"x").unwrap_err();
    assert!(err.to_string().starts_with("a directory: q7 writes only"), "{err}");
    assert_eq!(names(dir.path()), ["taken"]);
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_followed_to_its_target_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/out.npy");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.path().join("link.npy");
    std::os::unix::fs::symlink("real/out.npy", &link).unwrap();
    write_atomic(&link, b"new").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), b"new");
    // A dangling link creates what it names.
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("real/made"), &dangling).unwrap();
    write_atomic(&dangling, b"made").unwrap();
    assert_eq!(std::fs::read(dir.path().join("real/made")).unwrap(), b"made");
}

#[cfg(unix)]
#[test]
fn character_devices_are_written_through_never_replaced() {
    let null = Path::new("/dev/null");
    write_atomic(null, b"discarded").unwrap();
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
    // A device that fails the write fails the call: no false success.
    let full = Path::new("/dev/full");
    if full.exists() {
        let err = write_atomic(full, b"x").unwrap_err();
        assert_eq!(err.raw_os_error(), Some(28), "{err}"); // ENOSPC
        assert!(std::fs::metadata(full).unwrap().file_type().is_char_device());
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_is_written_through_to_its_reader() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    write_atomic_parts(&fifo, &[b"through ", b"the pipe"]).unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(names(dir.path()), ["pipe"]);
}

#[test]
fn an_output_name_of_255_bytes_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n".repeat(255));
    write_atomic(&path, b"x").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"x");
}

#[test]
fn temporaries_of_dead_processes_are_removed_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let old = SystemTime::now() - Duration::from_secs(3600);
    let make = |name: &str, modified: SystemTime| {
        let file = std::fs::File::create(dir.path().join(name)).unwrap();
        file.set_modified(modified).unwrap();
    };
    // No pid is this high (pid_max is at most 2^22).
    make(".q7-99999999-AbC123.tmp", old);
    make(&format!(".q7-{}-AbC123.tmp", std::process::id()), old); // alive: ours
    make(".q7-99999998-AbC123.tmp", SystemTime::now()); // dead but young
    make(".q7-99999997-x.y.tmp", old); // not a name q7 makes
    make("user.tmp", old);
    write_atomic(&dir.path().join("out"), b"x").unwrap();
    let expected = [
        ".q7-99999997-x.y.tmp".to_string(),
        ".q7-99999998-AbC123.tmp".into(),
        format!(".q7-{}-AbC123.tmp", std::process::id()),
        "out".into(),
        "user.tmp".into(),
    ];
    let mut expected = expected.to_vec();
    expected.sort();
    assert_eq!(names(dir.path()), expected);
}

#[cfg(unix)]
#[test]
fn a_generated_file_replaces_a_planted_link_and_leaves_its_target_alone() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"the user's").unwrap();
    let planted = dir.path().join("relu.q7.s");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    write_generated(&planted, b"assembly").unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"the user's");
    assert!(!std::fs::symlink_metadata(&planted).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&planted).unwrap(), b"assembly");
    // A regular file is replaced as write_atomic does.
    write_generated(&planted, b"again").unwrap();
    assert_eq!(std::fs::read(&planted).unwrap(), b"again");
}

#[cfg(unix)]
#[test]
fn a_dangling_link_where_a_directory_belongs_is_named_as_one() {
    // create_dir_all said only "File exists".
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("out");
    std::os::unix::fs::symlink("nowhere", &link).unwrap();
    for path in [link.join("x.svg"), link.join("a/b/x.svg")] {
        let err = write_atomic(&path, b"x").unwrap_err();
        assert_eq!(err.to_string(), format!("{} is a dangling symbolic link (to nowhere)", link.display()));
    }
    assert_eq!(names(dir.path()), ["out"]);
    assert_eq!(dangling_link(&link.join("a")), Some((link.clone(), "nowhere".into())));
    std::fs::create_dir(dir.path().join("nowhere")).unwrap();
    assert_eq!(dangling_link(&link.join("a")), None);
}

#[test]
fn publish_dir_places_a_whole_directory_once_and_cleans_up_a_failed_fill() {
    let cache = tempfile::tempdir().unwrap();
    let dir = cache.path().join("entry");
    let io = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    let fill = |tmp: &Path| std::fs::create_dir_all(tmp.join("include")).map_err(|e| io(tmp, e));
    let failed = publish_dir(&dir, "include/.complete", |tmp| fill(tmp).and(Err("no".to_string())), io);
    assert_eq!(failed, Err("no".to_string()));
    assert!(names(cache.path()).is_empty(), "a failed fill leaves nothing");
    publish_dir(&dir, "include/.complete", fill, io).unwrap();
    assert!(dir.join("include/.complete").is_file());
    // Present: `fill` is not called again.
    publish_dir(&dir, "include/.complete", |_| panic!("filled twice"), io).unwrap();
    assert_eq!(names(cache.path()), ["entry"]);
}
