#!/usr/bin/env python3
"""Run the shell and Python snippets of the documentation as written.

Usage: scripts/doc-snippets.py [--build DIR] [--exclude FILE]... [FILE...]

Reads README.md and docs/**/*.md (or the FILEs given) and runs every fenced
code block tagged

  ```sh, ```bash, ```shell   with bash (-e -o pipefail: a failing command
                              fails the snippet)
  ```console                  the lines starting with `$ ` (and their `\\`
                              continuation lines) with bash; the other lines
                              are the output shown and are not compared
  ```python, ```py            with the Python that runs this script (the one
                              with NumPy and PyTorch), also as `python3`

Untagged blocks and other languages (```mlir, ```c, ```cpp, ```text, ...)
are not run: a block that shows commands to run is tagged as one of the
above.

A block is not run when an HTML comment just above its opening fence says
why, invisible in the rendered page:

  <!-- snippet: not run: needs an NVIDIA GPU -->

The reason is mandatory; one starting with "slow:" marks a block that runs
but takes too long for the test suite. A setup comment prepares the
block's folder with shell commands (files the block reads as placeholders,
such as graph.mlir or x.npy) and may span lines:

  <!-- snippet: setup: cp examples/mlp.mlir graph.mlir -->

Both may stand above one block, each in a comment of its own.

Each block runs in a fresh temporary folder holding a symbolic link to every
top-level entry of the repository (examples/, scripts/, python/, ...) and a
folder `build` of links to the build's bin/, lib/, python/, examples/ and
cmake_install.cmake (never to the build folder itself: a block that
configures or builds `build` does so in the temporary folder; `cmake
--install build` installs the build, writing its install_manifest.txt), so
the relative paths of the snippets resolve while the files they write stay
in the temporary folder. The environment: the build's bin/ (rlx-opt,
rlx-run, rlx-run-aot) first on PATH behind a `python3` that is this script's
interpreter, PYTHONPATH=BUILD/python, RLX_ROOT=the repository, RLX_BUILD=the
build folder, a compile cache of the block's own (RLX_CACHE_DIR), Open MPI
allowed to run as root and to oversubscribe. A block taking more than
--timeout seconds fails.

`doc-snippets.py files GRAPH.mlir --params FILE.safetensors` writes random
data for a graph's inputs and parameters, for setup comments.

Prints one line per block, the output tail of each failing one, and a
summary; exits 1 when a block fails or a marker is malformed.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHELL_TAGS = {"sh", "bash", "shell"}
CONSOLE_TAGS = {"console"}
PYTHON_TAGS = {"python", "py"}
RUN_TAGS = SHELL_TAGS | CONSOLE_TAGS | PYTHON_TAGS

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
MARKER = re.compile(r"^<!--\s*snippet:\s*(not run|setup):(.*?)-->$", re.S)


class Snippet:

    def __init__(self, path, line, tag, code):
        self.path = path  # relative to the repository
        self.line = line  # of the opening fence, from 1
        self.tag = tag
        self.code = code
        self.skip = None  # the reason
        self.setup = None  # shell commands
        self.error = None  # a malformed marker

    @property
    def where(self):
        return "%s:%d" % (self.path, self.line)


def markers_above(lines, index):
    """The `<!-- snippet: ... -->` comments just above line `index`."""
    found = []
    end = index - 1
    while end >= 0 and lines[end].strip().endswith("-->"):
        start = end
        while start >= 0 and "<!--" not in lines[start]:
            start -= 1
        if start < 0:
            break
        text = textwrap.dedent("\n".join(lines[start:end + 1])).strip()
        if not text.startswith("<!--") or "snippet:" not in text:
            break
        found.append(text)
        end = start - 1
    return found


def parse(path, text):
    lines = text.split("\n")
    snippets = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, tag = m.group(1), m.group(2), m.group(3).lower()
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        if tag in RUN_TAGS:
            body = [l[len(indent):] if l.startswith(indent) else l.lstrip()
                    for l in lines[i + 1:j]]
            s = Snippet(path, i + 1, tag, "\n".join(body) + "\n")
            for marker in markers_above(lines, i):
                mm = MARKER.match(marker)
                value = mm.group(2).strip() if mm else ""
                if not mm or not value:
                    s.error = "malformed marker (a reason or commands " \
                        "must follow): " + marker
                elif mm.group(1) == "not run":
                    s.skip = " ".join(value.split())
                else:
                    s.setup = value + "\n"
            snippets.append(s)
        i = j + 1
    return snippets


def console_commands(code):
    """The commands of a console block: `$ ` lines with continuations."""
    commands = []
    lines = code.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("$ "):
            command = [lines[i][2:]]
            while command[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                command.append(lines[i])
            commands.append("\n".join(command))
        i += 1
    return "\n".join(commands) + "\n"


def prepare(folder, build, python):
    """Fill a block's folder: the links to the repository, the PATH shim."""
    for name in os.listdir(ROOT):
        if name == ".git" or name.startswith("build"):
            continue
        os.symlink(os.path.join(ROOT, name), os.path.join(folder, name))
    # build/ holds links to the build's outputs (and its install script),
    # not to the build folder: a snippet configuring or building build/
    # does so here.
    os.mkdir(os.path.join(folder, "build"))
    for name in ("bin", "lib", "python", "examples", "cmake_install.cmake"):
        if os.path.exists(os.path.join(build, name)):
            os.symlink(os.path.join(build, name),
                       os.path.join(folder, "build", name))
    shim = os.path.join(folder, ".snippet-bin")
    os.mkdir(shim)
    for name in ("python3", "python"):
        os.symlink(python, os.path.join(shim, name))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(
        [shim, os.path.join(build, "bin"), env.get("PATH", "")])
    env["PYTHONPATH"] = os.path.join(build, "python")
    env["RLX_ROOT"] = ROOT
    env["RLX_BUILD"] = build
    env["RLX_CACHE_DIR"] = os.path.join(folder, ".snippet-cache")
    # Open MPI's mpirun runs as root (CI's containers) and starts more
    # ranks than cores, as the lit tests' %mpirun does.
    env["OMPI_ALLOW_RUN_AS_ROOT"] = env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    return env


