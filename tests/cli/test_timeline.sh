#!/bin/bash
# spoor timeline on the virtual board's programs, rv32 and rv64: the JSON
# passes the trace-event schema check (every B has its E, ts monotonic per
# track); the slices entered by a call, per function, are the calls the ISS
# retired (objdump's call instructions followed through the ISS's log); the
# trap and interrupt instants are the ISS's E and I lines; --min-insns keeps
# exactly the slices that last long enough; --max-events stops early and
# closes the slices; a failed write exits 2, a failed run leaves the -o
# file as it was.
# usage: test_timeline.sh SPOOR ISS_RUN CHECKER OBJDUMP PROGRAMS_DIR BOARDS_DIR
set -u
spoor=$1 iss_run=$2 checker=$3 objdump=$4 progs=$5 boards=$6
. "$(dirname "$0")/lib.sh"

# compare.py ISS_LOG ELF JSON: calls per function and trap counts, ISS vs timeline.
cat >"$tmp/compare.py" <<'EOF'
import collections, json, re, subprocess, sys
objdump, iss_log, elf, js = sys.argv[1:5]
dis = subprocess.run([objdump, "-d", elf], capture_output=True, text=True, check=True).stdout
calls = set()
for line in dis.splitlines():
    m = re.match(r"\s*([0-9a-f]+):\s+[0-9a-f]+\s+(\S+)\s*(\S*)", line)
    if not m:
        continue
    addr, mn, ops = int(m.group(1), 16), m.group(2), m.group(3)
    if mn in ("jal", "jalr", "c.jal", "c.jalr"):
        rd = ops.split(",")[0] if "," in ops else "ra"	# "jal f", "jalr a5": rd ra
        if rd in ("ra", "t0", "x1", "x5"):
            calls.add(addr)
syms = []
for line in subprocess.run([objdump, "-t", elf], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    f = line.split()
    if len(f) >= 6 and " F " in line and f[-3].startswith(".text"):
        syms.append((int(f[0], 16), int(f[-2], 16), f[-1]))
syms.sort()
starts = collections.Counter(a for a, _, _ in syms)
def func(pc):
    for a, size, name in syms:
        if a <= pc < a + max(size, 1) and starts[a] == 1:
            return name
    return None
want = collections.Counter()
traps = 0
pending = False
started = False
with open(iss_log) as f:
    for line in f:
        w = line.split()
        if not w:
            continue
        if not started:
            if w[0] == "R" and int(w[1], 16) == 0x80000000:
                started = True
            else:
                continue
        if w[0] in ("E", "I"):
            traps += 1
        if w[0] in ("R", "E", "I") and pending:
            name = func(int(w[1], 16))
            if name:
                want[name] += 1
            pending = False
        if w[0] == "R" and int(w[1], 16) in calls:
            pending = True
doc = json.load(open(js))
got = collections.Counter(e["name"] for e in doc["traceEvents"]
                          if e["ph"] == "B" and e.get("cat") == "call")
got_traps = sum(1 for e in doc["traceEvents"]
                if e["ph"] == "i" and e.get("cat") in ("exception", "interrupt"))
bad = [(n, want[n], got[n]) for n in sorted(set(want) | set(got))
       if n in want and want[n] != got[n]]
if bad:
    print("calls differ (function, ISS, timeline): %s" % bad[:8])
if traps != got_traps:
    print("traps differ: ISS %d E+I lines, timeline %d instants" % (traps, got_traps))
if not want:
    print("no calls in the ISS log")
print("ok %d functions, %d calls, %d traps" % (len(want), sum(want.values()), traps),
      file=sys.stderr)
EOF

# slices.py JSON: the slices as "tid name B-ts E-ts" lines, and their
# durations' minimum; slices.py FULL FILTERED N: FILTERED holds every slice
# of FULL lasting N or more, and only slices of FULL.
cat >"$tmp/slices.py" <<'EOF'
import collections, json, sys
def slices(path):
    out, stacks = collections.Counter(), collections.defaultdict(list)
    for e in json.load(open(path))["traceEvents"]:
        if e["ph"] == "B":
            stacks[e["tid"]].append(e)
        elif e["ph"] == "E":
            b = stacks[e["tid"]].pop()
            out[(e["tid"], b["name"], b["ts"], e["ts"])] += 1
    return out
full, filt, n = slices(sys.argv[1]), slices(sys.argv[2]), int(sys.argv[3])
long_ = collections.Counter({k: v for k, v in full.items() if k[3] - k[2] >= n})
if long_ - filt:
    print("slices of %d+ missing: %s" % (n, list((long_ - filt).items())[:4]))
if filt - full:
    print("slices not in the full timeline: %s" % list((filt - full).items())[:4])
if not long_:
    print("no slice lasts %d" % n)
print("ok %d of %d slices kept" % (sum(filt.values()), sum(full.values())), file=sys.stderr)
EOF

for xlen in 32 64; do
	board=$boards/virt-rv$xlen.ini
	for prog in recursion deepcall exceptions timer trapstorm privilege; do
		elf=$progs/c$xlen/$prog.elf
		t=$tmp/$prog$xlen
		"$iss_run" --trace "$t.iss" "$elf" >/dev/null 2>&1
		timeout 120 "$spoor" virt --board "$board" --trace-on-start --capture "$t.cap" --exit \
			"$elf" >/dev/null 2>"$t.virt.err" ||
			fail "$prog rv$xlen: spoor virt: $(tail -1 "$t.virt.err")"
		expect 0 "" -- "$spoor" timeline --board "$board" --elf "$elf" -o "$t.json" "$t.cap"
		why=$("$checker" "$t.json" 2>&1) && ok || fail "$prog rv$xlen: $why"
		why=$(python3 "$tmp/compare.py" "$objdump" "$t.iss" "$elf" "$t.json" 2>/dev/null)
		[ -z "$why" ] && ok || fail "$prog rv$xlen: $why"
		grep -q '"time_axis":"instructions"' "$t.json" && ok ||
			fail "$prog rv$xlen: otherData lacks time_axis instructions"
		grep -q '"thread_name".*"hart 0 .* time axis: retired instructions' "$t.json" && ok ||
			fail "$prog rv$xlen: no thread name saying the axis"
	done
	# --min-insns: exactly the slices of at least N instructions (those
	# holding a trap excepted: kept, so the trap shows in its function).
	for prog in recursion deepcall; do
		elf=$progs/c$xlen/$prog.elf
		t=$tmp/$prog$xlen
		expect 0 "" -- "$spoor" timeline --board "$board" --elf "$elf" --min-insns 50 \
			-o "$t.min.json" "$t.cap"
		why=$("$checker" "$t.min.json" 2>&1) && ok || fail "$prog rv$xlen --min-insns: $why"
		why=$(python3 "$tmp/slices.py" "$t.json" "$t.min.json" 50 2>/dev/null)
		[ -z "$why" ] && ok || fail "$prog rv$xlen --min-insns 50: $why"
	done
done

# Not compressed, too.
for prog in recursion deepcall; do
	elf=$progs/nc64/$prog.elf
	t=$tmp/nc$prog
	"$iss_run" --trace "$t.iss" "$elf" >/dev/null 2>&1
	timeout 120 "$spoor" virt --board "$boards/virt-rv64.ini" --trace-on-start --capture "$t.cap" \
		--exit "$elf" >/dev/null 2>&1
	expect 0 "" -- "$spoor" timeline --board "$boards/virt-rv64.ini" --elf "$elf" -o "$t.json" \
		"$t.cap"
	why=$("$checker" "$t.json" 2>&1) && ok || fail "nc64 $prog: $why"
	why=$(python3 "$tmp/compare.py" "$objdump" "$t.iss" "$elf" "$t.json" 2>/dev/null)
	[ -z "$why" ] && ok || fail "nc64 $prog: $why"
done

board=$boards/virt-rv64.ini
elf=$progs/c64/recursion.elf
cap=$tmp/recursion64.cap

# --max-events: stops, closes what is open, says so.
expect 0 "max-events" -- "$spoor" timeline --board "$board" --elf "$elf" --max-events 100 \
	-o "$tmp/max.json" "$cap"
why=$("$checker" "$tmp/max.json" 2>&1) && ok || fail "--max-events: $why"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]))' \
	"$tmp/max.json")
