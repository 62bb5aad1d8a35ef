#!/bin/sh
# Conformance: spoor's encoder model (spike_encode, reference flow mode) on a
# spike trace must give the reference encoder's te_inst_raw stream byte for
# byte.
# usage: encode_raw.sh SPIKE_ENCODE PARAMS.scf USER.ucf SPIKE.gz EXPECTED.te_inst_raw [ARGS...]
set -eu
encode=$1 params=$2 ucf=$3 spike=$4 expected=$5
shift 5
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$encode" --params "$params" --ucf "$ucf" "$@" "$spike" "$out"
if ! cmp "$expected" "$out"; then
	echo "spike_encode output ($(wc -c <"$out") bytes) differs from $expected" \
		"($(wc -c <"$expected") bytes)"
	exit 1
fi
echo "$(wc -c <"$out") bytes match $expected"
