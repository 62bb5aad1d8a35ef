#!/bin/bash
# spoor profile on a virtual-board run: the calls to each function are the
# call instructions the ISS retired (jal/jalr writing ra or t0, counted by
# the function of their target), the folded stacks sum to the decoded
# instruction count, callgrind_annotate reads the callgrind file and its
# PROGRAM TOTALS are that count; bad arguments and failed writes exit 2,
# and a failed run leaves the -o file as it was.
# usage: test_profile.sh SPOOR ISS_RUN OBJDUMP NM BOARD PROG.elf
set -u
spoor=$1 iss_run=$2 objdump=$3 nm=$4 board=$5 elf=$6
. "$(dirname "$0")/lib.sh"
dec=(--board "$board" --elf "$elf" --unsynced)

# The run, traced from the program's entry, and the ISS's account of it.
"$iss_run" --trace "$tmp/iss.tr" "$elf" >/dev/null 2>&1
entry=$(grep -m1 -n '^R 80000000$' "$tmp/iss.tr" | cut -d: -f1)
timeout 120 "$spoor" virt --board "$board" --trace-on-start --capture "$tmp/cap" --exit "$elf" \
	>/dev/null 2>"$tmp/virt.err"
[ -s "$tmp/cap" ] && [ -n "$entry" ] && ok || fail "no capture or no entry: $(cat "$tmp/virt.err")"
"$spoor" decode "${dec[@]}" --stats --format pcs "$tmp/cap" >/dev/null 2>"$tmp/stats"
insns=$(sed -n 's/^instructions: \([0-9]*\)$/\1/p' "$tmp/stats")
[ -n "$insns" ] && [ "$insns" -gt 0 ] && ok || fail "no instruction count: $(cat "$tmp/stats")"

# Calls per function: the ISS's truth against the top-N of every function.
"$objdump" -d "$elf" >"$tmp/dis"
"$nm" -S "$elf" >"$tmp/nm"
tail -n +"$entry" "$tmp/iss.tr" >"$tmp/run.tr"
python3 - "$tmp/dis" "$tmp/nm" "$tmp/run.tr" >"$tmp/want" <<'PY' || fail "truth script"
import re, sys
dis, nm, tr = sys.argv[1:4]
raw = {}
for line in open(dis):
    m = re.match(r'\s*([0-9a-f]+):\s+([0-9a-f]+)\s', line)
    if m:
        raw[int(m.group(1), 16)] = int(m.group(2), 16)
syms = []
for line in open(nm):
    f = line.split()
    if len(f) == 4 and f[2] in 'tTwW':
        syms.append((int(f[0], 16), int(f[1], 16), f[3]))
    elif len(f) == 3 and f[1] in 'tTwW':
        syms.append((int(f[0], 16), 0, f[2]))
starts = {a for a, _, _ in syms}
def func_of(t):
    if t in starts:
        return t
    best = None
    for a, size, _ in syms:
        if a <= t and (size == 0 or t < a + size) and (best is None or a > best):
            best = a
    return best if best is not None else t & ~0xfff
def is_call(w):
    if w & 3 == 3:
        op, rd = w & 0x7f, (w >> 7) & 31
        return op in (0x6f, 0x67) and rd in (1, 5)
    # c.jalr (rs1 != 0, rs2 = 0); c.jal is RV32 only
    if w & 0xf003 == 0x9002 and (w >> 7) & 31 and not (w >> 2) & 31:
        return True
    return XLEN32 and w & 0xe003 == 0x2001
XLEN32 = 'elf32' in open(dis).read(4096)
# "R pc" retired, "E pc ..." an exception at pc (a call's target that faulted).
log = [(l[0], int(l.split()[1], 16)) for l in open(tr) if l[:2] in ('R ', 'E ', 'I ')]
count = {}
for i in range(len(log) - 1):
    w = raw.get(log[i][1]) if log[i][0] == 'R' else None
    if w is not None and is_call(w):
        f = func_of(log[i + 1][1])
        count[f] = count.get(f, 0) + 1
for f in sorted(count):
    print('%x %d' % (f, count[f]))
PY
"$spoor" profile "${dec[@]}" --top 0 "$tmp/cap" >"$tmp/top" 2>"$tmp/err"
[ $? -eq 0 ] && ok || fail "spoor profile --top 0: $(cat "$tmp/err")"
# spoor's names to addresses (a pseudo function "0x4000000?" is its page).
python3 - "$tmp/nm" "$tmp/top" >"$tmp/got" <<'PY' || fail "reading the top-N"
import sys
addr = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 3 and f[-2] in 'tTwW':
        addr.setdefault(f[-1], int(f[0], 16))