[ "$n" -ge 100 ] && [ "$n" -le 140 ] && ok || fail "--max-events 100 wrote $n events"
grep -q '"truncated":true' "$tmp/max.json" && ok || fail "--max-events: not marked truncated"

# Standard output, and two captures merged (the second is an unrelated trace).
"$spoor" timeline --board "$board" --elf "$elf" "$cap" >"$tmp/stdout.json" 2>"$tmp/err"
why=$("$checker" "$tmp/stdout.json" 2>&1) && ok || fail "stdout: $why"
cmp -s "$tmp/stdout.json" "$tmp/recursion64.json" && ok || fail "stdout differs from -o FILE"
expect 0 "" -- "$spoor" timeline --board "$board" --elf "$elf" -o "$tmp/two.json" "$cap" "$cap"
why=$("$checker" "$tmp/two.json" 2>&1) && ok || fail "two inputs: $why"
one=$(grep -c '"ph":"B"' "$tmp/recursion64.json")
two=$(grep -c '"ph":"B"' "$tmp/two.json")
[ "$two" -eq $((2 * one)) ] && ok || fail "two inputs: $two slices, not twice $one"
grep -q '"name":"next input"' "$tmp/two.json" && ok || fail "two inputs: no next input instant"

# Errors: a failed write, a bad option value, an unwritable path.
# (The message is the front end's when the sink saw the failure first.)
expect 2 "^spoor timeline: " -- "$spoor" timeline --board "$board" --elf "$elf" -o /dev/full "$cap"
expect 2 "No space left on device" -- sh -c "'$spoor' timeline --board '$board' --elf '$elf' '$cap' >/dev/full"
# Small enough to stay in the buffer until the end: the sink's own message.
expect 2 "spoor timeline: writing /dev/full: No space left on device" -- "$spoor" timeline \
	--board "$board" --elf "$elf" --max-events 10 -o /dev/full "$cap"
expect 2 "min-insns" -- "$spoor" timeline --board "$board" --elf "$elf" --min-insns x "$cap"
expect 2 "time-axis" -- "$spoor" timeline --board "$board" --elf "$elf" --time-axis x "$cap"
expect 2 "/nonexistent/t.json" -- "$spoor" timeline --board "$board" --elf "$elf" \
	-o /nonexistent/t.json "$cap"
# A failed run leaves the file at -o as it was.
echo keep >"$tmp/keep.json"
expect 2 "" -- "$spoor" timeline --board "$board" --elf "$elf" -o "$tmp/keep.json" \
	"$tmp/nonexistent.cap"
[ "$(cat "$tmp/keep.json")" = keep ] && ok || fail "a failed run changed the -o file"
"$spoor" timeline --help >"$tmp/help" 2>&1
grep -q -- "--min-insns N" "$tmp/help" && grep -q -- "--max-events N" "$tmp/help" && ok ||
	fail "--help lacks --min-insns/--max-events"
finish
