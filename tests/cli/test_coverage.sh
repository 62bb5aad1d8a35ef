#!/bin/bash
# spoor coverage on a virtual board test program: the lcov tracefile and
# the summary against the ISS's retirement log (tests/analysis/
# coverage_check.py: instructions, lines, branches, function entries),
# genhtml renders the tracefile without a warning, two captures merged
# double every count, the program stripped of symbols and lines (summary
# against its segments; lcov refused), a failed run keeps a previous -o
# file, and bad use exits 2 with one line.
# usage: test_coverage.sh SPOOR ISS_RUN BOARD PROG.elf
set -u
spoor=$1 iss_run=$2 board=$3 elf=$4
. "$(dirname "$0")/lib.sh"
check=$(dirname "$0")/../analysis/coverage_check.py
bin=riscv64-unknown-elf

# The run, on the ISS (the truth) and traced on the board.
"$iss_run" --trace "$tmp/iss.tr" "$elf" >/dev/null 2>&1 || fail "iss_run $elf"
timeout 60 "$spoor" virt --board "$board" --trace-on-start --capture "$tmp/cap" --exit "$elf" \
	>/dev/null 2>"$tmp/virt.err"
[ $? -eq 0 ] && ok || fail "spoor virt: $(cat "$tmp/virt.err")"
first=$("$spoor" decode --board "$board" --elf "$elf" --unsynced --format pcs "$tmp/cap" \
	2>/dev/null | head -1)
[ -n "$first" ] && ok || fail "the capture decodes to nothing"

# lcov (-o) and summary (stdout) of the one capture, against the ISS.
run 0 "" -- "$spoor" coverage --board "$board" --elf "$elf" --unsynced -o "$tmp/cov.info" \
	--test-name "board run" "$tmp/cap"
run 0 "" -- "$spoor" coverage --board "$board" --elf "$elf" --unsynced "$tmp/cap"
cp "$tmp/out" "$tmp/summary"
grep -q '^TN:board_run$' "$tmp/cov.info" && ok || fail "no TN:board_run line"
grep -q '^coverage: instructions ' "$tmp/summary" && ok || fail "no totals line in the summary"
if python3 "$check" "$tmp/iss.tr" "$first" "$elf" "$tmp/cov.info" "$tmp/summary" \
	$bin-objdump $bin-nm >"$tmp/check" 2>&1; then
	ok
else
	fail "coverage differs from the ISS: $(cat "$tmp/check")"
fi

