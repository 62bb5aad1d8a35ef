#!/bin/bash
# spoor's disassembly against objdump -d's, instruction by instruction: the
# mnemonic and operands (whitespace aside; objdump's trailing "# ..."
# comments, which spoor leaves out, removed).
# usage: test_disasm.sh objdump DISASM_ELF OBJDUMP ELF|DIR...
#   every instruction objdump -d lists in the executable sections of each
#   ELF (a DIR stands for its *.elf), disassembled by DISASM_ELF
#   (tests/tools/disasm_elf.c) at the same addresses.
# usage: test_disasm.sh decode SPOOR OBJDUMP VECTORS_DIR
#   spoor decode --format text of a conformance trace: every instruction
#   line ends in the raw bits and objdump's text for that address.
set -u
mode=$1
. "$(dirname "$0")/lib.sh"

# listing ELF: objdump's "ADDR<TAB>TEXT" lines (TEXT with its tabs, no comment).
listing() {
	"$objdump" -d "$1" | awk -F'\t' '
		/^ *[0-9a-f]+:\t/ && NF >= 3 {
			addr = $1; sub(/^ */, "", addr); sub(/:$/, "", addr)
			text = $3
			for (i = 4; i <= NF; i++)
				text = text "\t" $i
			sub(/ # .*$/, "", text)
			print addr "\t" text
		}'
}

# as_code ELF LIST: LIST's lines that objdump shows as data (".word",
# ".short": a $d mapping symbol marks them, e.g. an illegal instruction put
# in with .word) replaced by objdump's text for the same bytes taken as code,
# as spoor takes them, marked with a "~" before the address.  That objdump
# (-b binary: no mapping symbols) has no symbols either: a target address
# is "0x80000100" where spoor gives "80000100 <sym+off>" (see norm).
as_code() {
	local elf=$1 list=$2 arch vma addr text
	arch=riscv:rv64
	"$objdump" -f "$elf" | grep -q 'elf32-' && arch=riscv:rv32
	vma=$("$objdump" -h "$elf" | awk '$2 == ".text" { print $4 }')
	"${objdump%objdump}objcopy" -O binary -j .text "$elf" "$tmp/text.bin"
	while IFS=$'\t' read -r addr text; do
		if [ "${text#.}" != "$text" ]; then
			text=$("$objdump" -D -b binary -m $arch --adjust-vma=0x"$vma" \
				--start-address=0x"$addr" --stop-address=$((0x$addr + 4)) \
				"$tmp/text.bin" | awk -F'\t' '/^ *[0-9a-f]+:\t/ && NF >= 3 {
					t = $3; for (i = 4; i <= NF; i++) t = t "\t" $i
					sub(/ # .*$/, "", t); print t; exit }')
			addr="~$addr"
		fi
		printf '%s\t%s\n' "$addr" "$text"
	done <"$list"
}

# norm WANT GOT: both as "ADDR: TEXT" with every run of blanks one space;
# for WANT's lines marked "~" (see as_code), both without <sym+off> and
# without "0x".
norm() {
	awk -F'\t' -v got="$2" -v want="$1.norm" '
		function blanks(s) { gsub(/[ \t]+/, " ", s); sub(/ $/, "", s); return s }
		{
			w = $2; for (i = 3; i <= NF; i++) w = w "\t" $i
			if ((getline g < got) <= 0)
				g = ""
			sub(/^[^\t]*\t/, "", g)
			addr = $1
			if (addr ~ /^~/) {
				addr = substr(addr, 2)
				sub(/ <[^>]*>$/, "", g); gsub(/0x/, "", w); gsub(/0x/, "", g)
			}
			print addr ": " blanks(w) > want
			print addr ": " blanks(g)
		}' "$1"
}

if [ "$mode" = objdump ]; then
	disasm_elf=$2 objdump=$3
	shift 3
	elfs=()
	for a in "$@"; do
		if [ -d "$a" ]; then
			elfs+=("$a"/*.elf)
		else
			elfs+=("$a")
		fi
	done
	[ ${#elfs[@]} -gt 0 ] && [ -f "${elfs[0]}" ] && ok || fail "no ELF file in $*"
	total=0
	for elf in "${elfs[@]}"; do
		name=$(basename "$elf")
		listing "$elf" >"$tmp/list"
		n=$(wc -l <"$tmp/list")
		[ "$n" -gt 20 ] && ok || fail "$name: objdump lists only $n instructions"
		cut -f1 "$tmp/list" | "$disasm_elf" "$elf" >"$tmp/spoor" 2>"$tmp/err"
		rc=$?
		[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && ok ||
			fail "$name: disasm_elf exit $rc: $(head -3 "$tmp/err")"
		as_code "$elf" "$tmp/list" >"$tmp/code"
		norm "$tmp/code" "$tmp/spoor" >"$tmp/got"
		mv "$tmp/code.norm" "$tmp/want"
		if cmp -s "$tmp/want" "$tmp/got"; then
			ok
		else
			fail "$name: $(diff "$tmp/want" "$tmp/got" | grep -c '^<') of $n" \
				"instructions differ from objdump:" \
				"$(diff "$tmp/want" "$tmp/got" | head -8)"
		fi
		total=$((total + n))
	done
	echo "$total instructions of ${#elfs[@]} programs compared"
elif [ "$mode" = decode ]; then
	spoor=$2 objdump=$3 V=$4
	elf=$V/elf/br_j_asm.riscv
	"$spoor" decode --elf "$elf" --spike-rom --params "$V/itype3_basic/hardware_64.scf" \
		--format text "$V/itype3_basic/br_j_asm.te_inst_raw" >"$tmp/text" 2>"$tmp/err" ||
		fail "spoor decode: exit $?: $(head -3 "$tmp/err")"
	listing "$elf" >"$tmp/list"
	# Each instruction line: "ADDR  [SYM+OFF  ][FILE:LINE  ]RAW  TEXT", RAW
	# padded to 8 characters; objdump gives RAW and TEXT for the ELF's.
	"$objdump" -d "$elf" | awk -F'\t' '/^ *[0-9a-f]+:\t/ && NF >= 3 {
		addr = $1; sub(/^ */, "", addr); sub(/:$/, "", addr)
		raw = $2; sub(/ *$/, "", raw); print addr "\t" raw }' >"$tmp/raw"
	awk -F'\t' -v text="$tmp/text" -v raw="$tmp/raw" '
		BEGIN {
			while ((getline line < raw) > 0) {
				split(line, f, "\t"); bits[f[1]] = f[2]
			}
		}
		{
			t = $2
			for (i = 3; i <= NF; i++)
				t = t "\t" $i
			want[$1] = sprintf("  %-8s  %s", bits[$1], t)
		}
		END {
			while ((getline line < text) > 0) {
				if (line !~ /^[0-9a-f]+  / || index(line, " ") != 17)
					continue
				addr = substr(line, 1, 16); sub(/^0+/, "", addr)
				if (!(addr in want)) {
					other++
					continue
				}
				w = want[addr]
				if (substr(line, length(line) - length(w) + 1) == w) {
					good++
				} else {
					if (bad < 5)
						print "line differs: " line " (objdump: " w ")"
					bad++
				}
			}
			printf "%d lines match objdump, %d differ, %d outside the ELF\n",
				good, bad, other
		}' "$tmp/list" >"$tmp/check"
	cat "$tmp/check"
	grep -q ' 0 differ,' "$tmp/check" && ok || fail "$(grep -v 'lines match' "$tmp/check")"
	good=$(sed -n 's/^\([0-9]*\) lines match.*/\1/p' "$tmp/check")
	[ "${good:-0}" -gt 1000 ] && ok || fail "only ${good:-0} instruction lines checked"
	# The spike ROM's instructions (no ELF) are disassembled too.
	grep -q '^0000000000001000  .*  00000297  auipc	t0,0x0$' "$tmp/text" && ok ||
		fail "spike ROM: $(grep -m1 '^0000000000001000' "$tmp/text")"
else
	fail "unknown mode '$mode'"
fi
finish
