#!/bin/bash
# The spoor command end to end against the sim probe as an emulated USB
# device (spoor-probe-sim --usb) and FT2232H (--ftdi) under umockdev, through
# the real libusb and libftdi1 code paths: what tests/cli/test_probe_tcp.sh
# does over TCP, over USB (tests/usb/CMakeLists.txt registers usb.cli.*).
# usage: test_cli_usb.sh SPOOR SIM FWIMAGE DFU_UTIL WORKDIR CASE [ARGS...]
#   CASE: probes capture drop unplug gone sigint flash ftdi
#         encap ELF PARAMS REFERENCE.gz STREAM [DECODE OPTIONS...]
set -u

# The inner parts, run as the emulator's COMMAND (under the testbed).
if [ "${1:-}" = inner ]; then
	what=$2 spoor=$3 dfu=$4 dir=$5
	. "$(dirname "$0")/../cli/lib.sh"
	case $what in
	sigint)
		# SIGINT during a capture: the probe drains, the file reads clean.
		"$spoor" capture --probe usb -o "$dir/int.cap" -q 2>"$dir/int.err" &
		cap=$!
		sleep 1
		kill -INT $cap
		wait $cap
		rc=$?
		[ $rc -eq 0 ] && ok || fail "SIGINT: exit $rc: $(cat "$dir/int.err")"
		;;
	flash)
		# probes FIRMWARE: spoor probes lists usb:SIM0001 running FIRMWARE.
		probes() {
			"$spoor" probes >"$tmp/probes" 2>&1
			grep -q "^usb:SIM0001  *1209:0001 .* firmware $1 " "$tmp/probes" &&
				! grep -q "DFU mode" "$tmp/probes" && ok ||
				fail "spoor probes, not firmware $1: $(cat "$tmp/probes")"
		}
		# Detaches with stock dfu-util: the probe comes back in DFU mode.
		detach() {
			"$dfu" -d 1209:0001 -e >"$tmp/dfu" 2>&1 || fail "dfu-util -e: $(cat "$tmp/dfu")"
			for _ in $(seq 50); do
				"$spoor" probes >"$tmp/probes" 2>&1
				grep -q "^usb:SIM0001  *1209:0001 .*(DFU mode" "$tmp/probes" && break
				sleep 0.1
			done
			grep -q "(DFU mode" "$tmp/probes" && ok ||
				fail "not in DFU mode after dfu-util -e: $(cat "$tmp/probes")"
		}
		probes 1.0.0
		# DETACH, USB reset, DFU mode, download, read back, reset: it runs.
		expect 0 "usb:SIM0001: firmware 1.0.0 -> 1.2.3, verified" -- \
			"$spoor" flash --probe usb "$dir/good.img"
		grep -q "switching into DFU mode" "$tmp/err" &&
			grep -q "reading back 100%" "$tmp/err" && ok ||
			fail "flash progress: $(cat "$tmp/err")"
		probes 1.2.3
		expect 2 "the image is for another probe" -- \
			"$spoor" flash -q --probe usb "$dir/foreign.img"
		expect 2 "the image is damaged" -- "$spoor" flash -q --probe usb "$dir/bad.img"
		expect 2 "the image is damaged" -- "$spoor" flash --probe usb "$dir/bad.img"
		probes 1.2.3
		# Left in DFU mode: named by serial, or alone, it still takes an image.
		detach
		expect 0 "usb:SIM0001: firmware 1.2.3 -> 1.3.0, verified" -- \
			"$spoor" flash --probe usb:SIM0001 "$dir/next.img"
		probes 1.3.0
		detach
		expect 0 "usb:SIM0001: firmware 1.3.0 -> 1.2.3, verified" -- \
			"$spoor" flash --probe usb "$dir/good.img"
		probes 1.2.3
		;;
	esac
	finish
	exit
fi