# genhtml renders it without a warning: the sources at hand (code without
# them, such as libgcc's, is left out with lcov --remove, as a user does),
# and the whole file with --no-source.
if command -v genhtml >/dev/null; then
	missing=()
	while read -r f; do
		[ -f "$f" ] || missing+=("$f")
	done < <(sed -n 's/^SF://p' "$tmp/cov.info")
	cp "$tmp/cov.info" "$tmp/here.info"
	if [ ${#missing[@]} -gt 0 ]; then
		lcov --quiet --rc lcov_branch_coverage=1 --remove "$tmp/cov.info" "${missing[@]}" \
			-o "$tmp/here.info" >"$tmp/lcov.out" 2>&1 || fail "lcov --remove: $(cat "$tmp/lcov.out")"
	fi
	for how in here nosource; do
		info=$tmp/here.info opt=
		[ $how = nosource ] && info=$tmp/cov.info opt=--no-source
		genhtml $opt --branch-coverage --function-coverage -o "$tmp/html.$how" "$info" \
			>"$tmp/genhtml.out" 2>&1
		rc=$?
		[ $rc -eq 0 ] && [ -f "$tmp/html.$how/index.html" ] && ok ||
			fail "genhtml $opt exited $rc: $(tail -3 "$tmp/genhtml.out")"
		grep -qi 'warning' "$tmp/genhtml.out" && fail "genhtml $opt warns: $(grep -i warning \
			"$tmp/genhtml.out" | head -3)" || ok
	done
else
	echo "genhtml not installed (Debian: lcov): rendering not checked"
fi

# Two captures merged: every count doubles, what was found stays.
run 0 "" -- "$spoor" coverage --board "$board" --elf "$elf" --unsynced --format lcov \
	"$tmp/cap" "$tmp/cap"
awk -F'[:,]' '
	/^DA:/ { print "DA", $2, $3 * 2; next }
	/^FNDA:/ { print "FNDA", $3, $2 * 2; next }
	/^BRDA:/ { print "BRDA", $2, $3, $4, ($5 == "-" ? "-" : $5 * 2); next }
	{ print }' "$tmp/cov.info" | sed 's/^TN:.*/TN:/' >"$tmp/double.want"
awk -F'[:,]' '
	/^DA:/ { print "DA", $2, $3; next }
	/^FNDA:/ { print "FNDA", $3, $2; next }
	/^BRDA:/ { print "BRDA", $2, $3, $4, $5; next }
	{ print }' "$tmp/out" >"$tmp/double.got"
cmp -s "$tmp/double.want" "$tmp/double.got" && ok ||
	fail "merging two captures does not double the counts: $(diff "$tmp/double.want" \
		"$tmp/double.got" | head -4)"

# The program stripped of symbols and DWARF: the summary counts every
# instruction of its executable segments (found beyond what ran, the same
# distinct instructions hit), and lcov, which needs source lines, is
# refused with one line and leaves no file.
$bin-objcopy --strip-all "$elf" "$tmp/stripped.elf" || fail "objcopy --strip-all"
run 0 "" -- "$spoor" coverage --board "$board" --elf "$tmp/stripped.elf" --unsynced "$tmp/cap"
cp "$tmp/out" "$tmp/summary.stripped"
totals() { sed -n 's/^coverage: instructions \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' "$1"; }
read -r hit found < <(totals "$tmp/summary")
read -r shit sfound < <(totals "$tmp/summary.stripped")
[ -n "$shit" ] && [ "$shit" = "$hit" ] && ok ||
	fail "stripped: $shit instructions hit, $hit with symbols"
[ -n "$sfound" ] && [ "$sfound" -gt "$shit" ] && ok ||
	fail "stripped: $shit of $sfound instructions: what never ran is not counted"
grep -q '^0x[0-9a-f]*?  ' "$tmp/summary.stripped" && ok ||
	fail "stripped: no pseudo function rows: $(head -3 "$tmp/summary.stripped")"
want="stripped.elf has no line information (DWARF): lcov needs source lines; --format summary"
expect 2 "$want works without" -- "$spoor" coverage --board "$board" --elf "$tmp/stripped.elf" \
	--unsynced -o "$tmp/stripped.info" "$tmp/cap"
[ ! -e "$tmp/stripped.info" ] && ok || fail "stripped: an lcov file was written"
expect 2 "no line information" -- "$spoor" coverage --board "$board" \
	--elf "$tmp/stripped.elf" --unsynced --format lcov "$tmp/cap"
[ ! -s "$tmp/out" ] && ok || fail "stripped: lcov written to stdout: $(head -2 "$tmp/out")"

# A failed run leaves an existing -o file as it was (and no temporary file).
echo "previous contents" >"$tmp/keep.info"
expect 2 "" -- "$spoor" coverage --board "$board" --elf "$elf" --unsynced -o "$tmp/keep.info" \
	"$tmp/nonexistent.cap"
[ "$(cat "$tmp/keep.info")" = "previous contents" ] && ok ||
	fail "a failed run changed the -o file: $(head -2 "$tmp/keep.info")"
ls "$tmp" | grep -q '^keep\.info\.tmp' && fail "a temporary file was left: $(ls "$tmp")" || ok

# Bad use: one line, exit 2.
expect 2 "--elf" -- "$spoor" coverage --board "$board" --unsynced "$tmp/cap"
expect 2 "cannot write '/nonexistent/dir/cov.info'" -- "$spoor" coverage --board "$board" \
	--elf "$elf" --unsynced -o /nonexistent/dir/cov.info "$tmp/cap"
expect 2 "an empty file name" -- "$spoor" coverage --board "$board" --elf "$elf" --unsynced \
	-o "" "$tmp/cap"
expect 2 "" -- "$spoor" coverage --board "$board" --elf "$elf" --unsynced --format xml \
	"$tmp/cap"
if [ -w /dev/full ]; then
	expect 2 "writing standard output" -- sh -c "exec \"\$0\" coverage --board \"\$1\" \
		--elf \"\$2\" --unsynced \"\$3\" >/dev/full" "$spoor" "$board" "$elf" "$tmp/cap"
fi
finish
