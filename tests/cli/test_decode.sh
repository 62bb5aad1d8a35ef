#!/bin/bash
# End-to-end tests of `spoor decode`: options, errors, formats.
# usage: test_decode.sh SPOOR VECTORS_DIR
set -u
spoor=$1 V=$2
. "$(dirname "$0")/lib.sh"
boards=$(cd "$(dirname "$0")/../../boards" && pwd)

elf=$V/elf/br_j_asm.riscv
scf=$V/itype3_basic/hardware_64.scf
raw=$V/itype3_basic/br_j_asm.te_inst_raw
run() { "$spoor" decode --elf "$elf" --spike-rom --params "$scf" "$@"; }

expect 2 "no program: give it with --elf FILE" -- "$spoor" decode --params "$scf" "$raw"
expect 2 "$tmp/none.elf: " -- "$spoor" decode --elf "$tmp/none.elf" "$raw"
printf 'not an elf at all' >"$tmp/bad.elf"
expect 2 "bad.elf: not an ELF file" -- "$spoor" decode --elf "$tmp/bad.elf" "$raw"
expect 2 "/bin/true: not a RISC-V ELF file" -- "$spoor" decode --elf /bin/true "$raw"
expect 2 "overlaps" -- "$spoor" decode --elf "$elf" --elf "$elf" "$raw"
expect 2 "--options: unknown option 'fast'" -- run --options implicit-return,fast "$raw"
expect 2 "--format: unknown value 'asm' (pcs, text, json)" -- run --format asm "$raw"
expect 2 "--raw: expected FILE@ADDRESS" -- run --raw "$tmp/bad.elf" "$raw"
expect 2 "--mtvec: 'x' is not an address" -- run --mtvec x "$raw"
expect 2 "cannot open '$tmp/nope'" -- run "$tmp/nope"

# pcs: the reference decoder's list; text: one line per instruction plus events.
run --format pcs "$raw" >"$tmp/pcs" 2>"$tmp/err"
gzip -dc "$V/itype3_basic/br_j_asm.decoder.trace.gz" | cmp -s - "$tmp/pcs" && ok || fail "pcs differs"
[ ! -s "$tmp/err" ] && ok || fail "pcs: unexpected stderr: $(cat "$tmp/err")"
run --format text "$raw" >"$tmp/text"
n=$(grep -c '^[0-9a-f]\{16\}  ' "$tmp/text")
[ "$n" -eq "$(wc -l <"$tmp/pcs")" ] && ok || fail "text: $n instruction lines"
grep -q "^0000000080000048  _start+0x8  8282      jr$(printf '\t')t0\$" "$tmp/text" && ok ||
	fail "text: symbol/raw/disassembly"
grep -q '^-- trap exception 2 epc 0x80000222 tval 0x0 (source 0)$' "$tmp/text" && ok || fail "text: trap"
grep -q '^-- sync at 0x1000 (source 0)$' "$tmp/text" && ok || fail "text: sync"
# json: blocks that add up to the instructions, and events.
run --format json "$raw" >"$tmp/json"
sum=$(grep -o '"ninsn":[0-9]*' "$tmp/json" | cut -d: -f2 | awk '{ s += $1 } END { print s }')
[ "$sum" -eq "$(wc -l <"$tmp/pcs")" ] && ok || fail "json: blocks hold $sum instructions"
grep -q '"event":{"kind":"trap".*"cause":7,"interrupt":true' "$tmp/json" && ok || fail "json: interrupt"
grep -q '"end":"taken"' "$tmp/json" && grep -q '"end":"not-taken"' "$tmp/json" && ok ||
	fail "json: branch ends"
