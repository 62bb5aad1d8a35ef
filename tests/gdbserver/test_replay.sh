#!/bin/sh
# SPDX-License-Identifier: MIT
# spoor gdbserver --replay: a capture of `spoor virt` as a self-contained
# GDB target.  gdb-multiarch connects, finds it recording (Branch Trace
# Store), and its instruction history is the ISS's retirement log; reverse
# stepping and record goto land on the right pcs.  Then a two-hart capture
# made from it: two threads, each with its own history.
#
# usage: test_replay.sh SPOOR ISS_RUN GDB BOARD ELF TWOHART
set -eu
[ $# -eq 6 ] || { echo "usage: $0 SPOOR ISS_RUN GDB BOARD ELF TWOHART" >&2; exit 2; }
spoor=$1 iss_run=$2 gdb=$3 board=$4 elf=$5 twohart=$6
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../debug/lib.sh"
. "$here/lib.sh"
t=$DEBUG_TMP

iss_log "$iss_run" "$elf" "$t/want"
timeout "$DEBUG_TIMEOUT" "$spoor" virt --board "$board" --trace-on-start --capture "$t/cap.bin" \
	--exit "$elf" >"$t/virt.out" 2>&1 || die "spoor virt failed" "$t/virt.out"

# One hart.
start_gdbserver "$spoor" --replay "$t/cap.bin" --elf "$elf" --board "$board" --unsynced --once
n=$(wc -l <"$t/want")
last=$(tail -n 1 "$t/want") prev=$(tail -n 2 "$t/want" | head -n 1) first=$(head -n 1 "$t/want")
timeout "$DEBUG_TIMEOUT" "$gdb" -nx -batch -x "$here/history.py" \
	-ex "set pagination off" -ex "set confirm off" -ex "set osabi none" -ex "file $elf" \
	-ex "target extended-remote 127.0.0.1:$GS_PORT" \
	-ex "info record" \
	-ex "dump-history $t/got" \
	-ex 'printf "END pc=%#lx\n", $pc' \
	-ex "reverse-stepi" -ex 'printf "RS1 pc=%#lx\n", $pc' \
	-ex "reverse-stepi" -ex 'printf "RS2 pc=%#lx\n", $pc' \
	-ex "record goto begin" -ex 'printf "BEGIN pc=%#lx\n", $pc' \
	-ex "stepi" -ex 'printf "STEP pc=%#lx\n", $pc' \
	-ex "record goto end" -ex 'printf "LIVE pc=%#lx\n", $pc' \
	-ex "monitor trace status" -ex "monitor trace calls" \
	-ex "detach" >"$t/gdb.log" 2>&1 || die "gdb failed" "$t/gdb.log" "$GS_LOG"
cat "$t/gdb.log"
grep -q "Target is recording using Branch Trace Store" "$t/gdb.log" ||
	die "GDB did not find the target recording" "$t/gdb.log" "$GS_LOG"
grep -q "Recorded $n instructions" "$t/gdb.log" || die "info record: not $n instructions" \
	"$t/gdb.log" "$GS_LOG"
same_pcs "$t/got" "$t/want" "replay"
field() { sed -n "s/^$1 pc=0x\([0-9a-f]*\).*/\1/p" "$t/gdb.log" | head -n 1; }
[ "$(field RS1)" = "$last" ] || die "reverse-stepi: pc $(field RS1), want $last" "$t/gdb.log"
[ "$(field RS2)" = "$prev" ] || die "reverse-stepi twice: pc $(field RS2), want $prev" "$t/gdb.log"
[ "$(field BEGIN)" = "$first" ] || die "record goto begin: pc $(field BEGIN), want $first" \
	"$t/gdb.log"
[ "$(field STEP)" = "$(sed -n 2p "$t/want")" ] || die "stepi in replay: pc $(field STEP)" \
	"$t/gdb.log"
[ "$(field LIVE)" = "$(field END)" ] || die "record goto end: pc $(field LIVE), want $(field END)" \
	"$t/gdb.log"
grep -q "^instructions: $n" "$t/gdb.log" || die "monitor trace status" "$t/gdb.log"
grep -q "^main" "$t/gdb.log" || die "monitor trace calls shows no main" "$t/gdb.log"
echo "PASS: replay, $n instructions"

# Two harts: hart 1 got the first 5 packets of hart 0's trace again.
"$twohart" "$board" "$t/cap.bin" "$t/cap2.bin" 5 >/dev/null || die "twohart failed"
"$spoor" decode --board "$board" --elf "$elf" --unsynced --source 1 --format pcs "$t/cap2.bin" \
	>"$t/want1" 2>/dev/null || true
[ -s "$t/want1" ] || die "hart 1 decodes to nothing"
wait "$GS_PID" 2>/dev/null || true
start_gdbserver "$spoor" --replay "$t/cap2.bin" --elf "$elf" --board "$board" --unsynced --once
timeout "$DEBUG_TIMEOUT" "$gdb" -nx -batch -x "$here/history.py" \
	-ex "set pagination off" -ex "set confirm off" -ex "set osabi none" -ex "file $elf" \
	-ex "target extended-remote 127.0.0.1:$GS_PORT" \
	-ex "info threads" \
	-ex "thread 1" -ex "dump-history $t/got0" \
	-ex "thread 2" -ex "dump-history $t/got1" \
	-ex "detach" >"$t/gdb2.log" 2>&1 || die "gdb failed (two harts)" "$t/gdb2.log" "$GS_LOG"
cat "$t/gdb2.log"
grep -q 'hart 0' "$t/gdb2.log" && grep -q 'hart 1' "$t/gdb2.log" ||
	die "info threads does not show both harts" "$t/gdb2.log"
same_pcs "$t/got0" "$t/want" "hart 0"
# Hart 1's history ends before its current pc, like any other: the decode's last pc is that pc.
head -n -1 "$t/want1" >"$t/want1h"
cmp -s "$t/got1" "$t/want1" || same_pcs "$t/got1" "$t/want1h" "hart 1"
n1=$(wc -l <"$t/got1")
[ "$n1" -gt 10 ] && [ "$n1" -lt "$n" ] || die "hart 1's history is not a part of hart 0's ($n1 of $n)"
head -n "$n1" "$t/want" | cmp -s - "$t/got1" || die "hart 1's history is not hart 0's beginning"
echo "PASS: two harts, $n and $n1 instructions"
