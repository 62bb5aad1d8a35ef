#!/bin/sh
# Conformance: spoor decode --format pcs of a reference stream must equal the
# reference decoder's PC trace exactly.
# usage: decode_pcs.sh SPOOR ELF PARAMS.scf EXPECTED.decoder.trace.gz STREAM [DECODE OPTIONS...]
set -eu
spoor=$1 elf=$2 params=$3 expected=$4 stream=$5
shift 5
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$spoor" decode --elf "$elf" --spike-rom --params "$params" --format pcs "$@" "$stream" >"$out"
if ! gzip -dc "$expected" | cmp -s - "$out"; then
	echo "spoor decode differs from $expected:"
	gzip -dc "$expected" | diff - "$out" | head -20
	exit 1
fi
echo "$(wc -l <"$out") instructions match $expected"
