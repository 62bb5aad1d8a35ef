#!/bin/bash
# End-to-end tests of `spoor decode`: options, errors, formats.
# usage: test_decode.sh SPOOR VECTORS_DIR
set -u
spoor=$1 V=$2
. "$(dirname "$0")/lib.sh"

elf=$V/elf/br_j_asm.riscv
scf=$V/itype3_basic/hardware_64.scf
raw=$V/itype3_basic/br_j_asm.te_inst_raw
run() { "$spoor" decode --elf "$elf" --spike-rom --params "$scf" "$@"; }

expect 2 "no program: give it with --elf FILE" -- "$spoor" decode --params "$scf" "$raw"
expect 1 "$tmp/none.elf: " -- "$spoor" decode --elf "$tmp/none.elf" "$raw"
printf 'not an elf at all' >"$tmp/bad.elf"
expect 1 "bad.elf: not an ELF file" -- "$spoor" decode --elf "$tmp/bad.elf" "$raw"
expect 1 "/bin/true: not a RISC-V ELF file" -- "$spoor" decode --elf /bin/true "$raw"
expect 1 "overlaps" -- "$spoor" decode --elf "$elf" --elf "$elf" "$raw"
expect 2 "--options: unknown option 'fast'" -- run --options implicit-return,fast "$raw"
expect 2 "--format: unknown value 'asm' (pcs, text, json)" -- run --format asm "$raw"
expect 2 "--raw: expected FILE@ADDRESS" -- run --raw "$tmp/bad.elf" "$raw"
expect 2 "--mtvec: 'x' is not an address" -- run --mtvec x "$raw"
expect 1 "cannot open '$tmp/nope'" -- run "$tmp/nope"

# pcs: the reference decoder's list; text: one line per instruction plus events.
run --format pcs "$raw" >"$tmp/pcs" 2>"$tmp/err"
gzip -dc "$V/itype3_basic/br_j_asm.decoder.trace.gz" | cmp -s - "$tmp/pcs" && ok || fail "pcs differs"
[ ! -s "$tmp/err" ] && ok || fail "pcs: unexpected stderr: $(cat "$tmp/err")"
run --format text "$raw" >"$tmp/text"
n=$(grep -c '^[0-9a-f]\{16\}  ' "$tmp/text")
[ "$n" -eq "$(wc -l <"$tmp/pcs")" ] && ok || fail "text: $n instruction lines"
grep -q '^0000000080000048  _start+0x8  8282       jalr$' "$tmp/text" && ok || fail "text: symbol/raw/class"
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
grep -q 'resuming at the next sync' "$tmp/err" && ok || fail "damaged: no gap warning: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/badpcs")" -gt 1000 ] && ok || fail "damaged: decoding stopped"

finish
