#!/bin/bash
# spoor calls on a virtual-board run: the JSON tree parses, its roots'
# inclusive counts sum to the decoded instruction count, every node's
# inclusive count is its own plus its children's, --depth limits the
# nesting, the text tree agrees, traps are marked (when the program takes
# any); bad arguments and failed writes exit 2, and a failed run leaves the
# -o file as it was.
# usage: test_calls.sh SPOOR BOARD PROG.elf [TRAPS]   (TRAPS: expect trap nodes)
set -u
spoor=$1 board=$2 elf=$3 traps=${4:-}
. "$(dirname "$0")/lib.sh"
dec=(--board "$board" --elf "$elf" --unsynced)

timeout 120 "$spoor" virt --board "$board" --trace-on-start --capture "$tmp/cap" --exit "$elf" \
	>/dev/null 2>"$tmp/virt.err"
[ -s "$tmp/cap" ] && ok || fail "no capture: $(cat "$tmp/virt.err")"
"$spoor" decode "${dec[@]}" --stats --format pcs "$tmp/cap" >/dev/null 2>"$tmp/stats"
insns=$(sed -n 's/^instructions: \([0-9]*\)$/\1/p' "$tmp/stats")
[ -n "$insns" ] && ok || fail "no instruction count"

run 0 "" -- "$spoor" calls "${dec[@]}" --format json -o "$tmp/calls.json" "$tmp/cap"
python3 -m json.tool "$tmp/calls.json" >/dev/null && ok || fail "the JSON does not parse"
# check.py FILE INSNS MAXDEPTH: sums, nesting, kinds.
cat >"$tmp/check.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
insns, limit = int(sys.argv[2]), int(sys.argv[3])
errs, deepest, kinds = [], 0, set()
def walk(n, depth):
    global deepest
    deepest = max(deepest, depth)
    kinds.add(n['kind'])
    kids = sum(c['insns'] for c in n['children'])
    if not n.get('truncated') and n['insns'] != n['self'] + kids:
        errs.append('%s: insns %d != self %d + children %d' % (n['function'], n['insns'], n['self'], kids))
    if n.get('truncated') and n['children']:
        errs.append('%s: truncated with children' % n['function'])
    for c in n['children']:
        walk(c, depth + 1)
total = 0
for s in doc['sources']:
    total += sum(c['insns'] for c in s['children'])
    for c in s['children']:
        walk(c, 1)
if total != insns or doc['instructions'] != insns:
    errs.append('roots sum to %d (instructions %d), not %d' % (total, doc['instructions'], insns))
if limit and deepest > limit:
    errs.append('nested %d deep, over --depth %d' % (deepest, limit))
print(' '.join(sorted(kinds)))
for e in errs[:5]:
    print('ERROR', e)
sys.exit(1 if errs else 0)
PY
python3 "$tmp/check.py" "$tmp/calls.json" "$insns" 0 >"$tmp/kinds" && ok ||
	fail "JSON tree: $(grep ERROR "$tmp/kinds")"
if [ -n "$traps" ]; then
	grep -qE "trap|interrupt" "$tmp/kinds" && ok || fail "no trap node: $(cat "$tmp/kinds")"
fi

# --depth 1: the bottom frames only, what is below them summed up.
run 0 "" -- "$spoor" calls "${dec[@]}" --format json --depth 1 "$tmp/cap"
python3 "$tmp/check.py" "$tmp/out" "$insns" 1 >"$tmp/k1" && ok ||
	fail "--depth 1: $(grep ERROR "$tmp/k1")"
run 0 "" -- "$spoor" calls "${dec[@]}" --depth 1 "$tmp/cap"
awk 'NR > 1 && !/^  [^ ]/ && !/^    \.\.\. / { bad = 1 } END { exit bad }' "$tmp/out" && ok ||
	fail "--depth 1 text nests deeper: $(head -5 "$tmp/out")"

# The text tree: one header per source with the total, nodes indented.
run 0 "" -- "$spoor" calls "${dec[@]}" "$tmp/cap"
grep -q "^source 0: $insns instructions" "$tmp/out" && ok ||
	fail "text header: $(head -1 "$tmp/out")"
if [ -n "$traps" ]; then
	grep -qE '\[(trap|interrupt) [0-9]+\] ' "$tmp/out" && ok || fail "no trap marked in the text tree"
fi

# Bad use and failed writes: exit 2, one line.
expect 2 "format" -- "$spoor" calls "${dec[@]}" --format xml "$tmp/cap"
expect 2 "depth" -- "$spoor" calls "${dec[@]}" --depth x "$tmp/cap"
expect 2 "cannot write '/nonexistent/dir/t.json'" -- "$spoor" calls "${dec[@]}" \
	-o /nonexistent/dir/t.json "$tmp/cap"
# A failed run leaves the file at -o as it was.
echo keep >"$tmp/keep.json"
expect 2 "" -- "$spoor" calls "${dec[@]}" -o "$tmp/keep.json" "$tmp/nonexistent.cap"
[ "$(cat "$tmp/keep.json")" = keep ] && ok || fail "a failed run changed the -o file"
expect 2 "stack-depth" -- "$spoor" calls "${dec[@]}" --stack-depth 65537 "$tmp/cap"
if [ -w /dev/full ]; then
	expect 2 "writing /dev/full" -- "$spoor" calls "${dec[@]}" -o /dev/full "$tmp/cap"
fi
finish
