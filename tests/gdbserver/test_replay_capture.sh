#!/bin/sh
# SPDX-License-Identifier: MIT
# spoor gdbserver --replay of a capture file (host/CAPTURE.md) rather than a
# raw stream: a capture of `spoor virt`'s raw trace made with `spoor capture
# --probe file:RAW` serves GDB exactly what the raw file serves (the same
# instruction history, reverse-stepi, record goto), 'monitor trace save'
# copies the capture as it is.  Then a capture with a LOSS record (the sim
# probe's overflow): the history is the raw file's up to the loss, a gap,
# then (if the deframer finds its way again) the raw file's again: nothing
# made up in between, what spoor decode makes of it.  A capture cut short
# is read up to its last whole record, with a warning.
#
# ELF2: a program with many traps (synchronisation packets) for the loss.
#
# usage: test_replay_capture.sh SPOOR ISS_RUN GDB BOARD ELF ELF2 SIM
set -eu
[ $# -eq 7 ] || { echo "usage: $0 SPOOR ISS_RUN GDB BOARD ELF ELF2 SIM" >&2; exit 2; }
spoor=$1 iss_run=$2 gdb=$3 board=$4 elf=$5 elf2=$6 sim=$7
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../debug/lib.sh"
. "$here/lib.sh"
t=$DEBUG_TMP

iss_log "$iss_run" "$elf" "$t/want"
timeout "$DEBUG_TIMEOUT" "$spoor" virt --board "$board" --trace-on-start --capture "$t/raw.bin" \
	--exit "$elf" >"$t/virt.out" 2>&1 || die "spoor virt failed" "$t/virt.out"
timeout "$DEBUG_TIMEOUT" "$spoor" capture --probe "file:$t/raw.bin" --board "$board" \
	-o "$t/cap.cap" -q >"$t/capture.out" 2>&1 || die "spoor capture failed" "$t/capture.out"
head -c 8 "$t/cap.cap" | grep -q "SPOOR" || die "spoor capture did not write a capture file"

# Replays $1 with the options after it; GDB's view into $t/$tag.*: the
# history (got), the log (log).
replay() {
	tag=$1
	shift
	# The last server's log must not be read for this one's port.
	rm -f "$DEBUG_TMP/gdbserver.log"
	start_gdbserver "$spoor" --replay "$@" --elf "$elf" --unsynced --once
	timeout "$DEBUG_TIMEOUT" "$gdb" -nx -batch -x "$here/history.py" \
		-ex "set pagination off" -ex "set confirm off" -ex "set osabi none" -ex "file $elf" \
		-ex "target extended-remote 127.0.0.1:$GS_PORT" \
		-ex "info record" \
		-ex "dump-history $t/$tag.got" \
		-ex 'printf "END pc=%#lx\n", $pc' \
		-ex "reverse-stepi" -ex 'printf "RS1 pc=%#lx\n", $pc' \
		-ex "reverse-stepi" -ex 'printf "RS2 pc=%#lx\n", $pc' \
		-ex "record goto begin" -ex 'printf "BEGIN pc=%#lx\n", $pc' \
		-ex "stepi" -ex 'printf "STEP pc=%#lx\n", $pc' \
		-ex "record goto end" -ex 'printf "LIVE pc=%#lx\n", $pc' \
		-ex "monitor trace status" \
		-ex "monitor trace save $t/$tag.saved" \
		-ex "detach" >"$t/$tag.log" 2>&1 || die "gdb failed ($tag)" "$t/$tag.log" "$GS_LOG"
	wait "$GS_PID" 2>/dev/null || true
	cp "$GS_LOG" "$t/$tag.gs"
}
field() { sed -n "s/^$2 pc=0x\([0-9a-f]*\).*/\1/p" "$t/$1.log" | head -n 1; }

# The raw file and the capture: the same history, the ISS's.
replay raw "$t/raw.bin" --board "$board"
replay cap "$t/cap.cap" --board "$board"
n=$(wc -l <"$t/want")
for tag in raw cap; do
	same_pcs "$t/$tag.got" "$t/want" "replay ($tag)"
	grep -q "Recorded $n instructions" "$t/$tag.log" ||
		die "$tag: info record: not $n instructions" "$t/$tag.log" "$t/$tag.gs"
	for f in END RS1 RS2 BEGIN STEP LIVE; do
		[ "$(field "$tag" $f)" = "$(field raw $f)" ] ||
			die "$tag: $f pc=$(field "$tag" $f), the raw file's: $(field raw $f)" \
				"$t/$tag.log"
	done
done
[ "$(field raw RS1)" = "$(tail -n 1 "$t/want")" ] || die "reverse-stepi: pc $(field raw RS1)"
grep -q "^source: capture $t/cap.cap (capture file)" "$t/cap.log" ||
	die "monitor trace status does not say it is a capture file" "$t/cap.log"
grep -q "^gaps: 0" "$t/cap.log" || die "gaps in a clean capture" "$t/cap.log"
grep -q "capture file, " "$t/cap.gs" || die "the load line does not say capture file" "$t/cap.gs"
# 'monitor trace save': the capture as it is (losses and header kept), the raw file as it is.
cmp -s "$t/cap.saved" "$t/cap.cap" || die "monitor trace save did not copy the capture"
cmp -s "$t/raw.saved" "$t/raw.bin" || die "monitor trace save did not copy the raw file"
echo "PASS: capture replay = raw replay, $n instructions"

# A loss of 8 bytes in the middle of a trace with many synchronisation
# packets (a trap each), recorded as a LOSS record by `spoor capture` from
# the sim probe.  Its history against the raw file's (all of it).
timeout "$DEBUG_TIMEOUT" "$spoor" virt --board "$board" --trace-on-start --capture "$t/raw2.bin" \
	--exit "$elf2" >"$t/virt2.out" 2>&1 || die "spoor virt failed ($elf2)" "$t/virt2.out"
elf=$elf2
replay full "$t/raw2.bin" --board "$board"
size=$(stat -c %s "$t/raw2.bin")
at=$((size / 2))
# No leak check in the sim (sanitizer builds): LeakSanitizer was seen to hang
# at its exit, after SIGTERM, while its trace-port thread runs.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	timeout "$DEBUG_TIMEOUT" "$sim" --listen 127.0.0.1:0 --input "$t/raw2.bin" --drop-at "$at:8" \
	>"$t/sim.out" 2>"$t/sim.err" &
DEBUG_PIDS="$DEBUG_PIDS $!"
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$t/sim.out" 2>/dev/null || true)
	[ -n "$port" ] && break
	sleep 0.05
done
[ -n "$port" ] || die "the sim probe did not start" "$t/sim.err"
timeout "$DEBUG_TIMEOUT" "$spoor" capture --probe "tcp:127.0.0.1:$port" --board "$board" \
	-o "$t/loss.cap" --size "$size" >"$t/lcapture.out" 2>&1 || true
grep -q "1 overflow" "$t/lcapture.out" || die "no overflow in the capture" "$t/lcapture.out"
replay loss "$t/loss.cap" --board "$board"
cat "$t/loss.gs"
grep -q "1 loss in the capture" "$t/loss.gs" || die "the load line does not count the loss" \
	"$t/loss.gs"
grep -q "^gaps: 0" "$t/full.log" || die "gaps in the trace without a loss" "$t/full.log"
grep -q "^gaps: [1-9]" "$t/loss.log" || die "no gap after the loss" "$t/loss.log"
# The history: the full one's first i pcs, then (where the deframer found
# its way again) its last k, nothing else; what spoor decode makes of the
# same capture.
grep -v '^gap$' "$t/loss.got" >"$t/loss.pcs"
n=$(wc -l <"$t/full.got")
m=$(wc -l <"$t/loss.pcs")
i=$(paste -d ' ' "$t/loss.pcs" "$t/full.got" | awk '$1 != $2 { print NR - 1; exit }')
i=${i:-$m}
k=$((m - i))
[ "$i" -gt 10 ] && [ "$m" -lt "$n" ] || die "loss: $i pcs before the gap, $k after, $m of $n" \
	"$t/loss.log"
tail -n "$k" "$t/full.got" >"$t/full_tail"
tail -n "$k" "$t/loss.pcs" | cmp -s - "$t/full_tail" ||
	die "loss: the $k pcs after the gap are not the trace's last $k" "$t/loss.log"
"$spoor" decode --board "$board" --elf "$elf" --unsynced --format pcs "$t/loss.cap" \
	>"$t/loss.dec" 2>/dev/null || true
head -n -1 "$t/loss.dec" >"$t/loss.dech"
cmp -s "$t/loss.pcs" "$t/loss.dec" || cmp -s "$t/loss.pcs" "$t/loss.dech" ||
	die "loss: the history is not what spoor decode makes of the capture" "$t/loss.log"
echo "PASS: capture with a loss: $i pcs, a gap, $k pcs ($((n - m)) lost)"

# A capture cut short inside a record (the one after the loss): read up to
# there, with a warning.
csize=$(stat -c %s "$t/loss.cap")
head -c $((csize - 100)) "$t/loss.cap" >"$t/cut.cap"
replay cut "$t/cut.cap" --board "$board"
grep -q "warning: $t/cut.cap: file offset [0-9]*: .*read up to there" "$t/cut.gs" ||
	die "no warning for a capture cut short" "$t/cut.gs"
grep -q "the capture file is damaged" "$t/cut.gs" || die "the load line does not say damaged" \
	"$t/cut.gs"
[ "$(wc -l <"$t/cut.got")" -gt 10 ] || die "nothing read of a capture cut short" "$t/cut.gs"
head -n "$(wc -l <"$t/cut.got")" "$t/full.got" | cmp -s - "$t/cut.got" ||
	die "the history of a capture cut short is not the trace's beginning" "$t/cut.log"
echo "PASS: capture cut short, $(wc -l <"$t/cut.got") pcs"
