#!/bin/bash
# The analyses live and by time: spoor stream --coverage/--profile/--calls/
# --timeline on the sim probe (TCP, loopback) replaying a capture of the
# virtual board gives, with its view refreshed every second, the files the
# analysis commands make of the capture itself; a trace with timestamps
# (spoor virt --timestamps) gives profiles by time whose total is the
# stamps' span, and a timeline on the timestamp axis.
# usage: test_analysis_live.sh SPOOR SIM BOARD PROG.elf
set -u
spoor=$1 sim=$2 board=$3 elf=$4
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sim.sh"
check_events=$(dirname "$0")/../tools/check_trace_events.py
common=(--board "$board" --elf "$elf")

# A run of the board with timestamps on.
timeout 60 "$spoor" virt --board "$board" --trace-on-start --timestamps --capture "$tmp/cap" \
	--exit "$elf" >/dev/null 2>"$tmp/virt.err" && ok || fail "spoor virt: $(cat "$tmp/virt.err")"
"$spoor" decode "${common[@]}" --format json "$tmp/cap" >"$tmp/dec.json" 2>/dev/null
insns=$("$spoor" decode "${common[@]}" --stats "$tmp/cap" 2>&1 >/dev/null |
	sed -n 's/^instructions: //p')
times=$(sed -n 's/.*"kind":"time".*"time":\([0-9]*\).*/\1/p' "$tmp/dec.json")
first=$(head -1 <<<"$times") last=$(tail -1 <<<"$times")
[ -n "$first" ] && [ "$last" -gt "$first" ] && ok || fail "no timestamps decoded"
# One tick per retired instruction: the stamps span the run.
[ $((last - first)) -ge $((insns * 9 / 10)) ] && [ $((last - first)) -le "$insns" ] && ok ||
	fail "timestamps span $((last - first)) ticks for $insns instructions"

# Profiles by time: the callgrind file has a Time event; its total is the span.
expect 0 "" -- "$spoor" profile "${common[@]}" --format callgrind -o "$tmp/cg.out" "$tmp/cap"
grep -q '^events: Ir Time$' "$tmp/cg.out" && ok || fail "callgrind: no Time event"
callgrind_annotate "$tmp/cg.out" >"$tmp/ann" 2>"$tmp/ann.err"
tot=$(grep -m1 'PROGRAM TOTALS' "$tmp/ann" | tr -d ',' | awk '{ print $1, $3 }')
[ "$tot" = "$insns $((last - first))" ] && ok ||
	fail "callgrind_annotate totals '$tot', want '$insns $((last - first))': $(head -3 "$tmp/ann.err")"
expect 0 "" -- "$spoor" profile "${common[@]}" --format top "$tmp/cap"
grep -q 'time' "$tmp/out" && ok || fail "top: no time columns: $(head -3 "$tmp/out")"
# The timeline on the timestamp axis.
expect 0 "" -- "$spoor" timeline "${common[@]}" -o "$tmp/tl.json" "$tmp/cap"
python3 "$check_events" "$tmp/tl.json" >"$tmp/chk" 2>&1 && ok || fail "timeline: $(cat "$tmp/chk")"
grep -q '"time_axis":"timestamps"' "$tmp/tl.json" && ok || fail "timeline: not on the timestamp axis"

# The same analyses from the capture file ...
"$spoor" coverage "${common[@]}" -o "$tmp/file.info" "$tmp/cap" 2>/dev/null
"$spoor" profile "${common[@]}" -o "$tmp/file.folded" "$tmp/cap" 2>/dev/null
"$spoor" calls "${common[@]}" --format json -o "$tmp/file.calls" "$tmp/cap" 2>/dev/null
# ... and live from the probe, slowly enough for the view to refresh.
start_sim --input "$tmp/cap" --rate 1k
timeout 60 "$spoor" stream --probe "tcp:127.0.0.1:$port" "${common[@]}" --idle 1 \
	--coverage "$tmp/live.info" --profile "$tmp/live.folded" --calls "$tmp/live.calls.json" \
	--timeline "$tmp/live.tl.json" >"$tmp/view" 2>"$tmp/live.err"
rc=$?
stop_sims
[ $rc -eq 0 ] && ok || fail "stream: exit $rc: $(cat "$tmp/live.err")"
[ "$(grep -c '^----$' "$tmp/view")" -ge 1 ] && ok || fail "no live view: $(head -5 "$tmp/view")"
grep -q '^coverage: instructions [0-9]*/[0-9]* ' "$tmp/view" && ok || fail "view: no coverage line"
grep -q 'exclusive.*inclusive' "$tmp/view" && ok || fail "view: no profile table"
cmp -s "$tmp/file.info" "$tmp/live.info" && ok || fail "live coverage differs from the capture's"
cmp -s <(sort "$tmp/file.folded") <(sort "$tmp/live.folded") && ok ||
	fail "live profile differs: $(diff <(sort "$tmp/file.folded") <(sort "$tmp/live.folded") | head -4)"
cmp -s "$tmp/file.calls" "$tmp/live.calls.json" && ok || fail "live call tree differs"
python3 "$check_events" "$tmp/live.tl.json" >"$tmp/chk" 2>&1 && ok || fail "live timeline: $(cat "$tmp/chk")"

# What does not go together.
expect 2 "do not go with it" -- "$spoor" stream --probe tcp:127.0.0.1:1 "${common[@]}" \
	--coverage "$tmp/x" --format text
expect 2 "given twice" -- "$spoor" stream --probe tcp:127.0.0.1:1 "${common[@]}" \
	--coverage "$tmp/x" --coverage "$tmp/y"
finish
