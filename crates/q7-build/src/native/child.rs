//! The host run's process, kept on a leash: the device has no processes and
//! no memory beyond its own, so the op's host build may not outlive q7,
//! create processes, or grow without bound.
//!
//! * It runs in a process group of its own, which is killed whenever q7 is
//!   done with it (normal end, error, panic, a caught SIGINT/SIGTERM/SIGHUP),
//!   and it receives SIGKILL when q7 itself dies (`PR_SET_PDEATHSIG`).
//! * A seccomp filter, installed between fork and exec, turns `fork`,
//!   `vfork` and a `clone` that is not a thread into SIGSYS (the host runtime
//!   reports it with the op's stack); `clone3` fails with ENOSYS, whose flags
//!   a filter cannot read, so the C library falls back to `clone`.
//!   The sanitizers then cannot start llvm-symbolizer either: q7 symbolizes
//!   their stacks itself (`symbolize`).
//! * q7 reads its resident memory so it can stop it at a limit.
#![allow(unsafe_code)] // fork-time prctl/seccomp, waitid, kill, sigaction

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicI32, Ordering};

/// A spawned host run and its process group (whose id is its pid).
pub(crate) struct Leashed {
    pub(crate) child: Child,
    reaped: bool,
}

/// Spawns `cmd` on the leash; `confine` adds the seccomp filter.
pub(crate) fn spawn(cmd: &mut Command, confine: bool) -> io::Result<Leashed> {
    let parent = std::process::id() as libc::pid_t;
    let filter = if confine { process_filter() } else { Vec::new() };
    cmd.process_group(0);
    // SAFETY: the closure runs in the forked child before exec and only makes
    // system calls (no allocation, no locks); `filter` was built before fork.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(io::Error::last_os_error());
            }
            // q7 may have died between fork and prctl: then no signal comes.
            if libc::getppid() != parent {
                return Err(io::Error::other("q7 ended before the host run started"));
            }
            if !filter.is_empty() {
                let program = libc::sock_fprog { len: filter.len() as u16, filter: filter.as_ptr().cast_mut() };
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) != 0
                    || libc::syscall(
                        libc::SYS_seccomp,
                        libc::SECCOMP_SET_MODE_FILTER,
                        0,
                        &program as *const libc::sock_fprog,
                    ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    Ok(Leashed { child: cmd.spawn()?, reaped: false })
}

impl Leashed {
    fn pid(&self) -> libc::pid_t {
        self.child.id() as libc::pid_t
    }

    /// Whether the child has exited. It stays unreaped (a zombie), so its pid,
    /// which is the group's id, cannot be reused while the group is killed.
    pub(crate) fn has_exited(&self) -> io::Result<bool> {
        // SAFETY: waitid writes only into `info`, a zeroed siginfo_t.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        if unsafe { libc::waitid(libc::P_PID, self.pid() as libc::id_t, &mut info, flags) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: si_pid is set for a child that changed state, zero otherwise.
        Ok(unsafe { info.si_pid() } != 0)
    }

    fn kill_group(&self) {
        if !self.reaped {
            // SAFETY: kill sends a signal; the group is ours while the leader is unreaped.
            unsafe { libc::kill(-self.pid(), libc::SIGKILL) };
        }
    }

    /// Kills the whole group and reaps the child: its status, and how many
    /// other processes of its group were still alive.
    pub(crate) fn finish(&mut self) -> io::Result<(ExitStatus, usize)> {
        let survivors = group_members(self.pid() as u32).iter().filter(|&&p| p != self.pid() as u32).count();
        self.kill_group();
        let status = self.child.wait()?;
        self.reaped = true;
        Ok((status, survivors))
    }

    /// The child's resident memory in bytes (`VmRSS`), if it is readable.
    pub(crate) fn resident_bytes(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }
}

impl Drop for Leashed {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill_group();
            let _ = self.child.wait();
        }
    }
}

/// The live (not zombie) processes whose process group is `pgid`.
pub(crate) fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
            // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
            let Some((_, rest)) = stat.rsplit_once(')') else { return false };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.first().is_some_and(|s| *s != "Z") && fields.get(2).and_then(|g| g.parse().ok()) == Some(pgid)
        })
        .collect()
}

// Classic BPF over `struct seccomp_data` (nr at 0, arch at 4, args[0]'s low
// word at 16 on a little-endian host).
const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const JSET_K: u16 = (libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K) as u16;
const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

