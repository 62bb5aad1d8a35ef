#!/bin/sh
# The udev rules name the probe's USB IDs as protocols/include/spoor/probe.h
# defines them, with uaccess, and every rule line is well formed.
# usage: check_udev.sh RULES PROBE_H
set -u
rules=$1 header=$2
vid=$(sed -n 's/^#define SPOOR_PROBE_VID 0x\([0-9a-fA-F]*\).*/\1/p' "$header" | tr 'A-F' 'a-f')
pid=$(sed -n 's/^#define SPOOR_PROBE_PID 0x\([0-9a-fA-F]*\).*/\1/p' "$header" | tr 'A-F' 'a-f')
status=0
[ -n "$vid" ] && [ -n "$pid" ] || { echo "FAIL: no SPOOR_PROBE_VID/PID in $header"; exit 1; }
grep -q "ATTR{idVendor}==\"$vid\", ATTR{idProduct}==\"$pid\".*TAG+=\"uaccess\"" "$rules" ||
	{ echo "FAIL: $rules has no rule for $vid:$pid with uaccess"; status=1; }
# Every non-comment line: SUBSYSTEM=="usb", two IDs of four hex digits, a mode.
bad=$(grep -v '^#' "$rules" | grep -v '^$' |
	grep -v '^SUBSYSTEM=="usb", ATTR{idVendor}=="[0-9a-f]\{4\}", ATTR{idProduct}=="[0-9a-f]\{4\}", MODE="0660", GROUP="plugdev", TAG+="uaccess"$')
[ -z "$bad" ] || { echo "FAIL: malformed rule: $bad"; status=1; }
[ "$status" -eq 0 ] && echo "PASS: $vid:$pid"
exit "$status"
