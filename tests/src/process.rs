//! Processes a test starts (anvil, redis-server, nginx, caddy, node, python, curl, the service
//! binary): each runs in a process group of its own, and its [`Group`] guard stops the whole
//! group — the process and everything it started, such as the `anvil` binary npm's `anvil`
//! wrapper starts — when it drops: on success, on failure and on panic. SIGTERM first, then
//! SIGKILL after [`GRACE`]; every wait is bounded.
//!
//! A guard that is never dropped (one kept in a `static` for a whole test binary) or a test
//! binary that dies without unwinding (Ctrl-C, SIGKILL) is covered by a watchdog: one `sh` per
//! test binary, in a process group of its own, holds a pipe from the test binary, learns every
//! group as it starts and stops, and stops the groups still running when the pipe closes, that
//! is when the test binary exits, however it exits.
//!
//! Use [`Grouped`] instead of `Command::spawn`, `output` and `status`: clippy rejects those
//! calls anywhere in the workspace but in this module's one wrapper (`clippy.toml`).

#![allow(clippy::missing_panics_doc, clippy::missing_errors_doc)]

use std::io::{self, Write as _};
use std::ops::{Deref, DerefMut};
use std::os::unix::process::CommandExt as _;
use std::process::{Child, ChildStdin, Command, ExitStatus, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, test_kill_process_group, Pid, Signal};

/// How long a group has to exit after SIGTERM before SIGKILL, and after SIGKILL before the
/// guard stops waiting.
pub const GRACE: Duration = Duration::from_secs(5);

/// `Command` started in a process group of its own, under a [`Group`] guard.
pub trait Grouped {
    /// Like `spawn`: the process, in its own process group, stopped with its group when the
    /// guard drops.
    fn spawn_in_group(&mut self) -> io::Result<Group>;
    /// Like `output`: runs to its end with stdin empty and stdout and stderr collected (set
    /// here, over any earlier setting); then stops whatever the process left in its group.
    fn output_in_group(&mut self) -> io::Result<Output>;
    /// Like `status`: runs to its end with inherited stdio; then stops whatever the process
    /// left running in its group.
    fn status_in_group(&mut self) -> io::Result<ExitStatus>;
}

impl Grouped for Command {
    fn spawn_in_group(&mut self) -> io::Result<Group> {
        let child = spawn_leading_a_group(self)?;
        let pgid = Pid::from_child(&child);
        watchdog(&format!("add {}", pgid.as_raw_nonzero()));
        Ok(Group {
            child: Some(child),
            pgid,
            stopped: false,
        })
    }

    fn output_in_group(&mut self) -> io::Result<Output> {
        // `output` reads what is not redirected: stdin empty, stdout and stderr piped.
        self.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn_in_group()?
            .wait_with_output()
    }

    fn status_in_group(&mut self) -> io::Result<ExitStatus> {
        let mut group = self.spawn_in_group()?;
        let status = group.wait();
        group.stop();
        status
    }
}

/// `command` started as the leader of a process group of its own. The workspace's one place
/// that starts a process: clippy's `disallowed-methods` (`clippy.toml`) rejects
/// `Command::spawn`, `output` and `status` everywhere else, however they are called.
#[allow(clippy::disallowed_methods)]
fn spawn_leading_a_group(command: &mut Command) -> io::Result<Child> {
    command.process_group(0).spawn()
}

/// A process in its own process group; dropping it stops the group (see [`Group::stop`]).
/// Derefs to the [`Child`] for its pipes, `id`, `wait` and `try_wait`.
#[derive(Debug)]
pub struct Group {
    /// `None` only inside [`Group::wait_with_output`].
    child: Option<Child>,
    pgid: Pid,
    stopped: bool,
}

impl Group {
    /// Stops the group: SIGTERM to every process in it, at most [`GRACE`] for them to exit,
    /// then SIGKILL and at most [`GRACE`] again. Reaps the process itself. Does nothing the
    /// second time.
    pub fn stop(&mut self) {
        self.end(Signal::TERM);
    }