spoor=$1 sim=$2 fwimage=$3 dfu=$4 work=$5 case=$6
shift 6
name=$case
b=$(basename "${4:-x}") # encap: STEM.V_..., its directory encap.STEM.V
[ "$case" = encap ] && b=${b#*.} && name=encap.$(basename "$4" ".$b").${b%%_*}
dir=$work/$name

# umockdev 0.17's uevent sender aborts the emulator when a client's event
# socket vanishes between its glob and connect, or its reader closes before
# sendmsg (a client re-binding its udev monitor as the probe re-enumerates,
# a dfu-util exiting; upstream's sendmsg_one only ignores ECONNREFUSED at
# connect): a run that died of that alone is run again, twice at most.
UMOCKDEV_RACE="sendmsg_one: (cannot connect to client's event socket|sendmsg failed)"
if [ "${SPOOR_CLI_USB_TRY:-}" = "" ]; then
	mkdir -p "$work" || exit 1
	for try in 1 2 3; do
		SPOOR_CLI_USB_TRY=$try "$0" "$spoor" "$sim" "$fwimage" "$dfu" "$work" "$case" "$@" \
			>"$work/$name.log" 2>&1
		rc=$?
		if [ $rc -eq 0 ] ||
		   ! grep -qE "$UMOCKDEV_RACE" "$dir/sim.err" "$work/$name.log" 2>/dev/null; then
			break
		fi
		cat "$work/$name.log"
		echo "(the umockdev uevent race killed the emulator: running again)"
	done
	cat "$work/$name.log"
	exit $rc
fi

rm -rf "$dir"
mkdir -p "$dir" || exit 1
# The testbed goes under the build directory (an aborted run leaves it
# there), unless that is too deep for its sockets' paths (108 bytes with
# "/umockdev.XXXXXX/ioctl/dev/bus/usb/001/002": connecting then fails, and
# libusb says "Other error"): then under /tmp.
tb=$dir
if [ ${#tb} -gt 60 ]; then
	tb=$(mktemp -d /tmp/spoor-usb.XXXXXX) || exit 1
fi
export TMPDIR="$tb"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
. "$(dirname "$0")/../cli/lib.sh"
trap 'rm -rf "$tmp"; [ "$tb" = "$dir" ] || rm -rf "$tb"' EXIT

# usbsim SIM-OPTIONS... -- COMMAND...: the emulator, its stderr kept in sim.err too.
usbsim() {
	timeout 60 "$sim" "$@" 2>"$dir/sim.last"
	local rc=$?
	cat "$dir/sim.last" >>"$dir/sim.err"
	cat "$dir/sim.last" >&2
	return $rc
}

# The number N in "... gone (unplugged?) after N trace bytes" on stderr.
gone_after() {
	sed -n 's/.*the probe is gone (unplugged?) after \([0-9]*\) trace bytes.*/\1/p' "$tmp/err"
}

# raw FILE.cap OUT.raw: the trace bytes of a capture file.
raw() {
	"$spoor" capture --probe "file:$1" --format raw -o "$2" -q 2>/dev/null
}

in=$dir/in.raw
size=$((24 << 20))
case $case in
probes | capture | drop | unplug | gone | sigint)
	head -c $size /dev/urandom >"$in"
	;;
esac

case $case in
probes)
	# The probe, its firmware and capabilities; the serial it was given.
	expect 0 "" -- usbsim --usb -- "$spoor" probes
	want="^usb:SIM0001  *1209:0001  spoor trace probe (sim)  firmware 1\.0\.0  "
	want+="widths 1,2,4,8,16 ddr falling-edge dfu  buffer 8192 KiB$"
	grep -q "$want" "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 1 ] && ok ||
		fail "spoor probes: $(cat "$tmp/out")"
	expect 0 "" -- usbsim --usb --serial PROBE42 -- "$spoor" probes
	grep -q "^usb:PROBE42  *1209:0001 .*firmware 1\.0\.0 " "$tmp/out" &&
		! grep -q SIM0001 "$tmp/out" && ok || fail "spoor probes --serial: $(cat "$tmp/out")"
	# The address it lists is the one to capture from; another serial is not there.
	expect 0 "" -- usbsim --usb --serial PROBE42 --input "$in" -- "$spoor" capture \
		--probe usb:PROBE42 --format raw -o "$dir/p.raw" --size 1000000 -q
	cmp -s -n 1000000 "$in" "$dir/p.raw" && ok || fail "capture from usb:PROBE42 differs"
	expect 2 "usb:NOPE: no spoor probe with that serial attached (there is: PROBE42)" -- \
		usbsim --usb --serial PROBE42 -- "$spoor" capture --probe usb:NOPE -o "$dir/x.cap"
	# The FT2232H is not a spoor probe: no usb line for it.
	expect 0 "" -- usbsim --ftdi -- "$spoor" probes
	! grep -q "^usb:" "$tmp/out" && ok || fail "a usb probe listed under --ftdi: $(cat "$tmp/out")"
	;;
capture)
	# 24 MiB through the probe into a capture file, then out as raw: identical.
	expect 0 "" -- usbsim --usb --input "$in" -- "$spoor" capture --probe usb -o "$dir/c.cap" \
		--size $size
	grep -q "25.2 MB trace bytes into $dir/c.cap; 0 overflows (0 B lost), 0 unplugs" \
		"$tmp/err" && ok || fail "summary: $(cat "$tmp/err")"
	raw "$dir/c.cap" "$dir/out.raw"
	cmp -s "$in" "$dir/out.raw" && ok || fail "capture over usb: bytes differ"
	grep -aq "probe=usb:SIM0001" "$dir/c.cap" && grep -aq "serial=SIM0001" "$dir/c.cap" &&
		ok || fail "capture header lacks the probe"
	# Straight to raw as well.
	expect 0 "" -- usbsim --usb --input "$in" -- "$spoor" capture --probe usb:SIM0001 \
		--format raw -o "$dir/direct.raw" --size $size -q
	cmp -s "$in" "$dir/direct.raw" && ok || fail "raw capture over usb: bytes differ"
	# Without scatter-gather libusb splits each transfer into 16 KiB URBs.
	head -c $((4 << 20)) "$in" >"$dir/in4.raw"
	export SPOOR_USB_EMU_NO_SG=1
	expect 0 "" -- usbsim --usb --input "$dir/in4.raw" -- "$spoor" capture --probe usb \
		--format raw -o "$dir/split.raw" --size $((4 << 20)) -q
	unset SPOOR_USB_EMU_NO_SG
	cmp -s "$dir/in4.raw" "$dir/split.raw" && ok || fail "capture in 16 KiB URBs: bytes differ"
	;;