def run_one(s, build, python, timeout, keep):
    """Runs a snippet; returns (ok, seconds, message)."""
    folder = tempfile.mkdtemp(prefix="rlx-snippet-")
    start = time.time()
    try:
        env = prepare(folder, build, python)
        steps = []
        if s.setup:
            steps.append(("setup", ["bash", "-e", "-o", "pipefail", "-c",
                                    s.setup]))
        if s.tag in PYTHON_TAGS:
            with open(os.path.join(folder, ".snippet.py"), "w") as f:
                f.write(s.code)
            steps.append(("snippet", [python, ".snippet.py"]))
        else:
            code = console_commands(s.code) if s.tag in CONSOLE_TAGS \
                else s.code
            steps.append(("snippet", ["bash", "-e", "-o", "pipefail", "-c",
                                      code]))
        for what, argv in steps:
            left = timeout - (time.time() - start)
            proc = subprocess.Popen(argv, cwd=folder, env=env,
                                    stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT,
                                    start_new_session=True)
            try:
                out, _ = proc.communicate(timeout=max(left, 1))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, _ = proc.communicate()
                return False, time.time() - start, "%s timed out after " \
                    "%d s\n%s" % (what, timeout, tail(out))
            if proc.returncode != 0:
                return False, time.time() - start, "%s exited with %d\n%s" % (
                    what, proc.returncode, tail(out))
        return True, time.time() - start, ""
    finally:
        if keep:
            print("  (folder kept: %s)" % folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)


def tail(out, lines=20):
    text = out.decode(errors="replace").rstrip("\n").split("\n")
    return "\n".join("    " + l for l in text[-lines:])


ARG = re.compile(r"%[\w.]+\s*:\s*tensor<([^>]*)>\s*"
                 r"\{[^}]*rlx\.(input|param)\s*=\s*\"([^\"]+)\"")
DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16",
          "i64": "int64", "i32": "int32", "i8": "int8", "i1": "bool"}


