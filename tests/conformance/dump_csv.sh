#!/bin/sh
# Conformance: spoor dump --format csv of a reference te_inst_raw stream must
# equal the reference flow's te_inst CSV byte for byte.
# usage: dump_csv.sh SPOOR PARAMS.scf STREAM.te_inst_raw EXPECTED.te_inst.csv.gz
set -eu
spoor=$1 params=$2 stream=$3 expected=$4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$spoor" dump -q --params "$params" --format csv "$stream" >"$out"
if ! gzip -dc "$expected" | cmp -s - "$out"; then
	echo "spoor dump differs from $expected:"
	gzip -dc "$expected" | diff - "$out" | head -20
	exit 1
fi
echo "$(($(wc -l <"$out") - 1)) packets match $expected"
