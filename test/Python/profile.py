# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Graph.profile: the time per op of a graph compiled with profile=True,
largest first, and its timeline as a Chrome trace; errors for a graph
compiled without timers. Usage: profile.py SCRATCH_DIR GRAPH.mlir"""

import json
import os
import sys

import rlx

scratch, graph_path = sys.argv[1], sys.argv[2]

graph = rlx.compile(graph_path, profile=True, cache=False)
ops = graph.profile(5, warmup=1)
assert ops and all(isinstance(op, rlx.OpTime) for op in ops), ops
assert all(op.calls == 5 and op.total_ms >= 0 for op in ops), ops
assert [op.total_ms for op in ops] == sorted(
    (op.total_ms for op in ops), reverse=True), ops
print("ops:", len(ops), "calls each:", ops[0].calls)

trace_path = os.path.join(scratch, "trace.json")
traced = graph.profile(3, warmup=1, trace=trace_path)
with open(trace_path) as f:
    trace = json.load(f)
calls = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
assert len(calls) == 3 * len(traced), (len(calls), len(traced))
# An event is named by the op, its label (`rlx.matmul @ file:line:col`) is
# in its arguments.
assert {e["args"]["label"] for e in calls} == {op.op for op in traced}
print("trace events:", len(calls))

plain = rlx.compile(graph_path, cache=False)
try:
    plain.profile(2)
except rlx.RLXError as error:
    print("error:", error)