fn op(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The architecture's audit id and its process-creating system calls
/// (fork, vfork where they exist; clone; clone3).
#[cfg(target_arch = "x86_64")]
const ARCH: (u32, &[u32], u32, u32) = (0xc000_003e, &[57, 58], 56, 435);
#[cfg(target_arch = "aarch64")]
const ARCH: (u32, &[u32], u32, u32) = (0xc000_00b7, &[], 220, 435);

/// The filter: a foreign architecture or ABI (x32's syscall bit), fork,
/// vfork and a clone without CLONE_THREAD trap; clone3 is ENOSYS.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn process_filter() -> Vec<libc::sock_filter> {
    let (arch, forks, clone, clone3) = ARCH;
    // Layout: 0 ld arch; 1 arch?; 2 ld nr; 3 x32 bit?; 4.. each fork?; then
    // n: clone3? n+1: ENOSYS; n+2: clone? n+3: allow; n+4: ld flags;
    // n+5: thread? n+6: allow; n+7: trap. A jump's offset counts from the
    // next instruction.
    let n = 4 + forks.len();
    let trap = n + 7;
    let to_trap = |at: usize| (trap - at - 1) as u8;
    let mut f = vec![
        op(LD_W_ABS, 4, 0, 0),
        op(JEQ_K, arch, 0, to_trap(1)),
        op(LD_W_ABS, 0, 0, 0),
        op(JGE_K, 0x4000_0000, to_trap(3), 0),
    ];
    for (i, &nr) in forks.iter().enumerate() {
        f.push(op(JEQ_K, nr, to_trap(4 + i), 0));
    }
    f.extend([
        op(JEQ_K, clone3, 0, 1),
        op(RET_K, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32, 0, 0),
        op(JEQ_K, clone, 1, 0),
        op(RET_K, libc::SECCOMP_RET_ALLOW, 0, 0),
        op(LD_W_ABS, 16, 0, 0),
        op(JSET_K, libc::CLONE_THREAD as u32, 0, 1),
        op(RET_K, libc::SECCOMP_RET_ALLOW, 0, 0),
        op(RET_K, libc::SECCOMP_RET_TRAP, 0, 0),
    ]);
    f
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn process_filter() -> Vec<libc::sock_filter> {
    Vec::new()
}

static CAUGHT: AtomicI32 = AtomicI32::new(0);
const CAUGHT_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_signal(signal: libc::c_int) {
    CAUGHT.store(signal, Ordering::SeqCst);
}

/// SIGINT, SIGTERM and SIGHUP caught while it lives (the previous handlers
/// come back on drop), so a host run in progress is killed and its files are
/// removed before q7 ends.
pub struct Interrupts {
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl Interrupts {
    pub fn catch() -> io::Result<Interrupts> {
        CAUGHT.store(0, Ordering::SeqCst);
        let mut previous = Vec::new();
        for signal in CAUGHT_SIGNALS {
            // SAFETY: the handler only stores to an atomic; `old` is written by sigaction.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, &action, &mut old) != 0 {
                    return Err(io::Error::last_os_error());
                }
                previous.push((signal, old));
            }
        }
        Ok(Interrupts { previous })
    }

    /// The signal caught since `catch`, if any.
    pub fn caught(&self) -> Option<i32> {
        caught()
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        for (signal, old) in &self.previous {
            // SAFETY: restores the action sigaction returned.
            unsafe { libc::sigaction(*signal, old, std::ptr::null_mut()) };
        }
    }
}

/// The signal an [`Interrupts`] caught, if any.
pub(crate) fn caught() -> Option<i32> {
    Some(CAUGHT.load(Ordering::SeqCst)).filter(|&s| s != 0)
}

/// A signal's name for messages.
pub fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGABRT => "SIGABRT (abort)".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGSYS => "SIGSYS".into(),
        _ => format!("signal {signal}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;
    use std::time::{Duration, Instant};

    fn run(script: &str, confine: bool) -> (ExitStatus, usize) {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", script]);
        let mut child = spawn(&mut cmd, confine).unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while !child.has_exited().unwrap() {
            assert!(Instant::now() < deadline, "{script} did not end");
            std::thread::sleep(Duration::from_millis(2));
        }
        child.finish().unwrap()
    }

    #[test]
    fn a_confined_child_runs_but_cannot_fork() {
        // `exit` is a builtin: no process is created.
        let (status, _) = run("exit 3", true);
        assert_eq!(status.code(), Some(3));
        // An external command needs a fork: the filter traps it (no handler: SIGSYS ends sh).
        let (status, _) = run("/bin/true; exit 3", true);
        assert_eq!(status.signal(), Some(libc::SIGSYS), "{status:?}");
    }

    #[test]
    fn processes_left_in_the_group_are_counted_and_killed() {
        let file = std::env::temp_dir().join(format!("q7-leash-{}", std::process::id()));
        let (status, survivors) = run(&format!("sleep 60 & echo $! > {}; exit 0", file.display()), false);
        assert!(status.success());
        assert_eq!(survivors, 1, "the background sleep was alive");
        let pid: u32 = std::fs::read_to_string(&file).unwrap().trim().parse().unwrap();
        let _ = std::fs::remove_file(&file);
        // Killed with the group (a zombie until its new parent reaps it).
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, r)| !r.trim_start().starts_with('Z')))
        {
            assert!(Instant::now() < deadline, "the background sleep survived");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn the_filter_jumps_stay_inside_the_program() {
        let f = process_filter();
        for (i, ins) in f.iter().enumerate() {
            if ins.code & 0x07 == libc::BPF_JMP as u16 {
                assert!(i + 1 + (ins.jt.max(ins.jf) as usize) < f.len(), "jump at {i}");
            }
        }
        assert_eq!(f.last().map(|i| i.k), Some(libc::SECCOMP_RET_TRAP));
    }
}