drop)
	# A loss of 1000 bytes at trace offset 5000000: reported there, exactly.
	run 1 "1 overflow (1.0 kB lost)" -- usbsim --usb --input "$in" --drop-at 5000000:1000 -- \
		"$spoor" capture --probe usb -o "$dir/loss.cap" --size $size
	"$spoor" dump --format json "$dir/loss.cap" 2>/dev/null | grep '"event":"lost"' >"$tmp/lost"
	grep -q '"offset":5000000,.*"bytes":1000' "$tmp/lost" && [ "$(wc -l <"$tmp/lost")" -eq 1 ] &&
		ok || fail "loss event: $(cat "$tmp/lost")"
	raw "$dir/loss.cap" "$dir/loss.raw"
	{ head -c 5000000 "$in"; tail -c +5001001 "$in"; } | cmp -s - "$dir/loss.raw" &&
		ok || fail "the bytes around the loss differ"
	;;
unplug)
	# Unplugged after 4 MB of bulk bytes, back 300 ms later: a message, every
	# byte it sent before kept, capturing again from the probe's new start.
	run 1 "back; capturing again" -- usbsim --usb --input "$in" --unplug-after 4000000 \
		--replug-ms 300 -- "$spoor" capture --probe usb -o "$dir/unplug.cap" --size 8000000
	grep -q "1 unplug," "$tmp/err" && ok || fail "unplug not counted: $(cat "$tmp/err")"
	n=$(gone_after)
	# 4000000 bulk bytes less the records' headers (3999020 over TCP).
	[ -n "$n" ] && [ "$n" -ge 3990000 ] && [ "$n" -le 4000000 ] && ok ||
		fail "unplug: '$n' trace bytes before it, not the 4 MB sent: $(cat "$tmp/err")"
	raw "$dir/unplug.cap" "$dir/unplug.raw"
	got=$(stat -c %s "$dir/unplug.raw")
	[ -n "$n" ] && [ "$got" -ge 8000000 ] && cmp -s -n "$n" "$in" "$dir/unplug.raw" &&
		cmp -s -i "$n:0" -n $((got - n)) "$dir/unplug.raw" "$in" && ok ||
		fail "unplug: $got bytes kept; those before ($n) or after the unplug differ"
	;;