def write_files(argv):
    """`files GRAPH.mlir [--params FILE] [--entry FUNC] [--prefix P]`: the
    placeholder files of a snippet, for setup comments: every rlx.input NAME
    of the function in PNAME.npy, its rlx.param arguments in FILE; floats
    uniform in [-1, 1), integers in [0, 4)."""
    import numpy as np
    ap = argparse.ArgumentParser(prog="doc-snippets.py files")
    ap.add_argument("graph")
    ap.add_argument("--params", help="write the rlx.param arguments here "
                    "(.safetensors)")
    ap.add_argument("--entry", help="the function (default: the first)")
    ap.add_argument("--prefix", default="",
                    help="input NAME goes to PREFIXNAME.npy")
    args = ap.parse_args(argv)
    text = open(args.graph).read()
    funcs = re.split(r"func\.func\s+(?:public\s+|private\s+)?@", text)[1:]
    if args.entry:
        funcs = [f for f in funcs if f.startswith(args.entry + "(")]
    signature = funcs[0].split("{", 1)[0] if "->" not in funcs[0] else \
        funcs[0].split("->", 1)[0]
    rng = np.random.default_rng(0)
    params = {}
    for m in ARG.finditer(signature):
        *dims, dtype = m.group(1).split("x")
        shape = [int(d) for d in dims]
        if dtype.startswith("f"):
            value = rng.uniform(-1, 1, shape).astype(DTYPES[dtype])
        else:  # small integers: labels and indices stay in range
            value = rng.integers(0, 4, shape).astype(DTYPES[dtype])
        if m.group(2) == "input":
            np.save(args.prefix + m.group(3) + ".npy", value)
        else:
            params[m.group(3)] = value
    if args.params:
        sys.path.insert(0, os.environ.get("PYTHONPATH", ""))
        from rlx.safetensors import write_safetensors
        write_safetensors(args.params, params)


def main():
    if sys.argv[1:2] == ["files"]:
        return write_files(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*",
                    help="Markdown files (default: README.md, docs/**/*.md)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="the build folder (default: build/)")
    ap.add_argument("--exclude", action="append", default=[],
                    metavar="FILE", help="a Markdown file not to run "
                    "(relative to the repository); repeatable")
    ap.add_argument("--only", metavar="FILE:LINE",
                    help="run only the block opening at this line")
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds per block (default 120)")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="blocks run at once (default 1)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary folders")
    args = ap.parse_args()

    build = os.path.abspath(args.build)
    files = args.files
    if not files:
        files = ["README.md"]
        for folder, dirs, names in os.walk(os.path.join(ROOT, "docs")):
            dirs.sort()
            files += sorted(os.path.relpath(os.path.join(folder, n), ROOT)
                            for n in names if n.endswith(".md"))
    excluded = {os.path.normpath(f) for f in args.exclude}

    snippets = []
    for f in files:
        rel = os.path.relpath(os.path.abspath(os.path.join(ROOT, f)), ROOT)
        if rel in excluded:
            print("EXCLUDED %s" % rel)
            continue
        with open(os.path.join(ROOT, rel)) as fh:
            snippets += parse(rel, fh.read())
    if args.only:
        snippets = [s for s in snippets if s.where == args.only]
        if not snippets:
            sys.exit("doc-snippets: no runnable block opens at " + args.only)

    failed, skipped, to_run, passed = [], [], [], []
    for s in snippets:
        if s.error:
            print("FAIL %s: %s" % (s.where, s.error))
            failed.append(s)
        elif s.skip:
            skipped.append(s)
        else:
            to_run.append(s)

    python = os.path.realpath(sys.executable)
    total = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(
            lambda s: run_one(s, build, python, args.timeout, args.keep),
            to_run)
        for s, (ok, seconds, message) in zip(to_run, results):
            if ok:
                print("PASS %s (%s, %.1f s)" % (s.where, s.tag, seconds))
                passed.append(s)
            else:
                print("FAIL %s (%s, %.1f s): %s" % (s.where, s.tag, seconds,
                                                     message))
                failed.append(s)
            sys.stdout.flush()

    for s in skipped:
        print("SKIP %s: %s" % (s.where, s.skip))
    slow = [s for s in skipped if s.skip.startswith("slow:")]
    print("doc-snippets: ran %d (%d passed), %d failed, skipped %d "
          "(%d slow), %d files excluded, in %.0f s" %
          (len(to_run), len(passed), len(failed), len(skipped),
           len(slow), len(excluded), time.time() - total))
    if failed:
        print("failed: " + " ".join(s.where for s in failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
