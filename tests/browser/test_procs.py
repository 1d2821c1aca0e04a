"""The tree scanner the renderer watchdog looks with: it finds what a full read of ``/proc``
finds, as processes start, end and are re-parented under and around it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from browser.farm.procs import ProcessInfo, TreeScanner, process_tree
from browser.farm.watchdog import is_renderer

# A parent that starts a child whenever it reads a line, and kills its children on "kill".
PARENT = """
import subprocess, sys
children = []
for line in sys.stdin:
    if line.strip() == "kill":
        for child in children:
            child.kill()
            child.wait()
        children.clear()
    else:
        children.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]))
    print(" ".join(str(child.pid) for child in children), flush=True)
"""


def tell(parent: subprocess.Popen[str], line: str) -> set[int]:
    """Send ``line``; the pids of the parent's children once it has answered."""
    assert parent.stdin is not None and parent.stdout is not None
    parent.stdin.write(line + "\n")
    parent.stdin.flush()
    return {int(pid) for pid in parent.stdout.readline().split()}


def living(infos: list[ProcessInfo]) -> set[int]:
    return {info.pid for info in infos if info.state != "Z"}


def test_the_scanner_sees_what_a_full_read_sees() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as parent:
        scanner = TreeScanner(full_scan=3600)
        assert living(scanner.trees([parent.pid])) == {parent.pid}
        children = tell(parent, "start")
        # A child started after the first look, of a parent already known: found without a
        # full read.
        assert living(scanner.trees([parent.pid])) == {parent.pid} | children
        children = tell(parent, "start")
        assert len(children) == 2
        seen = scanner.trees([parent.pid])
        assert living(seen) == living(process_tree(parent.pid)) == {parent.pid} | children
        assert all(info.ppid == parent.pid for info in seen if info.pid != parent.pid)
        tell(parent, "kill")
        assert living(scanner.trees([parent.pid])) == {parent.pid}
        # A root that is gone has no tree; another process is never taken into one.
        assert scanner.trees([999_999_999]) == []
        assert living(scanner.trees([parent.pid, 999_999_999])) == {parent.pid}
        parent.kill()
        parent.wait(5)
        assert scanner.trees([parent.pid]) == []


def test_an_orphan_leaves_the_tree() -> None:
    # The middle process starts a grandchild and exits: the grandchild is re-parented away.
    script = (
        "import subprocess, sys; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print(p.pid, flush=True); sys.stdin.readline()"
    )
    with subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, sys; m = subprocess.Popen([sys.executable, '-c', {script!r}], "
            "stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True); "
            "print(m.stdout.readline().strip(), flush=True); sys.stdin.readline(); "
            "m.stdin.write('x\\n'); m.stdin.flush(); m.wait(); print('done', flush=True); "
            "sys.stdin.readline()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as top:
        assert top.stdin is not None and top.stdout is not None
        grandchild = int(top.stdout.readline())
        scanner = TreeScanner(full_scan=3600)
        assert grandchild in living(scanner.trees([top.pid]))
        top.stdin.write("go\n")
        top.stdin.flush()
        assert top.stdout.readline().strip() == "done"
        deadline = time.monotonic() + 5
        while grandchild in living(process_tree(top.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert living(scanner.trees([top.pid])) == living(process_tree(top.pid))
        assert grandchild not in living(scanner.trees([top.pid]))
        os.kill(grandchild, signal.SIGKILL)
        top.kill()


def _sleeper(flag: str) -> subprocess.Popen[bytes]:
    """A process whose command line carries ``flag``, as Chromium's processes carry theirs."""
    return subprocess.Popen(["/bin/sh", "-c", "sleep 30", flag])


def test_a_process_still_reading_as_the_zygote_is_read_again() -> None:
    """A renderer forked from the zygote reads as the zygote until it renames itself: the
    watchdog must not remember it as no renderer, or it would never kill it."""
    known: dict[int, bool] = {}
    zygote, renderer, gpu = (
        _sleeper(flag) for flag in ("--type=zygote", "--type=renderer", "--type=gpu-process")
    )
    try:
        time.sleep(0.2)  # each has exec'd the shell with its command line
        assert not is_renderer(zygote.pid, known) and zygote.pid not in known
        assert is_renderer(renderer.pid, known) and known[renderer.pid]
        assert not is_renderer(gpu.pid, known) and known[gpu.pid] is False
    finally:
        for process in (zygote, renderer, gpu):
            process.kill()
            process.wait()
