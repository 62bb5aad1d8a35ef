#!/bin/bash
# spoor virt end to end: the trace port (a probe on TCP) and the capture
# file both decode, with the board file, to the ISS's own retired sequence.
# usage: test_virt_cli.sh SPOOR ISS_RUN BOARD PROG.elf [FEATURES]
# FEATURES replaces the board file's "features =" line (the trace options
# spoor virt --trace-on-start turns on), e.g. "jump-target-cache".
set -u
spoor=$1 iss_run=$2 board=$3 elf=$4
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
if [ $# -ge 5 ]; then
	sed "s/^features = .*/features = $5/" "$board" >"$tmp/board.ini"
	grep -q "^features = $5\$" "$tmp/board.ini" || { echo "FAIL: no features line in $board"; exit 1; }
	board=$tmp/board.ini
fi
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# The ISS's retired instructions from the program's entry on.
"$iss_run" --trace "$tmp/iss.tr" "$elf" >/dev/null || fail "iss_run"
entry=$(grep -m1 '^R 80000000$' -n "$tmp/iss.tr" | cut -d: -f1)
tail -n +"$entry" "$tmp/iss.tr" | awk '$1 == "R" { print $2 } $1 == "E" && ($3 == "3" || $3 == "8" || $3 == "9" || $3 == "b") { print $2 }' \
	>"$tmp/want"

# Capture file.
timeout 60 "$spoor" virt --board "$board" --trace-on-start --capture "$tmp/cap.bin" --exit "$elf" \
	>"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && ok || fail "spoor virt exited non-zero: $(cat "$tmp/err")"
grep -q '^jtag: 127.0.0.1:[0-9]*$' "$tmp/out" && ok || fail "no jtag port line"
grep -q '^trace: 127.0.0.1:[0-9]* (siemens)$' "$tmp/out" && ok || fail "no trace port line"
grep -q 'the program exited with code 0' "$tmp/err" && ok || fail "no exit line"
"$spoor" decode --board "$board" --elf "$elf" --unsynced --format pcs "$tmp/cap.bin" >"$tmp/cap.pcs" \
	2>"$tmp/dec.err"
[ ! -s "$tmp/dec.err" ] && ok || fail "capture decode warnings: $(cat "$tmp/dec.err")"
cmp -s "$tmp/want" "$tmp/cap.pcs" && ok || fail "capture decode differs from the ISS ($(wc -l <"$tmp/want") vs $(wc -l <"$tmp/cap.pcs"))"

# A probe on the trace port.
timeout 60 "$spoor" virt --board "$board" --trace-on-start --wait-probe --exit "$elf" \
	>"$tmp/out2" 2>"$tmp/err2" &
pids+=($!)
for _ in $(seq 100); do
	port=$(sed -n 's/^trace: 127.0.0.1:\([0-9]*\) .*/\1/p' "$tmp/out2" 2>/dev/null)
	[ -n "$port" ] && break
	sleep 0.1
done
if [ -n "$port" ]; then
	timeout 60 bash -c "cat </dev/tcp/127.0.0.1/$port" >"$tmp/probe.bin"
	wait "${pids[0]}"
	"$spoor" decode --board "$board" --elf "$elf" --unsynced --format pcs - <"$tmp/probe.bin" \
		>"$tmp/probe.pcs" 2>/dev/null
	cmp -s "$tmp/want" "$tmp/probe.pcs" && ok || fail "probe decode differs from the ISS"
	cmp -s "$tmp/cap.bin" "$tmp/probe.bin" && ok || fail "probe bytes differ from the capture"
else
	fail "spoor virt printed no trace port"
fi

# Ctrl-C (SIGINT) stops a running board cleanly, ports closed.
timeout 60 "$spoor" virt --board "$board" "$elf" >"$tmp/out3" 2>"$tmp/err3" &
vpid=$!
pids+=($vpid)
for _ in $(seq 100); do
	grep -q '^trace: ' "$tmp/out3" 2>/dev/null && break
	sleep 0.1
done
sleep 0.3
kill -INT "$vpid"
wait "$vpid"
rc=$?
[ $rc -eq 0 ] && ok || fail "spoor virt after SIGINT exited $rc: $(cat "$tmp/err3")"
jport=$(sed -n 's/^jtag: 127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/out3")
if [ -n "$jport" ] && (exec 3<>"/dev/tcp/127.0.0.1/$jport") 2>/dev/null; then
	fail "the JTAG port is still open after SIGINT"
else
	ok
fi

# Bad use: one clear line, non-zero exit.
"$spoor" virt --board /nonexistent.ini "$elf" 2>"$tmp/e" >/dev/null
[ $? -eq 2 ] && grep -q "/nonexistent.ini: No such file" "$tmp/e" && ok || fail "bad board file"
"$spoor" virt --jtag-port 70000 "$elf" 2>"$tmp/e" >/dev/null
[ $? -eq 2 ] && grep -q "from 0 to 65535" "$tmp/e" && ok || fail "bad port"
"$spoor" virt /bin/true 2>"$tmp/e" >/dev/null
[ $? -eq 2 ] && grep -q "/bin/true" "$tmp/e" && ok || fail "not a RISC-V ELF"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