got = {}
for line in open(sys.argv[2]).readlines()[2:]:
    f = line.split()
    calls, name = int(f[4]), f[-1]
    if not calls:
        continue
    a = int(name[:-1], 16) if name.endswith('?') else addr[name]
    got[a] = got.get(a, 0) + calls
for a in sorted(got):
    print('%x %d' % (a, got[a]))
PY
[ -s "$tmp/want" ] && ok || fail "the ISS retired no calls"
cmp -s "$tmp/want" "$tmp/got" && ok ||
	fail "calls per function differ from the ISS (want, got): $(diff "$tmp/want" "$tmp/got" | head -8)"
grep -q "^instructions: $insns," "$tmp/top" && ok || fail "top's total is not $insns: $(head -1 "$tmp/top")"

# Folded stacks (the format from the file name) sum to the instruction count.
run 0 "" -- "$spoor" profile "${dec[@]}" -o "$tmp/prof.folded" "$tmp/cap"
sum=$(awk '{ s += $NF } END { print s + 0 }' "$tmp/prof.folded")
[ "$sum" = "$insns" ] && ok || fail "folded stacks sum to $sum, not $insns"
awk '$NF !~ /^[0-9]+$/ || NF < 2 { bad = 1 } END { exit bad }' "$tmp/prof.folded" && ok ||
	fail "a folded line is not 'stack count'"

# callgrind: callgrind_annotate's PROGRAM TOTALS are the instruction count.
run 0 "" -- "$spoor" profile "${dec[@]}" -o "$tmp/callgrind.out.1" "$tmp/cap"
grep -q '^events: Ir' "$tmp/callgrind.out.1" && ok || fail "no callgrind header"
if command -v callgrind_annotate >/dev/null; then
	for inc in no yes; do
		callgrind_annotate --inclusive=$inc "$tmp/callgrind.out.1" >"$tmp/ann" 2>"$tmp/ann.err"
		tot=$(sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$tmp/ann" | tr -d ,)
		[ "$tot" = "$insns" ] && ok ||
			fail "callgrind_annotate --inclusive=$inc totals '$tot', not $insns: $(head -3 "$tmp/ann.err")"
	done
else
	echo "SKIP: callgrind_annotate not installed"
fi
run 0 "" -- "$spoor" profile "${dec[@]}" --format callgrind -o "$tmp/p.txt" "$tmp/cap"
cmp -s "$tmp/p.txt" "$tmp/callgrind.out.1" && ok || fail "--format callgrind differs from the name's"

# --top N: N rows after the two header lines.
run 0 "" -- "$spoor" profile "${dec[@]}" --top 3 "$tmp/cap"
[ "$(wc -l <"$tmp/out")" -eq 5 ] && ok || fail "--top 3 gave $(wc -l <"$tmp/out") lines"

# Two captures merged: every count doubles.
run 0 "" -- "$spoor" profile "${dec[@]}" --format folded "$tmp/cap" "$tmp/cap"
sum=$(awk '{ s += $NF } END { print s + 0 }' "$tmp/out")
[ "$sum" = $((2 * insns)) ] && ok || fail "two captures fold to $sum, not $((2 * insns))"

# Bad use and failed writes: exit 2, one line.
expect 2 "format" -- "$spoor" profile "${dec[@]}" --format nope "$tmp/cap"
expect 2 "top" -- "$spoor" profile "${dec[@]}" --top -1 "$tmp/cap"
expect 2 "cannot write '/nonexistent/dir/x.folded'" -- "$spoor" profile "${dec[@]}" \
	-o /nonexistent/dir/x.folded "$tmp/cap"
# A failed run leaves the file at -o as it was.
echo keep >"$tmp/keep.folded"
expect 2 "" -- "$spoor" profile "${dec[@]}" -o "$tmp/keep.folded" "$tmp/nonexistent.cap"
[ "$(cat "$tmp/keep.folded")" = keep ] && ok || fail "a failed run changed the -o file"
if [ -w /dev/full ]; then
	expect 2 "writing /dev/full" -- "$spoor" profile "${dec[@]}" --format folded -o /dev/full \
		"$tmp/cap"
	expect 2 "writing standard output" -- bash -c '"$@" >/dev/full' - "$spoor" profile \
		"${dec[@]}" "$tmp/cap"
fi
finish
