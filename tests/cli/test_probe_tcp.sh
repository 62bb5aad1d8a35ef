#!/bin/bash
# spoor capture, stream, decode/dump of capture files and flash, against the
# sim probe served over TCP (loopback): bytes identical end to end, a loss
# at its exact offset, an unplug with the bytes so far kept and the probe
# back, a probe that stops answering, a full disk, signals, DFU updates.
# usage: test_probe_tcp.sh SPOOR SIM FWIMAGE VECTORS_DIR
set -u
spoor=$1 sim=$2 fwimage=$3 V=$4
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/sim.sh"

head -c $((24 << 20)) /dev/urandom >"$tmp/in.raw"
size=$(stat -c %s "$tmp/in.raw")

# 24 MiB through the probe into a capture file, then out as raw: identical.
start_sim --input "$tmp/in.raw"
expect 0 "" -- "$spoor" capture --probe "tcp:127.0.0.1:$port" -o "$tmp/c.cap" --size "$size" -q
expect 0 "" -- "$spoor" capture --probe "file:$tmp/c.cap" --format raw -o "$tmp/out.raw" -q
cmp -s "$tmp/in.raw" "$tmp/out.raw" && ok || fail "capture over tcp: bytes differ"
grep -aq "probe=tcp:127.0.0.1:$port" "$tmp/c.cap" && ok || fail "capture header lacks the probe"
stop_sims

# A loss of 1000 bytes at trace offset 5000000: reported there, exactly.
start_sim --input "$tmp/in.raw" --drop-at 5000000:1000
run 1 "1 overflow (1.0 kB lost)" -- \
	"$spoor" capture --probe "tcp:127.0.0.1:$port" -o "$tmp/loss.cap" --size "$size"
"$spoor" dump --format json "$tmp/loss.cap" 2>/dev/null | grep '"event":"lost"' >"$tmp/lost" || true
grep -q '"offset":5000000,.*"bytes":1000' "$tmp/lost" && ok || fail "loss event: $(cat "$tmp/lost")"
"$spoor" capture --probe "file:$tmp/loss.cap" --format raw -o "$tmp/loss.raw" -q 2>/dev/null
{ head -c 5000000 "$tmp/in.raw"; tail -c +5001001 "$tmp/in.raw"; } | cmp -s - "$tmp/loss.raw" &&
	ok || fail "the bytes around the loss differ"
stop_sims

# Unplugged after 4 MB and back 300 ms later: a message, the bytes so far
# kept, capturing again; without --reconnect time the capture ends there.
start_sim --input "$tmp/in.raw" --unplug-after 4000000 --replug-ms 300
run 1 "back; capturing again" -- "$spoor" capture --probe "tcp:127.0.0.1:$port" \
	-o "$tmp/unplug.cap" --size 8000000
grep -q "the probe is gone (unplugged?) after" "$tmp/err" && ok || fail "no unplug message"
"$spoor" capture --probe "file:$tmp/unplug.cap" --format raw -o "$tmp/unplug.raw" -q 2>/dev/null
n=$(stat -c %s "$tmp/unplug.raw")
[ "$n" -ge 8000000 ] && cmp -s -n 3000000 "$tmp/in.raw" "$tmp/unplug.raw" && ok ||
	fail "unplug: $n bytes kept, or the first ones differ"
stop_sims
start_sim --input "$tmp/in.raw" --unplug-after 2000000
run 1 "the probe is gone" -- "$spoor" capture --probe "tcp:127.0.0.1:$port" \
	-o "$tmp/gone.cap" --reconnect 0
"$spoor" capture --probe "file:$tmp/gone.cap" --format raw -o "$tmp/gone.raw" -q 2>/dev/null
n=$(stat -c %s "$tmp/gone.raw")
[ "$n" -gt 0 ] && cmp -s -n "$n" "$tmp/in.raw" "$tmp/gone.raw" && ok ||
	fail "gone: the $n bytes kept differ"
stop_sims

