#!/bin/bash
# End-to-end tests of `spoor dump`: options, errors, formats, encapsulations.
# usage: test_dump.sh SPOOR VECTORS_DIR
set -u
spoor=$1 V=$2
. "$(dirname "$0")/lib.sh"

raw3=$V/itype3_basic/br_j_asm.te_inst_raw
scf3=$V/itype3_basic/hardware_64.scf

# Bad command lines and files: one clear line, non-zero exit.
expect 2 "usage" -- "$spoor"
expect 2 "unknown command 'frobnicate'" -- "$spoor" frobnicate
expect 2 "expected one input FILE" -- "$spoor" dump
expect 2 "unknown option '--frob'" -- "$spoor" dump --frob "$raw3"
expect 2 "option '--format' needs a value" -- "$spoor" dump "$raw3" --format
expect 2 "cannot open '$tmp/nope': No such file" -- "$spoor" dump "$tmp/nope"
expect 2 "unknown encapsulation 'zip'" -- "$spoor" dump --encap zip "$raw3"
expect 2 "--format: unknown value 'xml' (text, json, csv)" -- "$spoor" dump --format xml "$raw3"
expect 2 "'nine' is not a number" -- "$spoor" dump --src-bits nine "$raw3"
expect 2 "from 0 to 16" -- "$spoor" dump --src-bits 17 "$raw3"
expect 2 "expected KEY=VALUE" -- "$spoor" dump --param foo "$raw3"
expect 2 "unknown key" -- "$spoor" dump --param foo_p=1 "$raw3"
expect 2 "$tmp/missing.scf: No such file" -- "$spoor" dump --params "$tmp/missing.scf" "$raw3"
printf '[Required Attributes]\narch_p=0\n# comment\nbogus_p=3\n' >"$tmp/unknown.scf"
expect 2 "unknown.scf:4: key 'bogus_p'" -- "$spoor" dump --params "$tmp/unknown.scf" "$raw3"
printf '[encoder]\niaddress_width_p=65\n' >"$tmp/range.ini"
expect 2 "range.ini:2: key 'iaddress_width_p' = '65': value out of range" -- \
	"$spoor" dump --params "$tmp/range.ini" "$raw3"
printf '[encoder]\niaddress_width_p=sixty\n' >"$tmp/nan.ini"
expect 2 "nan.ini:2: key 'iaddress_width_p' = 'sixty': not a valid value; a number from 1 to 64" -- \
	"$spoor" dump --params "$tmp/nan.ini" "$raw3"
printf '[encoder]\niaddress_width_p=8\niaddress_lsb_p=8\n' >"$tmp/combo.ini"
expect 2 "iaddress_lsb_p must be below" -- "$spoor" dump --params "$tmp/combo.ini" "$raw3"
expect 0 "" -- "$spoor" dump --help

# Text output: one line per packet plus the summary.
"$spoor" dump --params "$scf3" "$raw3" >"$tmp/text" 2>&1
n=$(grep -c ' src 0 ' "$tmp/text")
[ "$n" -eq 802 ] && ok || fail "text: $n packet lines, expected 802"
grep -q '^summary: 802 te_inst packets, 2438 bytes' "$tmp/text" && ok || fail "text summary"
grep -q 'sync-start .*address=0x1000 ' "$tmp/text" && ok || fail "text: sync-start address"
grep -q 'sync-trap .*ecause=2 .*\[exception\]' "$tmp/text" && ok || fail "text: trap"
grep -q 'branch-addr .*address=-0xe branches=11 branch_map=0x400 irreport=1 notify=1 updiscon=1$' "$tmp/text" \
	&& ok || fail "text: branch-addr fields"
grep -q ' addr .*address=+0x0 irreport=1 notify=0 updiscon=1 \[updiscon\]$' "$tmp/text" && ok || fail "text: updiscon meaning"
grep -q 'sync-support .*\[ended_rep\]' "$tmp/text" && ok || fail "text: qual_status"
# The summary's count of each format is the number of its lines (a trap
# packet's subformat must not leak into the format 2 packets after it).
n1=$(grep -c -E ' (branch-addr|branch-map) ' "$tmp/text")
n2=$(grep -c -E ' addr ' "$tmp/text")
grep -q "^  format 1: $n1  format 2: $n2\$" "$tmp/text" && ok || \
	fail "text: summary format counts, want format 1: $n1  format 2: $n2"

