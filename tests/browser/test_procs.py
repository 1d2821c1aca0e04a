"""The tree scanner the renderer watchdog looks with: it finds what a full read of ``/proc``
finds, as processes start, end and are re-parented under and around it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from browser.farm.procs import ProcessInfo, TreeScanner, process_tree

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