    /// SIGKILL to every process in the group at once (a crash: nothing flushed, nothing
    /// recorded), then waits for them (at most [`GRACE`]). Does nothing the second time.
    pub fn kill(&mut self) {
        self.end(Signal::KILL);
    }

    /// Like `Child::wait_with_output`, then stops whatever the process left in its group.
    pub fn wait_with_output(mut self) -> io::Result<Output> {
        let child = self.child.take().expect("the process");
        let pgid = self.pgid;
        let output = child.wait_with_output();
        // The process has been reaped: the group holds only what it left behind.
        let mut rest = Group {
            child: None,
            pgid,
            stopped: false,
        };
        rest.stop();
        self.stopped = true;
        output
    }

    fn end(&mut self, first: Signal) {
        self.end_with(first, GRACE, |pgid, signal| {
            let _ = kill_process_group(pgid, signal);
        });
    }

    /// [`Group::end`] with the grace and the way a signal is sent given: `first` to the group,
    /// at most `grace` for it to be gone, then (unless `first` was SIGKILL) SIGKILL and at most
    /// `grace` again. Only a group that is gone is taken off the watchdog's list; one that
    /// survived is named on stderr and stays there, so the watchdog stops it when the test
    /// binary exits. Whether it is gone.
    fn end_with(&mut self, first: Signal, grace: Duration, send: impl Fn(Pid, Signal)) -> bool {
        if self.stopped {
            return true;
        }
        self.stopped = true;
        send(self.pgid, first);
        let mut gone = self.wait_gone(grace);
        if !gone && first != Signal::KILL {
            send(self.pgid, Signal::KILL);
            gone = self.wait_gone(grace);
        }
        if gone {
            watchdog(&format!("del {}", self.pgid.as_raw_nonzero()));
        } else {
            eprintln!(
                "process group {} still runs after SIGKILL; the watchdog stops it when this \
                 test binary exits",
                self.pgid.as_raw_nonzero()
            );
        }
        gone
    }

