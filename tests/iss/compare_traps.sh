#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Compares the traps of a test program on QEMU's virt machine (as -d int
# logs them: cause, epc, tval, interrupt or not) with those of spoor's ISS
# (iss_run --trace: "E pc cause tval", "I pc cause"), the first N of them;
# for programs that trap for ever, QEMU is stopped once it has logged N.
#
# usage: compare_traps.sh ISS_RUN QEMU_SYSTEM_RISCVxx PROG.elf N
set -eu

if [ $# -ne 4 ]; then
	echo "usage: $0 ISS_RUN QEMU PROG.elf N" >&2
	exit 2
fi
iss_run=$1 qemu=$2 elf=$3 n=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# QEMU: "riscv_cpu_do_interrupt: hart:0, async:A, cause:C, epc:E, tval:T, desc=..."
"$qemu" -M virt -bios none -kernel "$elf" -nographic -monitor none -d int -D "$tmp/q.log" \
	</dev/null >/dev/null 2>&1 &
qpid=$!
for _ in $(seq 200); do
	kill -0 "$qpid" 2>/dev/null || break
	c=$(grep -c riscv_cpu_do_interrupt "$tmp/q.log" 2>/dev/null || true)
	[ "${c:-0}" -ge "$n" ] && break
	sleep 0.05
done
kill "$qpid" 2>/dev/null || true
wait "$qpid" 2>/dev/null || true
sed -n 's/^riscv_cpu_do_interrupt: hart:0, async:\([01]\), cause:\([0-9a-f]*\), epc:0x\([0-9a-f]*\), tval:0x\([0-9a-f]*\),.*/\1 \2 \3 \4/p' \
	"$tmp/q.log" | head -n "$n" |
	awk '{ for (i = 2; i <= 4; i++) { sub(/^0+/, "", $i); if ($i == "") $i = "0" }
	       if ($1 == 1) $4 = "0"; print }' >"$tmp/qemu"

# The ISS: exceptions and interrupts (an interrupt has no tval).
"$iss_run" --max 200000 --trace "$tmp/iss.tr" "$elf" >/dev/null 2>&1 || true
awk '$1 == "E" { print 0, $3, $2, $4 } $1 == "I" { print 1, $3, $2, 0 }' "$tmp/iss.tr" |
	head -n "$n" >"$tmp/iss"

if [ ! -s "$tmp/qemu" ]; then
	echo "FAIL: QEMU logged no trap"
	exit 1
fi
if ! cmp -s "$tmp/qemu" "$tmp/iss"; then
	echo "FAIL: traps differ (async cause epc tval; QEMU < > ISS):"
	diff "$tmp/qemu" "$tmp/iss" | head -20
	exit 1
fi
echo "PASS: $(wc -l <"$tmp/iss") traps as QEMU logs them"
