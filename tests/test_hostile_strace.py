"""Issue 22's system-call check: on a tree with a planted git filter, hooks, fsmonitor, pager, config include, alias
and a `torch.py`, with the same planted in the user's git configuration, `analyze`, `analyze --changed-since`,
`port`, `port -o`, `port --apply` and `probe` are run under `strace -f -e trace=execve,openat`. No program but the
tool's own Python starts, no sentinel appears, and nothing outside the tree is opened except Python's and the
libraries' own files, the tool's install, the system's shared libraries and what the command was told to write.
Skipped where strace is not installed or may not trace (a container without ptrace)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from dulwich import porcelain

from tests.hostile_helpers import MODULE, ROOT

IDENTITY = b"Test <test@example.com>"
TRAIN = "import torch\n\n\ndef main():\n    torch.cuda.synchronize()\n\n\nif __name__ == \"__main__\":\n    main()\n"
# `PID openat(AT_FDCWD</cwd>, "path", ...) = 3</path>` with -y; execve has no folder argument
OPENED = re.compile(r'^(?P<pid>\d+)\s+(?P<call>openat|open|execve)\((?:(?:AT_FDCWD|\d+)(?:<(?P<dir>[^>]*)>)?, )?'
                    r'"(?P<path>(?:[^"\\]|\\.)*)"(?P<rest>.*)$')


def _strace_usable() -> bool:
    if shutil.which("strace") is None:
        return False
    done = subprocess.run(["strace", "-f", "-o", os.devnull, "true"], capture_output=True)
    return done.returncode == 0


pytestmark = pytest.mark.skipif(not _strace_usable(), reason="strace is not installed or may not trace here")


def hostile_tree(base: Path) -> tuple[Path, Path, Path, Path]:
    """The tree, the sentinel every planted program would write, the outside include file, and a HOME whose
    .gitconfig plants the same."""
    tree, home, outside = base / "tree", base / "home", base / "outside"
    for folder in (tree / "pkg", home, outside):
        folder.mkdir(parents=True)
    sentinel = base / "sentinel"
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "pkg" / "train.py").write_text(TRAIN)
    porcelain.init(str(tree)).close()
    porcelain.add(str(tree), paths=[str(tree / "pkg" / "__init__.py"), str(tree / "pkg" / "train.py")])
    porcelain.commit(str(tree), message=b"first", author=IDENTITY, committer=IDENTITY)
    command = f"sh -c 'echo ran >> {sentinel}; cat'"
    include = outside / "include.cfg"
    include.write_text(f"[filter \"evil\"]\n\tclean = {command}\n")
    plant = (f'[filter "evil"]\n\tclean = {command}\n\tsmudge = {command}\n\tprocess = {command}\n\trequired = true\n'
             f'[diff "evil"]\n\ttextconv = {command}\n[core]\n\tfsmonitor = {command}\n\tpager = {command}\n'
             f'\thooksPath = {outside}\n\tsshCommand = {command}\n[alias]\n\tstatus = !{command}\n'
             f'[include]\n\tpath = {include}\n[includeIf "gitdir:/"]\n\tpath = {include}\n')
    with open(tree / ".git" / "config", "a", encoding="utf-8") as config:
        config.write(plant)
    (home / ".gitconfig").write_text(plant)
    (tree / ".gitattributes").write_text("* filter=evil diff=evil\n")
    for folder in (tree / ".git" / "hooks", outside):
        folder.mkdir(exist_ok=True)
        for hook in ("pre-commit", "post-checkout", "post-index-change", "fsmonitor-watchman"):
            (folder / hook).write_text(f"#!/bin/sh\necho {hook} >> {sentinel}\n")
            (folder / hook).chmod(0o755)
    (tree / "torch.py").write_text(f"open({str(sentinel)!r}, 'a').write('torch.py imported')\n")
    return tree, sentinel, outside, home


def allowed_prefixes(extra: list[Path]) -> tuple[str, ...]:
    """Python's and the libraries' own files, the tool's install, the system's shared libraries and settings
    that the C library and Python read at start (locale, time zone, CPU count), and the folders named for output."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, str(ROOT), os.path.dirname(sys.executable),
             *(sysconfig.get_paths().values()), *map(str, extra)}
    system = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/", "/etc/ld.so", "/usr/share/zoneinfo/",
              "/etc/localtime", "/usr/lib/locale/", "/usr/share/locale/", "/proc/", "/sys/devices/system/cpu/", "/sys/fs/cgroup/", "/dev/null",
              "/dev/urandom", "/dev/tty", "/etc/os-release", "/usr/lib/os-release", "/etc/nsswitch.conf", "/etc/passwd")
    return tuple(sorted({os.path.realpath(p) + os.sep for p in paths if p} | {p for p in system}))