# --stats on stderr.
run --stats --format pcs "$raw" 2>"$tmp/stats" >/dev/null
grep -q "^instructions: $(wc -l <"$tmp/pcs")$" "$tmp/stats" && ok || fail "stats: instructions"
grep -q '^gaps: 0 (decoder) + 0 (stream sync losses)$' "$tmp/stats" && ok || fail "stats: gaps"
# stdin, and a load offset moves everything.
run --format pcs - <"$raw" | cmp -s - "$tmp/pcs" && ok || fail "stdin differs"
# A damaged stream: warnings on stderr, decoding goes on.
{ head -c 1200 "$raw"; printf '\x45\xff\xff\xff\xff\x7f'; tail -c +1207 "$raw"; } >"$tmp/bad.raw"
run --format pcs "$tmp/bad.raw" >"$tmp/badpcs" 2>"$tmp/err"
rc=$?
grep -q 'resuming at the next sync' "$tmp/err" && ok || fail "damaged: no gap warning: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/badpcs")" -gt 1000 ] && ok || fail "damaged: decoding stopped"

# ---- exit statuses: 0 clean, 1 completed with gaps (counted on stderr), 2 error ----
[ "$rc" -eq 1 ] && ok || fail "damaged: exit $rc, wanted 1"
grep -q '^spoor decode: completed with [0-9]* problems*: [0-9]* gaps* ' "$tmp/err" && ok ||
	fail "damaged: no count of the problems: $(tail -1 "$tmp/err")"
run --format pcs "$raw" >/dev/null 2>&1 && ok || fail "clean decode: exit $?"
expect 1 "completed with [0-9]* problems*: " -- run -q --format pcs "$tmp/bad.raw"
# The wrong program: gaps, exit 1, not a clean exit.
expect 1 "completed with [0-9]* problems: [0-9]* gaps" -- "$spoor" decode -q --spike-rom \
	--elf "$V/elf/qsort.riscv" --params "$scf" "$V/itype3_basic/dhrystone.te_inst_raw"
# Empty and meaningless inputs say so.
expect 1 "no instruction decoded from 0 bytes (empty input)" -- run /dev/null
: >"$tmp/empty"
expect 1 "no instruction decoded from 0 bytes (empty input)" -- run "$tmp/empty"
head -c 65536 /dev/zero >"$tmp/zeros"
expect 1 "no instruction decoded from 65536 bytes (no packet found" -- \
	run --encap siemens --unsynced "$tmp/zeros"
head -c 65536 /dev/urandom >"$tmp/random"
expect 1 "no instruction decoded from 65536 bytes\|completed with" -- \
	run -q --encap siemens --unsynced "$tmp/random"
# A failed write is an error, in every format, and stops the decode.
big=$V/itype3_basic/dhrystone.te_inst_raw
bigrun() { "$spoor" decode --elf "$V/elf/dhrystone.riscv" --spike-rom --params "$scf" "$@" "$big"; }
for f in pcs text json; do
	expect 2 "writing output: No space left on device" -- sh -c '"$0" "$@" >/dev/full' \
		"$spoor" decode --format $f --elf "$V/elf/dhrystone.riscv" --spike-rom --params "$scf" "$big"
	expect 2 "writing output: Bad file descriptor" -- sh -c '"$0" "$@" >&-' \
		"$spoor" decode --format $f --elf "$V/elf/dhrystone.riscv" --spike-rom --params "$scf" "$big"
done
# A disk that fills up part way (a file size limit of 1 MiB stands in for it).
(trap '' XFSZ; ulimit -f 1024; bigrun --format pcs >"$tmp/cut" 2>"$tmp/err")
rc=$?
[ "$rc" -eq 2 ] && grep -q 'writing output: File too large' "$tmp/err" && ok ||
	fail "full disk: exit $rc: $(cat "$tmp/err")"
[ "$(stat -c %s "$tmp/cut")" -le 1048576 ] && ok || fail "full disk: file not cut"
expect 0 "Exit status: 0 clean; 1 completed, but with gaps" -- sh -c '"$0" decode --help >&2' "$spoor"

