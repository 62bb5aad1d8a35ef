#!/bin/bash
# spoor virt + spoor decode --format text on a program that traps for ever:
# every trap line gives the cause, epc and tval the ISS took (its first ones).
# usage: test_virt_traps.sh SPOOR ISS_RUN BOARD PROG.elf
set -u
spoor=$1 iss_run=$2 board=$3 elf=$4
. "$(dirname "$0")/../cli/lib.sh"

# The ISS's traps: "cause epc tval" in hex.
"$iss_run" --max 100000 --trace "$tmp/iss.tr" "$elf" >/dev/null 2>&1
awk '$1 == "E" { print $3, $2, $4 }' "$tmp/iss.tr" >"$tmp/want"

# The board, stopped after a second, its capture limited (a trap storm is fast).
"$spoor" virt --board "$board" --trace-on-start --capture "$tmp/cap" --capture-limit 16k \
	"$elf" >/dev/null 2>"$tmp/virt.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] && ok || fail "spoor virt: exit $rc: $(cat "$tmp/virt.err")"
"$spoor" decode --board "$board" --elf "$elf" --unsynced --format text "$tmp/cap" \
	>"$tmp/text" 2>"$tmp/dec.err"
sed -n 's/^-- trap exception \([0-9]*\) epc 0x\([0-9a-f]*\) tval 0x\([0-9a-f]*\) .*/\1 \2 \3/p' \
	"$tmp/text" | awk '{ printf "%x %s %s\n", $1, $2, $3 }' >"$tmp/got"
n=$(wc -l <"$tmp/got")
[ "$n" -ge 50 ] && ok || fail "only $n trap lines decoded: $(head -3 "$tmp/dec.err")"
head -n "$n" "$tmp/want" | cmp -s - "$tmp/got" && ok ||
	fail "trap lines differ from the ISS (cause epc tval): $(head -n "$n" "$tmp/want" |
		diff - "$tmp/got" | head -6)"
finish