    /// Waits (at most `limit`) until no process of the group runs, reaping the leader.
    fn wait_gone(&mut self, limit: Duration) -> bool {
        let started = Instant::now();
        loop {
            if let Some(child) = &mut self.child {
                let _ = child.try_wait();
            }
            if !group_runs(self.pgid) {
                if let Some(child) = &mut self.child {
                    // Gone or a zombie: reaped at once.
                    let _ = child.try_wait();
                }
                return true;
            }
            if started.elapsed() >= limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Deref for Group {
    type Target = Child;
    fn deref(&self) -> &Child {
        self.child.as_ref().expect("the process")
    }
}

impl DerefMut for Group {
    fn deref_mut(&mut self) -> &mut Child {
        self.child.as_mut().expect("the process")
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether a process of group `pgid` runs (zombies, exited but not yet reaped, do not).
fn group_runs(pgid: Pid) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return test_kill_process_group(pgid).is_ok();
    };
    entries.flatten().any(|entry| {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            return false;
        };
        stat(pid).is_some_and(|(_, group)| group == pgid.as_raw_nonzero().get()) && threads_run(pid)
    })
}

/// Whether process `pid` runs (a zombie does not).
pub fn running(pid: u32) -> bool {
    i32::try_from(pid).ok().is_some_and(threads_run)
}

/// Whether a thread of process `pid` runs. Not the main thread's state alone: after SIGKILL
/// the main thread of a multi-threaded server may be a zombie while the others still exit,
/// and its sockets (a listening port) are closed only when the last one has.
fn threads_run(pid: i32) -> bool {
    let Ok(threads) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return stat(pid).is_some_and(|(state, _)| state != 'Z' && state != 'X');
    };
    threads.flatten().any(|thread| {
        std::fs::read_to_string(thread.path().join("stat"))
            .ok()
            .and_then(|text| state_and_group(&text))
            .is_some_and(|(state, _)| state != 'Z' && state != 'X')
    })
}

/// The state and process group of `pid`, from `/proc/<pid>/stat`.
fn stat(pid: i32) -> Option<(char, i32)> {
    state_and_group(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The state and process group in a `/proc/<pid>/stat` (or `/proc/<pid>/task/<tid>/stat`) line.
fn state_and_group(text: &str) -> Option<(char, i32)> {
    // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
    let mut fields = text.get(text.rfind(')')? + 1..)?.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let group = fields.next()?.parse().ok()?;
    Some((state, group))
}

/// The watchdog of this test binary: `add PGID` when a group starts, `del PGID` when its guard
/// stopped it; at end of input (this test binary gone) it stops the groups left.
const WATCHDOG: &str = r#"
live=" "
while read -r verb pgid; do
  case "$verb $live" in
    "add "*) live="$live$pgid " ;;
    "del "*" $pgid "*) live="${live% $pgid *} ${live#* $pgid }" ;;
  esac
done
[ "$live" = " " ] && exit 0
for pgid in $live; do kill -TERM "-$pgid" 2>/dev/null; done
sleep 1
for pgid in $live; do kill -KILL "-$pgid" 2>/dev/null; done
"#;

/// Tells the watchdog `line`, starting it on first use (without `sh`, there is none).
fn watchdog(line: &str) {
    static INPUT: OnceLock<Option<Mutex<ChildStdin>>> = OnceLock::new();
    let input = INPUT.get_or_init(|| {
        let mut child = spawn_leading_a_group(
            Command::new("sh")
                .args(["-c", WATCHDOG])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        )
        .ok()?;
        child.stdin.take().map(Mutex::new)
    });
    if let Some(input) = input {
        let mut input = input
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = writeln!(input, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::path::{Path, PathBuf};

    /// A shell that starts a grandchild (`sleep`) and prints its pid; both pids. Neither holds
    /// this process's stderr (a pipe its parent may read to its end).
    fn shell_with_grandchild() -> (Group, u32, u32) {
        let mut group = Command::new("sh")
            .args(["-c", "sleep 600 & echo $!; wait"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn_in_group()
            .expect("start sh");
        let mut line = String::new();
        BufReader::new(group.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the grandchild's pid");
        let grandchild = line.trim().parse().expect("a pid");
        let child = group.id();
        assert!(running(child) && running(grandchild));
        (group, child, grandchild)
    }

    #[test]
    fn dropping_the_guard_stops_the_process_and_what_it_started() {
        let (group, child, grandchild) = shell_with_grandchild();
        drop(group);
        assert!(!running(child), "the process is gone");
        assert!(!running(grandchild), "its child is gone");
    }

    #[test]
    fn a_panicking_test_stops_its_processes_too() {
        let (send, pids) = std::sync::mpsc::channel();
        let test = std::thread::spawn(move || {
            let (_group, child, grandchild) = shell_with_grandchild();
            send.send((child, grandchild)).expect("send");
            panic!("the test fails");
        });
        assert!(test.join().is_err());
        let (child, grandchild) = pids.recv().expect("pids");
        assert!(!running(child) && !running(grandchild));
    }

    #[test]
    fn a_process_that_ignores_sigterm_is_killed_after_the_grace() {
        let mut group = Command::new("sh")
            .args(["-c", "trap '' TERM; echo ready; sleep 600 & wait; wait"])
            .stdout(Stdio::piped())
            .spawn_in_group()
            .expect("start sh");
        let mut line = String::new();
        BufReader::new(group.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("ready");
        let child = group.id();
        let started = Instant::now();
        group.stop();
        assert!(!running(child));
        assert!(started.elapsed() < GRACE * 2);
    }

    /// A process whose main thread has exited (a zombie in `/proc/<pid>/stat`) while another
    /// of its threads still runs and holds a listening socket, as a multi-threaded server
    /// (`redis-server`) is for a moment after SIGKILL: it still runs, and a guard that stops
    /// it frees the port.
    #[test]
    fn a_process_whose_main_thread_exited_runs_until_its_last_thread_ends() {
        if crate::tools::have("python3", "apt-get install python3").is_none() {
            return;
        }
        let script = "import ctypes, socket, sys, threading, time\n\
                      s = socket.socket()\n\
                      s.bind(('127.0.0.1', 0))\n\
                      s.listen()\n\
                      print(s.getsockname()[1], flush=True)\n\
                      threading.Thread(target=lambda: time.sleep(600)).start()\n\
                      ctypes.CDLL(None).pthread_exit(None)\n";
        let mut group = Command::new("python3")
            .args(["-c", script])
            .stdout(Stdio::piped())
            .spawn_in_group()
            .expect("start python3");
        let mut line = String::new();
        BufReader::new(group.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the port");
        let port: u16 = line.trim().parse().expect("a port");
        let pid = group.id();
        let started = Instant::now();
        while stat(i32::try_from(pid).expect("a pid")).is_some_and(|(state, _)| state != 'Z') {
            assert!(started.elapsed() < GRACE, "the main thread exits");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(running(pid), "its other thread still runs");
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
        group.kill();
        assert!(!running(pid));
        assert!(
            std::net::TcpListener::bind(("127.0.0.1", port)).is_ok(),
            "the port is free once the guard has stopped the process"
        );
    }

    /// The repository's files named `name` (build output and installed packages left out).
    fn repository_files(dir: &Path, name: &str, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let skipped = ["target", "node_modules", "venv", ".git"];
            if path.is_dir() {
                if !path.file_name().is_some_and(|n| {
                    skipped.iter().any(|s| n == *s) || n.to_string_lossy().starts_with("target-")
                }) {
                    repository_files(&path, name, found);
                }
            } else if name.is_empty() && path.extension().is_some_and(|e| e == "rs")
                || path.file_name().is_some_and(|n| n == name)
            {
                found.push(path);
            }
        }
    }

    fn repository() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace")
            .to_path_buf()
    }

    /// A workspace of two crates in the shapes a process can be started in: a library that
    /// other crates' tests call (`helper`: `Command::spawn(&mut c)`), and a crate with a unit
    /// test (method calls, the path form, a method passed as a function, a call through
    /// `helper`) and a bench. Each line that starts a process ends in `// disallowed`.
    const FIXTURE: &[(&str, &str)] = &[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"helper\", \"user\"]\nresolver = \"2\"\n",
        ),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "helper/src/lib.rs",
            "//! A library other crates' tests call.\n\
             use std::process::{Child, Command};\n\
             /// Starts `command`.\n\
             pub fn start(command: &mut Command) -> std::io::Result<Child> {\n\
             \x20   Command::spawn(command) // disallowed\n\
             }\n",
        ),
        (
            "user/Cargo.toml",
            "[package]\nname = \"user\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
             [dependencies]\nhelper = { path = \"../helper\" }\n\
             [[bench]]\nname = \"bench\"\nharness = false\n",
        ),
        (
            "user/src/lib.rs",
            "//! Tests.\n\
             #[cfg(test)]\n\
             mod tests {\n\
             \x20   use std::process::{Command, ExitStatus};\n\
             \x20   #[test]\n\
             \x20   fn shapes() {\n\
             \x20       let mut command = Command::new(\"true\");\n\
             \x20       let _ = command.spawn(); // disallowed\n\
             \x20       let _ = command.output(); // disallowed\n\
             \x20       let _ = command.status(); // disallowed\n\
             \x20       let _ = Command::spawn(&mut command); // disallowed\n\
             \x20       let run: fn(&mut Command) -> std::io::Result<ExitStatus> = Command::status; // disallowed\n\
             \x20       let _ = run(&mut command);\n\
             \x20       let _ = helper::start(&mut command);\n\
             \x20   }\n\
             }\n",
        ),
        (
            "user/benches/bench.rs",
            "fn main() {\n\
             \x20   let _ = std::process::Command::new(\"true\").output(); // disallowed\n\
             }\n",
        ),
    ];

    /// Every `clippy.toml` of the repository (clippy reads, for each crate, the nearest one
    /// above its manifest: the workspace's, and `core`'s own), put over [`FIXTURE`]: `cargo
    /// clippy --all-targets` reports a disallowed method on each line that starts a process.
    #[test]
    fn clippy_rejects_every_way_of_starting_a_process_but_the_wrapper() {
        if crate::tools::have("cargo-clippy", "rustup component add clippy").is_none() {
            return;
        }
        let mut configs = Vec::new();
        repository_files(&repository(), "clippy.toml", &mut configs);
        configs.sort();
        assert!(
            configs.contains(&repository().join("clippy.toml")),
            "{configs:?}"
        );
        for config in configs {
            let dir = std::env::temp_dir().join(format!(
                "contact-clippy-processes-{}-{}",
                std::process::id(),
                config
                    .parent()
                    .and_then(Path::file_name)
                    .map_or_else(|| "root".into(), |n| n.to_string_lossy().into_owned()),
            ));
            let _ = std::fs::remove_dir_all(&dir);
            let mut expected = Vec::new();
            for (path, text) in FIXTURE {
                let file = dir.join(path);
                std::fs::create_dir_all(file.parent().expect("a folder")).expect("mkdir");
                std::fs::write(&file, text).expect("write the fixture");
                for (n, line) in text.lines().enumerate() {
                    if line.ends_with("// disallowed") {
                        expected.push(format!("{path}:{}:", n + 1));
                    }
                }
            }
            std::fs::copy(&config, dir.join("clippy.toml")).expect("copy clippy.toml");
            let output = Command::new("cargo")
                .args([
                    "clippy",
                    "--offline",
                    "--all-targets",
                    "--message-format=short",
                ])
                .arg("--target-dir")
                .arg(dir.join("target"))
                .current_dir(&dir)
                .env_remove("CLIPPY_CONF_DIR")
                .env_remove("CARGO_TARGET_DIR")
                .output_in_group()
                .expect("run cargo clippy");
            let said = String::from_utf8_lossy(&output.stderr);
            let reported: Vec<&str> = said
                .lines()
                .filter(|l| l.contains("use of a disallowed method `std::process::Command::"))
                .collect();
            let missed: Vec<&String> = expected
                .iter()
                .filter(|at| !reported.iter().any(|l| l.starts_with(at.as_str())))
                .collect();
            assert!(
                missed.is_empty(),
                "{}: clippy lets these start a process: {missed:?}\n{said}",
                config.display()
            );
            std::fs::remove_dir_all(&dir).expect("remove the fixture");
        }
    }

    /// The lint's one exception is [`spawn_leading_a_group`]: outside `core` (whose own
    /// disallowed methods, clock and files, some of its tests allow, and which disallows the
    /// type `std::process::Command` as well), no source names the lint but that `#[allow]`,
    /// none turns off the disallowed types or the lint groups that hold them, and no manifest
    /// sets their level. (The names are spelled in pieces here, so this test's own lines do
    /// not hold them.)
    #[test]
    fn the_process_rule_has_one_exception() {
        const METHODS: &str = concat!("disallowed", "_methods");
        const OTHERS: [&str; 3] = [
            concat!("disallowed", "_types"),
            concat!("clippy::", "style"),
            concat!("clippy::", "all"),
        ];
        let root = repository();
        let mut sources = Vec::new();
        repository_files(&root, "", &mut sources);
        assert!(sources.len() > 50, "{sources:?}");
        let mut exceptions = Vec::new();
        for path in &sources {
            let text = std::fs::read_to_string(path).expect("read a source");
            let relative = path.strip_prefix(&root).expect("in the repository");
            for (n, line) in text.lines().enumerate() {
                if line.contains(METHODS) && !relative.starts_with("core")
                    || OTHERS.iter().any(|name| line.contains(name))
                {
                    exceptions.push(format!("{}:{}: {}", relative.display(), n + 1, line.trim()));
                }
            }
        }
        let allow = format!("#[allow(clippy::{METHODS})]");
        let wrapper = include_str!("process.rs")
            .lines()
            .position(|l| l == allow)
            .expect("the wrapper's allow");
        assert_eq!(
            exceptions,
            vec![format!("tests/src/process.rs:{}: {allow}", wrapper + 1)]
        );
        let mut manifests = Vec::new();
        repository_files(&root, "Cargo.toml", &mut manifests);
        for manifest in manifests {
            let text = std::fs::read_to_string(&manifest).expect("read a manifest");
            assert!(
                !text.contains("disallowed") && !text.contains("style ="),
                "{}",
                manifest.display()
            );
        }
    }

    /// For a test run again as its own test binary: a shell with a grandchild in a group of
    /// its own; their pids (`GRANDCHILD SHELL`) printed on a line `pids …`.
    fn shell_printing_its_pids() -> Group {
        let (group, child, grandchild) = shell_with_grandchild();
        println!("pids {grandchild} {child}");
        group
    }

    /// Runs this test binary again for test `name` (in `process::tests`) with `var` set, and
    /// waits (at most [`GRACE`]) until neither process of its [`shell_printing_its_pids`]
    /// runs; when one still does, kills their group and fails.
    fn run_again_then_none_runs(name: &str, var: &str) {
        let output = Command::new(std::env::current_exe().expect("this test binary"))
            .args(["--exact", "--nocapture", "--test-threads=1"])
            .arg(format!("process::tests::{name}"))
            .env(var, "1")
            .output_in_group()
            .expect("run this test binary");
        let said = String::from_utf8_lossy(&output.stdout);
        let pids: Vec<u32> = said
            .lines()
            .find_map(|l| l.split_once("pids ").map(|(_, pids)| pids))
            .unwrap_or_else(|| panic!("the pids in {said}"))
            .split(' ')
            .map(|p| p.parse().expect("a pid"))
            .collect();
        let started = Instant::now();
        while pids.iter().any(|&p| running(p)) {
            if started.elapsed() > GRACE {
                // The shell leads the group.
                let shell = i32::try_from(pids[1]).ok().and_then(Pid::from_raw);
                let _ = kill_process_group(shell.expect("a pid"), Signal::KILL);
                panic!("{pids:?} still run");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Run as its own test binary (`FORGET_A_GROUP` set): starts a shell with a grandchild,
    /// prints both pids and exits without dropping the guard.
    #[test]
    fn a_guard_never_dropped_is_stopped_when_the_test_binary_exits() {
        if std::env::var_os("FORGET_A_GROUP").is_some() {
            std::mem::forget(shell_printing_its_pids());
            std::process::exit(0);
        }
        run_again_then_none_runs(
            "a_guard_never_dropped_is_stopped_when_the_test_binary_exits",
            "FORGET_A_GROUP",
        );
    }

    /// `python3 tests/leftovers.py ARGS…` with `vars` set (and `CI` only when among them),
    /// run to its end.
    fn leftovers(args: &[&str], vars: &[(&str, &str)]) -> Output {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut command = Command::new("python3");
        command.current_dir(&root).args(args).env_remove("CI");
        for (name, value) in vars {
            command.env(name, value);
        }
        command.output_in_group().expect("run tests/leftovers.py")
    }

    /// The command run under `tests/leftovers.py` starts a process (its standard streams on
    /// `/dev/null`, so the pipes read here close), waits until that process's main thread has
    /// exited while another of its threads still runs, prints its pid and exits: the process
    /// is left behind, and the check names it, kills it and fails. (Left running, it is in
    /// this test's process group, stopped with it.)
    #[test]
    fn leftovers_fails_on_a_survivor_whose_main_thread_exited() {
        if crate::tools::have("python3", "apt-get install python3").is_none() {
            return;
        }
        let command = "import ctypes, os, threading, time\n\
                       pid = os.fork()\n\
                       if pid == 0:\n\
                       \x20   null = os.open('/dev/null', os.O_RDWR)\n\
                       \x20   for fd in (0, 1, 2):\n\
                       \x20       os.dup2(null, fd)\n\
                       \x20   threading.Thread(target=lambda: time.sleep(600)).start()\n\
                       \x20   ctypes.CDLL(None).pthread_exit(None)\n\
                       deadline = time.monotonic() + 5\n\
                       while time.monotonic() < deadline:\n\
                       \x20   with open(f'/proc/{pid}/stat') as f:\n\
                       \x20       if f.read().rsplit(')', 1)[1].split()[0] == 'Z':\n\
                       \x20           break\n\
                       \x20   time.sleep(0.01)\n\
                       print(pid, flush=True)\n";
        let output = leftovers(
            &["tests/leftovers.py", "python3", "-c", command],
            &[("LEFTOVERS_GRACE_SECONDS", "1")],
        );
        let said = String::from_utf8_lossy(&output.stderr);
        let pid: u32 = String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .expect("the survivor's pid");
        assert_eq!(output.status.code(), Some(1), "{said}");
        assert!(said.contains("left 1 process(es) running"), "{said}");
        assert!(!running(pid), "the check killed it");
    }

    /// `tests/leftovers.py` with `prctl` refused (its `ctypes.CDLL` replaced by one whose
    /// `prctl` returns -1): with `CI=true` it fails without running the command; elsewhere it
    /// warns and runs it.
    #[test]
    fn leftovers_fails_in_ci_when_it_cannot_become_a_subreaper() {
        if crate::tools::have("python3", "apt-get install python3").is_none() {
            return;
        }
        let refused = "import ctypes, runpy, sys\n\
                       class Libc:\n\
                       \x20   def prctl(self, *args):\n\
                       \x20       return -1\n\
                       ctypes.CDLL = lambda *args, **kwargs: Libc()\n\
                       sys.argv = sys.argv[1:]\n\
                       runpy.run_path(sys.argv[0], run_name='__main__')\n";
        let args = [
            "-c",
            refused,
            "tests/leftovers.py",
            "sh",
            "-c",
            "echo the command ran",
        ];
        let ci = leftovers(&args, &[("CI", "true")]);
        let said = String::from_utf8_lossy(&ci.stderr);
        assert_eq!(ci.status.code(), Some(1), "{said}");
        assert!(said.contains("cannot become a child subreaper"), "{said}");
        assert!(ci.stdout.is_empty(), "the command does not run unchecked");
        let elsewhere = leftovers(&args, &[]);
        let said = String::from_utf8_lossy(&elsewhere.stderr);
        assert!(elsewhere.status.success(), "{said}");
        assert!(said.contains("not checked"), "{said}");
        assert_eq!(elsewhere.stdout, b"the command ran\n");
    }

    /// Run as its own test binary (`SURVIVING_GROUP` set): starts a shell with a grandchild,
    /// ends its guard with a SIGKILL that never arrives (a group that survives it), prints both
    /// pids and exits. The watchdog still has the group on its list and stops it.
    #[test]
    fn a_group_that_survives_its_guard_is_stopped_when_the_test_binary_exits() {
        if std::env::var_os("SURVIVING_GROUP").is_some() {
            let mut group = shell_printing_its_pids();
            let gone = group.end_with(Signal::KILL, Duration::from_millis(50), |_, _| {});
            assert!(!gone, "the group survives a signal never sent");
            std::process::exit(0);
        }
        run_again_then_none_runs(
            "a_group_that_survives_its_guard_is_stopped_when_the_test_binary_exits",
            "SURVIVING_GROUP",
        );
    }

    #[test]
    fn output_stops_what_the_process_left_behind() {
        let output = Command::new("sh")
            .args(["-c", "sleep 600 >/dev/null 2>&1 & echo $!"])
            .output_in_group()
            .expect("run sh");
        let left: u32 = String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .expect("a pid");
        assert!(!running(left));
    }
}
