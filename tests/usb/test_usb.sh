#!/bin/sh
# One case of the emulated USB device tests: spoor-probe-sim --usb / --ftdi
# with a stock client as its COMMAND (tests/usb/CMakeLists.txt).
# usage: test_usb.sh CASE SIM USB_CLIENT FTDI_CLIENT DFU_UTIL WORKDIR
#        test_usb.sh dfu_inner USB_CLIENT DFU_UTIL DIR (the COMMAND of dfu_*)
set -u

# dfu_inner: under the testbed, update the probe with stock dfu-util.
if [ "$1" = dfu_inner ]; then
	client=$2 dfu=$3 dir=$4 mode=$5
	"$client" version 0x010000 || exit 1
	if [ "$mode" = good ]; then
		"$client" mkimage "$dir/image.bin" 0x010203 100000 || exit 1
		"$dfu" -d 1209:0001 -E 1 -R -D "$dir/image.bin" >"$dir/dfu.log" 2>&1 ||
			{ cat "$dir/dfu.log"; echo "dfu-util failed"; exit 1; }
		"$client" version 0x010203 || { cat "$dir/dfu.log"; exit 1; }
		# UPLOAD gives the running image back.
		"$dfu" -d 1209:0001 -E 1 -R -U "$dir/up.bin" >"$dir/up.log" 2>&1 ||
			{ cat "$dir/up.log"; echo "dfu-util -U failed"; exit 1; }
		cmp "$dir/image.bin" "$dir/up.bin" || { cat "$dir/up.log"; exit 1; }
		"$client" version 0x010203 || exit 1
	else
		"$client" mkimage "$dir/image.bin" 0x020000 100000 corrupt || exit 1
		# dfu-util 0.11 exits 0 even so: the device's dfuERROR tells.
		"$dfu" -d 1209:0001 -E 1 -R -D "$dir/image.bin" >"$dir/dfu.log" 2>&1
		if ! grep -q 'dfuERROR' "$dir/dfu.log"; then
			cat "$dir/dfu.log"
			echo "the probe took a corrupt image"
			exit 1
		fi
		"$client" version 0x010000 || { cat "$dir/dfu.log"; exit 1; }
	fi
	exit 0
fi

case=$1 sim=$2 client=$3 ftdi=$4 dfu=$5 dir=$6/$1
rm -rf "$dir"
mkdir -p "$dir" || exit 1
# The testbed goes under the build directory (an aborted run leaves it there).
export TMPDIR="$dir"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
data=$dir/data.bin
rc=0
case $case in
stream)
	# 8 MiB through a 1 MiB capture buffer: the trace port waits for room.
	"$client" gen "$data" 8388608 &&
		"$sim" --usb --buffer 1M --input "$data" -- "$client" stream "$data" || rc=1
	;;
stream_split)
	# No scatter-gather: libusb splits each transfer into 16 KiB URBs.
	"$client" gen "$data" 1048576 &&
		SPOOR_USB_EMU_NO_SG=1 "$sim" --usb --input "$data" -- "$client" stream "$data" ||
		rc=1
	;;
unplug)
	"$client" gen "$data" 1048576 &&
		"$sim" --usb --input "$data" --unplug-after 300000 --replug-ms 200 \
			-- "$client" unplug "$data" || rc=1
	;;
dfu_list)
	"$sim" --usb --serial DFU0042 -- "$dfu" -l >"$dir/out" 2>&1 || rc=1
	cat "$dir/out"
	grep -q 'Found Runtime: \[1209:0001\].*serial="DFU0042"' "$dir/out" || rc=1
	;;
dfu_update)
	"$sim" --usb --flash "$dir/flash" -- "$0" dfu_inner "$client" "$dfu" "$dir" good || rc=1
	;;
dfu_corrupt)
	"$sim" --usb --flash "$dir/flash" -- "$0" dfu_inner "$client" "$dfu" "$dir" bad || rc=1
	;;
ftdi)
	"$client" gen "$data" 2097152 &&
		"$sim" --ftdi --input "$data" -- "$ftdi" "$data" || rc=1
	;;
*)
	echo "unknown case $case"
	exit 2
	;;
esac
# Nothing of the testbed is left behind.
if ls -d "$dir"/umockdev.* >/dev/null 2>&1; then
	echo "testbed directory left behind: $(ls -d "$dir"/umockdev.*)"
	rc=1
fi
[ $rc -eq 0 ] && echo "PASS usb.$case" || echo "FAIL usb.$case"
exit $rc
