"""Reads a Chrome trace that rlx-run --trace wrote and prints what it holds.

Checks the parts of the Trace Event Format viewers rely on: a traceEvents
list of complete ("X") events with a name, a start and a duration in
microseconds that are numbers and not negative, and, for each op, calls
that do not overlap. Prints the number of events and each op's calls.

Usage: check_trace.py TRACE.json
"""

import collections
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    calls = collections.Counter()
    last_end = None
    for event in sorted(events, key=lambda e: e["ts"]):
        assert isinstance(event["ts"], (int, float)) and event["ts"] >= 0, event
        assert isinstance(event["dur"], (int, float)) and event["dur"] >= 0, event
        assert event["args"]["label"].startswith(event["name"]), event
        # The timed ops run one after another on one thread.
        if last_end is not None:
            assert event["ts"] >= last_end - 1e-3, (event, last_end)
        last_end = event["ts"] + event["dur"]
        calls[event["name"]] += 1
    names = [e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M"]
    print("trace: %d events (%s)" % (len(events), ", ".join(names)))
    for name, count in sorted(calls.items()):
        print("%s: %d calls" % (name, count))


if __name__ == "__main__":
    main()
