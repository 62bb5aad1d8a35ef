#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Schema check of a Chrome/Perfetto trace-event JSON file (spoor timeline).

usage: check_trace_events.py FILE [--names]
       check_trace_events.py --self-test

FILE must hold the JSON object format: {"traceEvents": [...], ...}.  Every
event has a name, a known ph, an integer pid and tid, and a numeric ts
(metadata "M" events excepted); on every track (pid, tid) ts never decreases
in file order, "B"/"E" nest with matching names and none is left open at the
end; instants have a scope "s" (g, p or t); "X" has a dur >= 0.

Prints one line of counts on success (exit 0); with --names, then one line
"B COUNT NAME" per slice name and "i COUNT NAME" per instant name.  The
first violation is printed with the event's index and the file exits 1.
--self-test runs the check on good and bad inputs made here (exit 0 when
each verdict is the expected one).
"""
import collections
import json
import numbers
import os
import sys
import tempfile

PHASES = set("BEXiIMCbensfPONDtRcv") | {"(", ")"}


class Bad(Exception):
    pass


def is_num(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def check(doc):
    """Returns the counts of @doc, or raises Bad naming the first violation."""
    if not isinstance(doc, dict):
        raise Bad("the top level is not an object (the JSON object format)")
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        raise Bad("no traceEvents array")
    if "displayTimeUnit" in doc and doc["displayTimeUnit"] not in ("ms", "ns"):
        raise Bad("displayTimeUnit is neither ms nor ns")
    stacks = collections.defaultdict(list)
    last_ts = {}
    counts = collections.Counter()
    names = collections.Counter()
    for i, ev in enumerate(events):
        where = "event #%d" % i
        if not isinstance(ev, dict):
            raise Bad("%s is not an object" % where)
        where += " %s" % json.dumps(ev, ensure_ascii=False)[:200]
        for key in ("name", "ph", "pid", "tid"):
            if key not in ev:
                raise Bad("%s: no %s" % (where, key))
        if not isinstance(ev["name"], str):
            raise Bad("%s: name is not a string" % where)
        ph = ev["ph"]
        if ph not in PHASES:
            raise Bad("%s: unknown ph %r" % (where, ph))
        for key in ("pid", "tid"):
            if not isinstance(ev[key], int) or isinstance(ev[key], bool):
                raise Bad("%s: %s is not an integer" % (where, key))
        counts[ph] += 1
        if ph == "M":
            if not isinstance(ev.get("args"), dict):
                raise Bad("%s: metadata without args" % where)
            continue
        ts = ev.get("ts")
        if not is_num(ts):
            raise Bad("%s: ts missing or not a number" % where)
        track = (ev["pid"], ev["tid"])
        if track in last_ts and ts < last_ts[track]:
            raise Bad("%s: ts %s before the track's previous ts %s"
                      % (where, ts, last_ts[track]))
        last_ts[track] = ts
        if ph == "B":
            stacks[track].append((ev["name"], i))
            names[("B", ev["name"])] += 1
        elif ph == "E":
            if not stacks[track]:
                raise Bad("%s: E without a B open on track pid %d tid %d"
                          % (where, track[0], track[1]))
            name, _ = stacks[track].pop()
            if ev["name"] != name:
                raise Bad("%s: E named %r closes B named %r"
                          % (where, ev["name"], name))
        elif ph in ("i", "I"):
            if ev.get("s", "t") not in ("g", "p", "t") or "s" not in ev:
                raise Bad("%s: instant without a scope s (g, p or t)" % where)
            names[("i", ev["name"])] += 1
        elif ph == "X":
            if not is_num(ev.get("dur")) or ev["dur"] < 0:
                raise Bad("%s: X without a dur >= 0" % where)
    for track, stack in sorted(stacks.items()):
        if stack:
            name, i = stack[-1]
            raise Bad("%d slice(s) left open on track pid %d tid %d, the last B %r "
                      "(event #%d)" % (len(stack), track[0], track[1], name, i))
    return counts, names, len(last_ts)


def run(path, show_names):
    """Checks file @path; returns the exit status."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("check_trace_events: %s: not valid JSON: %s" % (path, e))
        return 1
    try:
        counts, names, tracks = check(doc)
    except Bad as e:
        print("check_trace_events: %s: %s" % (path, e))
        return 1
    print("check_trace_events: %s: ok: %d events, %d slices, %d instants, %d metadata, "
          "%d tracks" % (path, sum(counts.values()), counts["B"],
                         counts["i"] + counts["I"], counts["M"], tracks))
    if show_names:
        for (ph, name), n in sorted(names.items()):
            print("%s %d %s" % (ph, n, name))
    return 0