# A probe that stops answering requests: a timeout, not a hang.
start_sim --input "$tmp/in.raw" --stall-after 2
expect 2 "" -- timeout 20 "$spoor" capture --probe "tcp:127.0.0.1:$port" -o "$tmp/stall.cap"
grep -q "timed out" "$tmp/err" && ok || fail "stall: $(cat "$tmp/err")"
stop_sims

# Nothing listening, a bad spec, a missing output directory: one line each.
expect 2 "cannot connect" -- "$spoor" capture --probe tcp:127.0.0.1:1 -o "$tmp/x.cap"
expect 2 "not HOST:PORT" -- "$spoor" capture --probe tcp:nowhere -o "$tmp/x.cap"
expect 2 "no output file" -- "$spoor" capture --probe tcp:127.0.0.1:1
expect 2 "no probe given" -- "$spoor" capture -o "$tmp/x.cap"
expect 2 "is a probe" -- "$spoor" decode --elf "$V/elf/br_j_asm.riscv" tcp:127.0.0.1:1
start_sim --input "$tmp/in.raw"
expect 2 "$tmp/no/such/dir/c.cap" -- "$spoor" capture --probe "tcp:127.0.0.1:$port" \
	-o "$tmp/no/such/dir/c.cap"
stop_sims

# A full disk: a clean stop, an error (raw and capture files alike).
if [ -w /dev/full ]; then
	start_sim --input "$tmp/in.raw"
	expect 2 "writing '/dev/full'" -- "$spoor" capture --probe "tcp:127.0.0.1:$port" \
		-o /dev/full --format raw
	expect 2 "/dev/full" -- "$spoor" capture --probe "tcp:127.0.0.1:$port" -o /dev/full
	stop_sims
fi

# SIGINT during a capture: the probe drains, END written, the file reads clean.
start_sim --input "$tmp/in.raw" --rate 4M --loop
"$spoor" capture --probe "tcp:127.0.0.1:$port" -o "$tmp/int.cap" -q 2>"$tmp/int.err" &
cap=$!
sleep 1
kill -INT $cap
wait $cap
rc=$?
[ $rc -eq 0 ] && ok || fail "SIGINT: exit $rc: $(cat "$tmp/int.err")"
"$spoor" capture --probe "file:$tmp/int.cap" --format raw -o "$tmp/int.raw" -q 2>/dev/null &&
	[ "$(stat -c %s "$tmp/int.raw")" -gt 1000000 ] && ok ||
	fail "SIGINT: the capture does not read back"
stop_sims

# Live decoding: spoor stream over the probe gives the same pcs as spoor
# decode of the file, and so does spoor decode of the capture it leaves.
stem=towers
bin=$V/encap/$stem.A_s0_t0_y0_sync16.bin
scf=$V/itype4_basic/hardware_64.scf
[ -f "$V/itype4_basic/$stem.scf" ] && scf=$V/itype4_basic/$stem.scf
common=(--elf "$V/elf/$stem.riscv" --spike-rom --params "$scf" --format pcs --encap etrace-encap)
"$spoor" decode "${common[@]}" "$bin" >"$tmp/want.pcs" 2>/dev/null
start_sim --input "$bin"
"$spoor" stream --probe "tcp:127.0.0.1:$port" "${common[@]}" --size "$(stat -c %s "$bin")" \
	-o "$tmp/live.cap" -q >"$tmp/live.pcs" 2>"$tmp/live.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/want.pcs" "$tmp/live.pcs" && ok ||
	fail "stream: exit $rc, pcs differ: $(cat "$tmp/live.err")"
"$spoor" decode "${common[@]}" "$tmp/live.cap" >"$tmp/cap.pcs" 2>/dev/null
cmp -s "$tmp/want.pcs" "$tmp/cap.pcs" && ok || fail "decode of the stream's capture differs"
stop_sims

# Serving: two clients of the raw stream each get every byte from when they joined.
start_sim --input "$tmp/in.raw" --rate 16M
"$spoor" stream --probe "tcp:127.0.0.1:$port" --serve 127.0.0.1:0 --serve-format raw \
	--size "$size" -q 2>"$tmp/serve.err" &
