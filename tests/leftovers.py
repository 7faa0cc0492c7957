"""Runs a command (the test suite) and fails when a process it started outlives it.

This process becomes a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): every process started
under the command that loses its parent (a test binary that ended, an npm wrapper that was
killed, a daemon that forked away) is re-parented to it rather than to init. Once the command
has exited, whatever still runs below this process was started by the command and left behind.
It gets at most 10 s to end (a test binary's process watchdog stops its groups after the binary
exits); then each one left is named, killed, and the exit status is 1 (or the command's own
failure status). A process runs while any of its threads does: a process whose main thread has
exited (state `Z` in /proc/PID/stat) while another thread still runs is left behind too.

When it cannot become a child subreaper (not Linux, or prctl refused), nothing left behind
could be seen: with CI=true that fails at once (exit status 1, the command not run); otherwise
it warns and runs the command unchecked.

Usage: python3 tests/leftovers.py COMMAND [ARG...]
Environment: LEFTOVERS_GRACE_SECONDS, the time left processes get to end (default 10).
"""

import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
GRACE_SECONDS = float(os.environ.get("LEFTOVERS_GRACE_SECONDS", "10"))


def stat(path):
    """(state, ppid) from a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat, or None when it
    is gone."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rfind(")") + 1 :].split()
    return fields[0], int(fields[1])


def runs(pid):
    """Whether a thread of process `pid` runs: not the main thread's state alone, which is `Z`
    once the main thread has exited while the others go on."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        threads = []
    states = [stat(f"/proc/{pid}/task/{tid}/stat") for tid in threads]
    if not threads:
        states = [stat(f"/proc/{pid}/stat")]
    return any(found is not None and found[0] not in ("Z", "X") for found in states)


def descendants():
    """The running processes below this one (zombies, exited but not reaped, are not)."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            found = stat(f"/proc/{name}/stat")
            if found is not None:
                children.setdefault(found[1], []).append(int(name))
    below, queue = [], [os.getpid()]
    while queue:
        for pid in children.get(queue.pop(), []):
            queue.append(pid)
            if runs(pid):
                below.append(pid)
    return below


def reap():
    """Collects the exit of every child that has ended (orphans re-parented here included)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        if os.environ.get("CI") == "true":
            print("error: leftovers: cannot become a child subreaper, so processes the tests "
                  "leave behind cannot be seen; CI=true: failing", file=sys.stderr)
            sys.exit(1)
        print("leftovers: cannot become a subreaper; processes left behind are not checked",
              file=sys.stderr)
    command = subprocess.Popen(sys.argv[1:])
    while True:
        try:
            status = command.wait()
            break
        except KeyboardInterrupt:
            continue  # Ctrl-C reached the command too: wait for it, then check
    started = time.monotonic()
    while True:
        reap()
        left = descendants()
        if not left or time.monotonic() - started > GRACE_SECONDS:
            break
        time.sleep(0.2)
    if left:
        print(f"\nerror: the tests left {len(left)} process(es) running "
              "(start them with contact_e2e::process::Grouped):", file=sys.stderr, flush=True)
        subprocess.run(["ps", "-o", "pid,ppid,pgid,etime,args", "-p", ",".join(map(str, left))],
                       stdout=sys.stderr, check=False)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.2)
        reap()
        status = status or 1
    sys.exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
