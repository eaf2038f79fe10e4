#!/usr/bin/python3
"""Which CPU execution test runs which rlx op, in docs/ops.md.

  scripts/op-coverage.py [--build build]
      runs every Python execution test of test/Execution/CPU (as its .test
      file's RUN line does, with RLX_OP_COVERAGE set, so that
      test/Execution/lib/rlxcheck.py records the ops of each graph it runs)
      and rewrites the "CPU" column of docs/ops.md: the tests that ran the
      op on the CPU and compared it with PyTorch/NumPy, or why none does.
      Takes as long as those tests (several minutes).
  scripts/op-coverage.py --check
      checks docs/ops.md without running anything: every op has a CPU cell,
      and every test it names exists (test/docs/ops-coverage.test).
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "test", "Execution", "CPU")
OPS_MD = os.path.join(ROOT, "docs", "ops.md")
HEADER = "| RLX variant | rlx op | reference | CPU: execution tests |"
RULE = "|---|---|---|---|"
# Ops no execution test runs as themselves, and why.
NOT_RUN = {
    "rlx.yield": "region terminator (every region test)",
}
# The collectives run under mpirun, in test/Execution/Distributed.
for _op in ("all_reduce", "all_gather", "reduce_scatter", "all_to_all",
            "broadcast", "reduce_to_root"):
    NOT_RUN["rlx." + _op] = (
        "runs under mpirun (`test/Execution/Distributed/collectives.py`, "
        "gradients in `test/Execution/Distributed/autodiff.py`; "
        "[distributed.md](distributed.md))")
SHOWN = 4  # tests named per op; the rest are counted


def run_lines(test_file):
    for line in open(test_file):
        match = re.match(r"\s*RUN:\s*(%python %S/.*\.py.*)$", line)
        if match:
            yield match.group(1)


def measure(build):
    coverage = {}
    tmp = tempfile.mkdtemp(prefix="rlx-op-coverage-")
    record = os.path.join(tmp, "ops.tsv")
    env = dict(os.environ, RLX_OP_COVERAGE=record,
               PATH=os.path.join(build, "bin") + os.pathsep +
               os.environ.get("PATH", ""))
    for name in sorted(os.listdir(TESTS)):
        if not name.endswith(".test"):
            continue
        for line in run_lines(os.path.join(TESTS, name)):
            command = (line.replace("%python", sys.executable)
                       .replace("%S", TESTS)
                       .replace("%t", os.path.join(tmp, name))
                       .replace("%rlx_src_root", ROOT)
                       .replace("%rlx_libs_dir", os.path.join(build, "lib")))
            print(f"op-coverage: {name}", flush=True)
            proc = subprocess.run(shlex.split(command), env=env, cwd=tmp,
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"op-coverage: {name} failed:\n{proc.stdout[-2000:]}"
                         f"{proc.stderr[-2000:]}")
    for line in open(record):
        test, _, ops = line.rstrip("\n").partition("\t")
        for op in ops.split():
            coverage.setdefault(op, set()).add(test)
    # Tests that run graphs without Checker.run (their own rlx-run calls)
    # count for the ops their source names.
    for name in os.listdir(TESTS):
        if name.endswith(".py"):
            source = open(os.path.join(TESTS, name)).read()
            for op in set(re.findall(r"rlx\.[a-z0-9_]+(?![a-z0-9_{])", source)):
                coverage.setdefault(op, set()).add(name[:-3])
    return coverage


def cell(op, tests):
    if op in NOT_RUN:
        return NOT_RUN[op]
    if not tests:
        return "**none**"
    names = sorted(tests)
    shown = ", ".join(f"`{t}.py`" for t in names[:SHOWN])
    more = len(names) - SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def rows(text):
    """(index, cells) of each op row of the table."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"`rlx\.[a-z0-9_]+`", cells[1]):
            yield i, cells


def rewrite(coverage):
    text = open(OPS_MD).read()
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("| RLX variant |"):
            lines[i], lines[i + 1] = HEADER, RULE
    for i, cells in rows(text):
        op = cells[1].strip("`")
        lines[i] = "| " + " | ".join(cells[:3] + [cell(op, coverage.get(op))]) + " |"
    with open(OPS_MD, "w") as f:
        f.write("\n".join(lines))
    missing = [op for op in (c[1].strip("`") for _, c in rows(text))
               if op not in NOT_RUN and not coverage.get(op)]
    print(f"op-coverage: docs/ops.md updated; ops no CPU test runs: "
          f"{' '.join(missing) or 'none'}")


def check():
    text = open(OPS_MD).read()
    errors = []
    if HEADER not in text:
        errors.append("docs/ops.md: the table has no CPU column")
    for _, cells in rows(text):
        op = cells[1].strip("`")
        if len(cells) < 4 or not cells[3]:
            errors.append(f"{op}: no CPU cell")
            continue
        for test in re.findall(r"`([a-z0-9_-]+)\.py`", cells[3]):
            if not os.path.exists(os.path.join(TESTS, test + ".py")):
                errors.append(f"{op}: names {test}.py, which does not exist")
    for error in errors:
        print(f"op-coverage: {error}")
    sys.exit(1 if errors else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.check:
        check()
    rewrite(measure(os.path.abspath(args.build)))


if __name__ == "__main__":
    main()