# ---- parameter files: bounded, first error, duplicates, no option order ----
expect 2 "$tmp: not a regular file (a directory)" -- "$spoor" decode --elf "$elf" --params "$tmp" "$raw"
expect 2 "$tmp: not a regular file (a directory)" -- "$spoor" decode --elf "$elf" --board "$tmp" "$raw"
expect 2 "/dev/zero: not a regular file (a device)" -- "$spoor" decode --elf "$elf" --params /dev/zero "$raw"
mkfifo "$tmp/fifo"
expect 2 "fifo: not a regular file (a FIFO)" -- timeout 10 "$spoor" decode --elf "$elf" --params "$tmp/fifo" "$raw"
expect 2 "--params given twice" -- run --params "$scf" "$raw"
expect 2 "--board and --params both give the encoder parameters" -- \
	run --board "$boards/virt-rv64.ini" "$raw"
# --param means the same before and after --params.
"$spoor" decode --elf "$elf" --spike-rom --param iaddress_lsb_p=0 --params "$scf" "$raw" \
	>"$tmp/before" 2>&1
run --param iaddress_lsb_p=0 "$raw" >"$tmp/after" 2>&1
cmp -s "$tmp/before" "$tmp/after" && ok || fail "--param before and after --params differ"
! cmp -s "$tmp/after" "$tmp/pcs" && ok || fail "--param iaddress_lsb_p=0 changed nothing"
# The finding: a board file with a second src_bits in [trace].
sed 's/^src_bits = .*/&\nsrc_bits = 8/' "$boards/virt-rv64.ini" >"$tmp/dup.ini"
grep -q '^src_bits' "$boards/virt-rv64.ini" || printf '[trace]\nsrc_bits = 6\nsrc_bits = 8\n' >>"$tmp/dup.ini"
expect 2 "dup.ini:[0-9]*: key 'src_bits' given twice in \[trace\] (first on line [0-9]*)" -- \
	"$spoor" decode --elf "$elf" --board "$tmp/dup.ini" "$raw"
printf '[trace]\nencap = foo\n' >"$tmp/encap.ini"
expect 2 "encap.ini:2: key 'encap' = 'foo': not a valid value; one of raw, siemens, atb, etrace-encap" -- \
	"$spoor" decode --elf "$elf" --board "$tmp/encap.ini" "$raw"
printf 'notime_p=1\n\033[31mnocontext_p=1\n' >"$tmp/esc.scf"
expect 2 "esc.scf:2: byte 0x1b is not text: '\\\\x1b\[31mnocontext_p=1'" -- \
	"$spoor" decode --elf "$elf" --params "$tmp/esc.scf" "$raw"
! grep -q "$(printf '\033')" "$tmp/err" && ok || fail "escape byte printed raw"

# ---- the program against the board and the parameters ----
state=$V/elf/embench-statemate.riscv
expect 2 "'$state' is an RV32 program (ELFCLASS32), but the board's ISA is rv64imac" -- \
	"$spoor" decode --elf "$state" --board "$boards/virt-rv64.ini" "$raw"
expect 2 "'$state' is an RV32 program (ELFCLASS32), but the encoder parameters say iaddress_width_p = 64" -- \
	"$spoor" decode --elf "$state" --params "$scf" "$raw"
printf '[board]\nisa = rv64ima\n[encoder]\niaddress_width_p = 64\n' >"$tmp/noc.ini"
expect 2 "uses compressed instructions (ELF flag RVC), but the board's ISA rv64ima has no C" -- \
	"$spoor" decode --elf "$elf" --board "$tmp/noc.ini" "$raw"
expect 2 "load offset -1 is not a multiple of 2" -- run --elf "$elf@-1" "$raw"
expect 2 "does not fit the address space" -- "$spoor" decode --elf "$elf@-0x80001000" "$raw"
expect 2 "an RV32 program, but the image already holds RV64 programs" -- \
	"$spoor" decode --elf "$elf" --elf "$state" "$raw"
expect 2 "--raw: '$tmp' is not a regular file" -- run --raw "$tmp@0x1000" "$raw"
expect 2 "--raw: '$tmp/empty' has 0 bytes" -- run --raw "$tmp/empty@0x1000" "$raw"

finish