def _unescape(text: str) -> str:
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")


def trace(command: list[str], cwd: Path, env: dict[str, str], log: Path) -> tuple[int, list[tuple[str, str]]]:
    """The exit code and every (call, absolute path): execve, and each open that succeeded ("open-failed" for one
    that did not: a name looked up and not there, nothing read)."""
    done = subprocess.run(["strace", "-f", "-y", "-qq", "-s", "4096", "-e", "trace=execve,openat,open", "-o", str(log),
                           *command], cwd=cwd, env=env, capture_output=True, timeout=300)
    calls = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        match = OPENED.match(line)
        if match is None:
            continue
        path = _unescape(match["path"])
        if not path.startswith("/"):
            path = os.path.join(_unescape(match["dir"]) if match["dir"] else str(cwd), path)
        call = match["call"]
        if call != "execve":
            call = "open-failed" if "= -1" in match["rest"] else "open"
        calls.append((call, os.path.normpath(path)))
    assert any(call == "open" for call, _ in calls), "no open seen: the trace was not parsed"
    return done.returncode, calls


def test_no_planted_program_runs_and_nothing_outside_the_tree_is_opened(tmp_path):
    tree, sentinel, outside, home = hostile_tree(tmp_path)
    out, cache = tmp_path / "out", tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "XDG_CONFIG_HOME": str(home),
           "XDG_CACHE_HOME": str(cache), "GIT_CONFIG_GLOBAL": str(home / ".gitconfig")}
    (tree / "pkg" / "train.py").write_text(TRAIN + "# edited: the dirty check must look at the content\n")
    commands = {
        "analyze": ["analyze", ".", "--jobs", "1"],
        "analyze --changed-since": ["analyze", ".", "--jobs", "1", "--changed-since", "HEAD"],
        "port": ["port", "."],
        "port -o": ["port", ".", "-o", str(out / "x.patch")],
        "port --apply (dirty: refused)": ["port", ".", "--apply"],
        "probe list": ["probe", "list"],
        "probe env": ["probe", "env"],
    }
    allowed = allowed_prefixes([out, cache])
    tree_prefix = os.path.realpath(tree) + os.sep
    python = {os.path.realpath(sys.executable)}
    report = []
    for name, arguments in commands.items():
        code, calls = trace([*MODULE, *arguments], tree, env, tmp_path / f"{name.split()[0]}.strace")
        programs = {path for call, path in calls if call == "execve"}
        strangers = sorted({path for call, path in calls if call == "open"
                            and not (path + os.sep).startswith((tree_prefix, *allowed))})
        strangers += sorted({path for call, path in calls if call == "open-failed"
                             and path.startswith((str(outside), str(home), str(sentinel)))})
        report.append((name, code, programs, strangers))
        assert {os.path.realpath(p) for p in programs} <= python | {os.path.realpath(sys.executable)}, (name, programs)
        assert not strangers, (name, strangers)
        assert not sentinel.exists(), (name, sentinel.read_text())
    codes = {name: code for name, code, _, _ in report}
    assert codes["port --apply (dirty: refused)"] == 2 and codes["analyze"] == 0 and codes["port -o"] == 0
    # and a clean tree (the committed bytes back; committing with dulwich here would run the planted filter in this
    # test's own process): port --apply compares the bytes and writes
    (tree / "pkg" / "train.py").write_text(TRAIN)
    code, calls = trace([*MODULE, "port", ".", "--apply"], tree, env, tmp_path / "apply.strace")
    assert code == 0 and "# ascend: port" in (tree / "pkg" / "train.py").read_text()  # (torch.py is the tree's own)
    assert {os.path.realpath(p) for call, p in calls if call == "execve"} <= python
    assert not [p for call, p in calls if call == "open" and not (p + os.sep).startswith(tree_prefix)
                and not (p + os.sep).startswith(allowed)]
    assert not sentinel.exists()