gone)
	# Not back within --reconnect 1: exit 1, the bytes so far kept.
	start=$(date +%s)
	run 1 "did not come back in time" -- usbsim --usb --input "$in" --unplug-after 4000000 -- \
		"$spoor" capture --probe usb -o "$dir/gone.cap" --reconnect 1
	[ $(($(date +%s) - start)) -le 6 ] && ok || fail "gone: took $(($(date +%s) - start)) s"
	n=$(gone_after)
	raw "$dir/gone.cap" "$dir/gone.raw"
	got=$(stat -c %s "$dir/gone.raw")
	[ -n "$n" ] && [ "$n" -ge 3990000 ] && [ "$got" -eq "$n" ] &&
		cmp -s -n "$n" "$in" "$dir/gone.raw" && ok ||
		fail "gone: '$n' trace bytes said, $got kept, or they differ: $(cat "$tmp/err")"
	# --reconnect 0: stops at once, the bytes so far kept.
	run 1 "the probe is gone" -- usbsim --usb --input "$in" --unplug-after 2000000 -- \
		"$spoor" capture --probe usb -o "$dir/gone0.cap" --reconnect 0
	n=$(gone_after)
	raw "$dir/gone0.cap" "$dir/gone0.raw"
	got=$(stat -c %s "$dir/gone0.raw")
	[ -n "$n" ] && [ "$n" -ge 1990000 ] && [ "$got" -eq "$n" ] &&
		cmp -s -n "$n" "$in" "$dir/gone0.raw" && ok ||
		fail "gone, --reconnect 0: '$n' trace bytes said, $got kept, or they differ"
	;;
sigint)
	expect 0 "" -- usbsim --usb --input "$in" --rate 4M --loop -- \
		"$0" inner sigint "$spoor" "$dfu" "$dir"
	raw "$dir/int.cap" "$dir/int.raw"
	got=$(stat -c %s "$dir/int.raw")
	[ "$got" -gt 1000000 ] && [ "$got" -le $size ] && cmp -s -n "$got" "$in" "$dir/int.raw" &&
		ok || fail "SIGINT: $got bytes in the capture, or they differ"
	;;
flash)
	head -c 200000 /dev/urandom >"$dir/body"
	"$fwimage" --version 1.2.3 -o "$dir/good.img" "$dir/body" &&
		"$fwimage" --version 1.3.0 -o "$dir/next.img" "$dir/body" &&
		"$fwimage" --version 9.9.9 --target 0x1234 -o "$dir/foreign.img" "$dir/body" &&
		ok || fail "spoor-fwimage"
	cp "$dir/good.img" "$dir/bad.img"
	printf 'X' | dd of="$dir/bad.img" bs=1 seek=1000 conv=notrunc 2>/dev/null
	run 0 "" -- usbsim --usb --flash "$dir/flash.bin" -- "$0" inner flash "$spoor" "$dfu" "$dir"
	[ -s "$tmp/out" ] && cat "$tmp/out"
	# The flash file keeps the update: a new probe on it runs 1.2.3.
	expect 0 "" -- usbsim --usb --flash "$dir/flash.bin" -- "$spoor" probes
	grep -q "^usb:SIM0001  *1209:0001 .* firmware 1\.2\.3 " "$tmp/out" && ok ||
		fail "after the updates: $(cat "$tmp/out")"
	;;