# stdin gives the same as the file; JSON has one object per packet.
"$spoor" dump --params "$scf3" - <"$raw3" >"$tmp/text2" 2>&1
cmp -s "$tmp/text" "$tmp/text2" && ok || fail "stdin differs from file"
"$spoor" dump -q --params "$scf3" --format json "$raw3" >"$tmp/json"
n=$(grep -c '^{"offset":[0-9]*,"source":0,"kind":"[a-z-]*",.*}$' "$tmp/json")
[ "$n" -eq 802 ] && ok || fail "json: $n objects, expected 802"
grep -q '"kind":"sync-start".*"address":"0x800".*"target":"0x1000"' "$tmp/json" && ok || fail "json target"

# Encapsulated vectors give the raw stream's packets, foreign source apart.
for stem in br_j_asm towers; do
	scf=$V/itype4_basic/hardware_64.scf
	"$spoor" dump -q --params "$scf" --format csv "$V/itype4_basic/$stem.te_inst_raw" >"$tmp/ref.csv"
	"$spoor" dump -q --params "$scf" --format csv --encap etrace-encap \
		"$V/encap/$stem.A_s0_t0_y0_sync16.bin" >"$tmp/a.csv"
	cmp -s "$tmp/ref.csv" "$tmp/a.csv" && ok || fail "$stem A differs"
	"$spoor" dump -q --params "$scf" --format csv --encap etrace-encap --src-bits 8 \
		--ts-bytes 2 --type-bits 1 --source 5 "$V/encap/$stem.B_s8id5_t2_y1_foreign7_sync50.bin" >"$tmp/b.csv"
	cmp -s "$tmp/ref.csv" "$tmp/b.csv" && ok || fail "$stem B differs"
	"$spoor" dump --params "$scf" --encap etrace-encap --src-bits 8 --ts-bytes 2 --type-bits 1 \
		--source 6 "$V/encap/$stem.B_s8id5_t2_y1_foreign7_sync50.bin" >"$tmp/b6.txt"
	n=$(grep -c ' src 6 ' "$tmp/b6.txt")
	[ "$n" -gt 0 ] && ! grep -q ' src 5 ' "$tmp/b6.txt" && ok || fail "$stem B foreign source"
	"$spoor" dump -q --params "$scf" --format csv --encap etrace-encap --src-bits 6 \
		--type-bits 2 --source 1 "$V/encap/$stem.C_s6id1_t0_y2.bin" >"$tmp/c.csv"
	cmp -s "$tmp/ref.csv" "$tmp/c.csv" && ok || fail "$stem C differs"
done

# A corrupted stream: the loss is reported and decoding resumes.
{ head -c 100 "$V/encap/towers.A_s0_t0_y0_sync16.bin"; printf '\xff\xff'; \
  tail -c +103 "$V/encap/towers.A_s0_t0_y0_sync16.bin"; } >"$tmp/bad.bin"
"$spoor" dump --params "$V/itype4_basic/hardware_64.scf" --encap etrace-encap "$tmp/bad.bin" >"$tmp/bad.txt" 2>&1
grep -q -- '-- sync lost' "$tmp/bad.txt" && ok || fail "corrupt: no sync-loss line"
grep -q -- '-- synchronised ([0-9]* bytes skipped)' "$tmp/bad.txt" && ok || fail "corrupt: no resync line"
grep -q '^summary: .* [1-9][0-9]* skipped' "$tmp/bad.txt" && ok || fail "corrupt: skipped bytes not counted"

# Exit statuses: 0 clean, 1 completed with problems (counted), 2 error.
expect 1 "completed with 1 problem: 1 stream sync loss, 0 bad packets" -- \
	"$spoor" dump -q --params "$V/itype4_basic/hardware_64.scf" --encap etrace-encap "$tmp/bad.bin"
"$spoor" dump -q --params "$scf3" "$raw3" >/dev/null && ok || fail "clean dump: exit $?"
expect 1 "no te_inst packet in 0 bytes (empty input)" -- "$spoor" dump -q /dev/null
head -c 4096 /dev/zero >"$tmp/zeros"
expect 1 "no te_inst packet in 4096 bytes (no frame found" -- \
	"$spoor" dump -q --encap siemens --unsynced "$tmp/zeros"
for f in text json csv; do
	expect 2 "writing output: No space left on device" -- sh -c '"$0" "$@" >/dev/full' \
		"$spoor" dump -q --format $f --params "$scf3" "$raw3"
done
expect 2 "writing output: Bad file descriptor" -- sh -c '"$0" "$@" >&-' \
	"$spoor" dump --params "$scf3" "$raw3"
expect 0 "Exit status: 0 clean" -- sh -c '"$0" dump --help >&2' "$spoor"

finish