def self_test():
    """Runs the check on good and bad documents; returns the exit status."""
    m = {"name": "thread_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "hart 0"}}

    def b(name, ts, tid=0):
        return {"name": name, "ph": "B", "pid": 1, "tid": tid, "ts": ts}

    def e(name, ts, tid=0):
        return {"name": name, "ph": "E", "pid": 1, "tid": tid, "ts": ts}

    def i(ts, s="t"):
        ev = {"name": "exception 2", "ph": "i", "pid": 1, "tid": 0, "ts": ts}
        if s:
            ev["s"] = s
        return ev

    def doc(*evs):
        return {"traceEvents": list(evs), "displayTimeUnit": "ns"}

    cases = [
        ("good: nested, zero-length, two tracks", True,
         doc(m, b("main", 0), b("f", 3), e("f", 3), i(3), b("g", 1, 1), e("main", 9),
             e("g", 2, 1))),
        ("good: empty", True, doc()),
        ("bad: an array, not the object format", False, [b("f", 0), e("f", 1)]),
        ("bad: no traceEvents", False, {"events": []}),
        ("bad: E without B", False, doc(e("f", 1))),
        ("bad: E on another track than its B", False, doc(b("f", 0), e("f", 1, 1))),
        ("bad: B left open", False, doc(b("main", 0), b("f", 1), e("f", 2))),
        ("bad: E's name is not its B's", False, doc(b("main", 0), b("f", 1), e("main", 2),
                                                    e("f", 3))),
        ("bad: decreasing ts", False, doc(b("main", 5), e("main", 4))),
        ("bad: decreasing ts through an instant", False, doc(i(5), b("f", 4), e("f", 6))),
        ("bad: ts not a number", False, doc(b("f", "0"), e("f", 1))),
        ("bad: no ts", False, doc({"name": "f", "ph": "B", "pid": 1, "tid": 0})),
        ("bad: unknown ph", False, doc({"name": "f", "ph": "Q", "pid": 1, "tid": 0, "ts": 0})),
        ("bad: no name", False, doc({"ph": "i", "s": "t", "pid": 1, "tid": 0, "ts": 0})),
        ("bad: no tid", False, doc({"name": "f", "ph": "i", "s": "t", "pid": 1, "ts": 0})),
        ("bad: pid a string", False, doc({"name": "f", "ph": "i", "s": "t", "pid": "1",
                                          "tid": 0, "ts": 0})),
        ("bad: instant without s", False, doc(i(0, None))),
        ("bad: instant with a bad s", False, doc(i(0, "x"))),
        ("bad: metadata without args", False, doc({"name": "process_name", "ph": "M",
                                                   "pid": 1, "tid": 0})),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for what, good, d in cases:
            path = os.path.join(tmp, "t.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(d, f)
            got = run(path, False) == 0
            if got != good:
                failed += 1
                print("FAIL: %s: %s" % (what, "rejected" if good else "accepted"))
        path = os.path.join(tmp, "cut.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write('{"traceEvents":[{"name":"f","ph":"B","pid":1,"tid":0,"ts":0}')
        if run(path, False) == 0:
            failed += 1
            print("FAIL: bad: a file cut short: accepted")
        if run(os.path.join(tmp, "missing.json"), False) == 0:
            failed += 1
            print("FAIL: bad: a missing file: accepted")
    total = len(cases) + 2
    print("%d passed, %d failed" % (total - failed, failed))
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) in (2, 3) and (len(argv) == 2 or argv[2] == "--names"):
        return run(argv[1], len(argv) == 3)
    print("usage: check_trace_events.py FILE [--names] | --self-test", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
