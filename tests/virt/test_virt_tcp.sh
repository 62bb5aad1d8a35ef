#!/bin/bash
# spoor virt's servers and capture under a hostile or clumsy user: 200 quick
# connect/close cycles on each port, 50 probes at once on the trace port, an
# idle JTAG client that must not lock the debugger out, SIGHUP during a
# capture, the capture size limit, and the messages of a port in use or a
# missing program.  Loopback only (bash's /dev/tcp).
# usage: test_virt_tcp.sh SPOOR BOARD SPIN.elf
set -u
spoor=$1 spin=$3
. "$(dirname "$0")/../cli/lib.sh"
# spin calls a function forever: without implicit return each return is a
# packet, so the trace port never falls silent.
sed 's/^features *=.*/features = full-address/' "$2" >"$tmp/board.ini"
board=$tmp/board.ini
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

# start NAME ARGS...: runs spoor virt ARGS in the background; sets jtag, trace, pid.
start() {
	local name=$1
	shift
	"$spoor" virt --board "$board" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	pids+=("$pid")
	jtag="" trace=""
	for _ in $(seq 100); do
		jtag=$(sed -n 's/^jtag: 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$tmp/$name.out")
		trace=$(sed -n 's/^trace: 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$tmp/$name.out")
		[ -n "$jtag" ] && [ -n "$trace" ] && return 0
		sleep 0.1
	done
	fail "$name: no ports: $(cat "$tmp/$name.err")"
	return 1
}

# cycles PORT N: N connections opened and closed at once; prints the seconds taken.
cycles() {
	local t0 t1
	t0=$(date +%s.%N)
	for _ in $(seq "$2"); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$1" || return 1
		exec {fd}>&-
	done
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
}

# jtag_answers PORT: sends 'R' and prints the answer byte ('0' or '1'), or nothing.
jtag_answers() {
	local fd ans=""
	exec {fd}<>"/dev/tcp/127.0.0.1/$1" || return 1
	printf 'R' >&"$fd"
	read -r -n1 -t 5 ans <&"$fd"
	exec {fd}>&-
	echo "$ans"
}

start a --trace-on-start "$spin" || { finish; exit 1; }

# 200 quick connect/close cycles on each port, in a few seconds.
for port in "$jtag" "$trace"; do
	s=$(cycles "$port" 200)
	[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s < 10) }' && ok ||
		fail "200 connect/close cycles on port $port took ${s:-forever} s"
	echo "200 connect/close cycles on port $port: $s s"
done
# The JTAG port still answers, and the board still runs.
[ "$(jtag_answers "$jtag")" = 0 ] || [ "$(jtag_answers "$jtag")" = 1 ] && ok ||
	fail "no JTAG answer after the cycles"
kill -0 "$pid" 2>/dev/null && ok || fail "spoor virt died: $(cat "$tmp/a.err")"

# An idle client on the JTAG port cannot lock a debugger out: after a second
# of silence a newcomer takes over (and the idle one is closed).
exec {idle}<>"/dev/tcp/127.0.0.1/$jtag"
sleep 1.5
ans=$(jtag_answers "$jtag")
[ "$ans" = 0 ] || [ "$ans" = 1 ] && ok || fail "idle JTAG client locked the port out"
read -r -n1 -t 5 x <&"$idle" 2>/dev/null
[ $? -ne 142 ] && [ -z "${x:-}" ] && ok || fail "the idle client was not closed"
exec {idle}>&-
# The finding itself: OpenOCD attaches past an idle connection.
if command -v openocd >/dev/null; then
	exec {idle}<>"/dev/tcp/127.0.0.1/$jtag"
	sleep 1.2
	timeout 60 openocd -c "set VIRT_JTAG_PORT $jtag; set VIRT_GDB_PORT disabled" \
		-c "set VIRT_TELNET_PORT disabled; set VIRT_TCL_PORT disabled" \
		-f "$(dirname "$0")/../../boards/virt-rv64.cfg" -c "init; halt; resume; shutdown" \
		>"$tmp/ocd.out" 2>&1 && ok || fail "OpenOCD locked out by an idle client: $(tail -3 "$tmp/ocd.out")"
	exec {idle}>&-
fi
grep -q 'jtag: a new client took over from one silent for 1000 ms (closed)' "$tmp/a.err" && ok ||
	fail "no take-over message: $(cat "$tmp/a.err")"
# A busy client keeps the port: the newcomer is closed at once.
exec {busy}<>"/dev/tcp/127.0.0.1/$jtag"
printf 'R' >&"$busy"
read -r -n1 -t 5 x <&"$busy"
exec {late}<>"/dev/tcp/127.0.0.1/$jtag"
printf 'R' >&"$late"
y=""
read -r -n1 -t 2 y <&"$late" 2>/dev/null
[ -n "$x" ] && [ -z "$y" ] && ok || fail "busy client: '$x', newcomer: '$y'"
printf 'R' >&"$busy" 2>/dev/null
x=""
read -r -n1 -t 5 x <&"$busy"
[ -n "$x" ] && ok || fail "the busy client lost the port"
exec {busy}>&- {late}>&-

# 50 probes at once on the trace port: every one gets the stream.
fds=()
for i in $(seq 50); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$trace" && fds+=("$fd")
done
got=0
for fd in "${fds[@]}"; do
	n=$(timeout 5 dd bs=64 count=1 status=none <&"$fd" | wc -c)
	[ "$n" -gt 0 ] && got=$((got + 1))
	exec {fd}>&-
done
[ "$got" -eq 50 ] && ok || fail "only $got of 50 trace clients got bytes"
kill -0 "$pid" 2>/dev/null && ok || fail "spoor virt died: $(cat "$tmp/a.err")"
kill "$pid"
wait "$pid" 2>/dev/null

# SIGHUP during a capture keeps every byte: the capture ends on a whole frame.
start b --trace-on-start --capture "$tmp/hup.cap" "$spin" || { finish; exit 1; }
sleep 1
kill -HUP "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] && ok || fail "SIGHUP: exit $rc: $(cat "$tmp/b.err")"
[ -s "$tmp/hup.cap" ] && ok || fail "SIGHUP: empty capture"
"$spoor" dump -q --board "$board" --unsynced "$tmp/hup.cap" >/dev/null 2>"$tmp/dump.err"
rc=$?
[ "$rc" -eq 0 ] && ! grep -q 'inside a packet' "$tmp/dump.err" && ok ||
	fail "SIGHUP: the capture is cut (dump exit $rc): $(cat "$tmp/dump.err")"

# The capture size limit: at most that many bytes, whole frames, said once.
start c --trace-on-start --capture "$tmp/lim.cap" --capture-limit 10k "$spin" ||
	{ finish; exit 1; }
sleep 1
kill "$pid"
wait "$pid"
size=$(stat -c %s "$tmp/lim.cap")
[ "$size" -le 10240 ] && [ "$size" -gt 9000 ] && ok || fail "capture limit: $size bytes"
[ "$(grep -c 'capture limit of 10240 bytes reached' "$tmp/c.err")" -eq 1 ] && ok ||
	fail "capture limit: $(cat "$tmp/c.err")"
"$spoor" dump -q --board "$board" --unsynced "$tmp/lim.cap" >/dev/null 2>"$tmp/dump.err" && ok ||
	fail "capture limit: the capture does not end on a whole frame: $(cat "$tmp/dump.err")"
expect 2 "--capture-limit: '12x' is not a size" -- "$spoor" virt --capture "$tmp/x" \
	--capture-limit 12x "$spin"
expect 2 "--capture-limit without --capture" -- "$spoor" virt --capture-limit 1M "$spin"
expect 2 "--probe-buffer: '0' is not a size" -- "$spoor" virt --probe-buffer 0 "$spin"
expect 2 "--board given twice" -- "$spoor" virt --board "$board" --board "$2" "$spin"

# Messages: a port in use names it; a missing program names the file.
start d "$spin" || { finish; exit 1; }
expect 2 "cannot listen on 127.0.0.1:$jtag (--jtag-port): Address already in use" -- \
	"$spoor" virt --jtag-port "$jtag" "$spin"
expect 2 "cannot listen on 127.0.0.1:$trace (--trace-port): Address already in use" -- \
	"$spoor" virt --trace-port "$trace" "$spin"
kill "$pid"
expect 2 "cannot open '$tmp/none.elf': No such file or directory" -- \
	"$spoor" virt "$tmp/none.elf"
expect 2 "'$tmp' is not a regular file" -- "$spoor" virt "$tmp"
finish