ftdi)
	# The FT2232H is listed, its address takes a capture; channel B's bytes
	# come out identical (2 status bytes per 512-byte packet stripped).
	head -c $(((4 << 20) + 12345)) /dev/urandom >"$dir/f.raw"
	fsize=$(stat -c %s "$dir/f.raw")
	expect 0 "" -- usbsim --ftdi --serial FT77 -- "$spoor" probes
	grep -q "^ftdi:FT77  *0403:6010 .*widths 8 " "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
		ok || fail "spoor probes under --ftdi: $(cat "$tmp/out")"
	addr=$(awk 'NR == 1 { print $1 }' "$tmp/out")
	expect 0 "" -- usbsim --ftdi --input "$dir/f.raw" -- "$spoor" capture --probe ftdi \
		--port-width 8 --format raw -o "$dir/out.raw" --size "$fsize" -q
	cmp -s "$dir/f.raw" "$dir/out.raw" && ok || fail "ftdi raw capture: bytes differ"
	for probe in "$addr" ftdi:FT77:B; do
		expect 0 "" -- usbsim --ftdi --serial FT77 --input "$dir/f.raw" -- "$spoor" capture \
			--probe "$probe" --port-width 8 -o "$dir/f.cap" --size "$fsize" -q
		raw "$dir/f.cap" "$dir/f.out"
		cmp -s "$dir/f.raw" "$dir/f.out" && ok || fail "ftdi capture from $probe: bytes differ"
	done
	expect 2 "ftdi:NOPE: no FT2232H/FT232H with that serial attached (there is: FT77)" -- \
		usbsim --ftdi --serial FT77 -- "$spoor" capture --probe ftdi:NOPE --port-width 8 \
		-o "$dir/x.cap"
	;;
encap)
	# spoor stream over the probe gives the same pcs as spoor decode of the
	# file (and as the reference decoder), and so does the capture it leaves.
	elf=$1 params=$2 ref=$3 bin=$4
	shift 4
	common=(--elf "$elf" --spike-rom --params "$params" --format pcs "$@")
	"$spoor" decode "${common[@]}" "$bin" >"$dir/want.pcs" 2>"$dir/want.err" &&
		gzip -dc "$ref" | cmp -s - "$dir/want.pcs" && ok ||
		fail "spoor decode of $bin differs from $ref: $(cat "$dir/want.err")"
	expect 0 "" -- usbsim --usb --input "$bin" -- "$spoor" stream --probe usb "${common[@]}" \
		--size "$(stat -c %s "$bin")" -o "$dir/live.cap" -q
	cmp -s "$dir/want.pcs" "$tmp/out" && ok ||
		fail "stream over usb: pcs differ ($(wc -l <"$tmp/out") lines, $(wc -l <"$dir/want.pcs") wanted)"
	raw "$dir/live.cap" "$dir/live.raw"
	cmp -s "$bin" "$dir/live.raw" && ok || fail "the stream's capture: bytes differ"
	"$spoor" decode "${common[@]}" "$dir/live.cap" 2>/dev/null | cmp -s "$dir/want.pcs" - &&
		ok || fail "decode of the stream's capture differs"
	;;
*)
	echo "unknown case $case"
	exit 2
	;;
esac

# Nothing of the testbed is left behind.
if ls -d "$tb"/umockdev.* >/dev/null 2>&1; then
	fail "testbed directory left behind: $(ls -d "$tb"/umockdev.*)"
fi
# Its files are kept for a look when it failed.
finish && rm -rf "$dir"