srv=$!
sport=$(port_in "$tmp/serve.err" "spoor stream: serving on ")
exec 3<>"/dev/tcp/127.0.0.1/$sport" 4<>"/dev/tcp/127.0.0.1/$sport"
cat <&3 >"$tmp/c1" &
r1=$!
cat <&4 >"$tmp/c2" &
r2=$!
wait $srv
rc=$?
exec 3<&- 4<&-
wait $r1 $r2
for c in c1 c2; do
	n=$(stat -c %s "$tmp/$c")
	[ $rc -eq 0 ] && [ "$n" -gt $((size / 2)) ] && tail -c "$n" "$tmp/in.raw" | cmp -s - "$tmp/$c" &&
		ok || fail "serve: exit $rc, client $c got $n bytes, not the end of the stream"
done
stop_sims

# A client that reads nothing is dropped with a message once 64 MiB behind;
# the capture and the other client go on to the end.
start_sim --input "$tmp/in.raw" --loop --rate 60M --buffer 64M
"$spoor" stream --probe "tcp:127.0.0.1:$port" --serve 127.0.0.1:0 --serve-format raw \
	--size 120M -q 2>"$tmp/slow.err" &
srv=$!
sport=$(port_in "$tmp/slow.err" "spoor stream: serving on ")
exec 5<>"/dev/tcp/127.0.0.1/$sport" 6<>"/dev/tcp/127.0.0.1/$sport"
cat <&6 >"$tmp/fast" &
r1=$!
wait $srv
rc=$?
exec 5<&- 6<&-
wait $r1
n=$(stat -c %s "$tmp/fast")
[ $rc -eq 0 ] && [ "$n" -gt $((100 << 20)) ] && grep -q "fell more than 64 MiB behind" "$tmp/slow.err" &&
	ok || fail "slow client: exit $rc, the reader got $n bytes: $(cat "$tmp/slow.err")"
stop_sims

# Firmware updates: a good image runs after the update, verified; a
# foreign, damaged or cut image is refused before anything is sent.
head -c 200000 /dev/urandom >"$tmp/body"
"$fwimage" --version 1.2.3 -o "$tmp/good.img" "$tmp/body" && ok || fail "spoor-fwimage"
"$fwimage" --version 1.3.0 -o "$tmp/next.img" "$tmp/body"
"$fwimage" --version 9.9.9 --target 0x1234 -o "$tmp/foreign.img" "$tmp/body"
cp "$tmp/good.img" "$tmp/bad.img"
printf 'X' | dd of="$tmp/bad.img" bs=1 seek=1000 conv=notrunc 2>/dev/null
head -c 100000 "$tmp/good.img" >"$tmp/cut.img"
start_sim --flash "$tmp/flash.bin"
expect 0 "firmware 1.0.0 -> 1.2.3, verified" -- "$spoor" flash --probe "tcp:127.0.0.1:$port" \
	"$tmp/good.img"
expect 2 "the image is for another probe" -- "$spoor" flash -q --probe "tcp:127.0.0.1:$port" \
	"$tmp/foreign.img"
expect 2 "the image is damaged" -- "$spoor" flash -q --probe "tcp:127.0.0.1:$port" "$tmp/bad.img"
expect 2 "length does not match" -- "$spoor" flash -q --probe "tcp:127.0.0.1:$port" "$tmp/cut.img"
expect 2 "not an image file" -- "$spoor" flash --probe "tcp:127.0.0.1:$port" "$tmp"
expect 0 "firmware 1.2.3 -> 1.3.0, verified" -- "$spoor" flash --probe "tcp:127.0.0.1:$port" \
	"$tmp/next.img"
stop_sims
# The flash file keeps the update: a new sim on it runs 1.3.0.
start_sim --flash "$tmp/flash.bin"
expect 0 "firmware 1.3.0 -> 1.2.3, verified" -- "$spoor" flash --probe "tcp:127.0.0.1:$port" \
	"$tmp/good.img"
stop_sims

finish
