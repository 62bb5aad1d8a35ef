#!/bin/sh
# Round trip: a spike trace encoded by spoor's encoder model (spike_encode),
# then decoded by spoor decode --format pcs, must give the reference
# decoder's PC trace exactly (it does not depend on the encoder's options).
# usage: roundtrip.sh SPIKE_ENCODE SPOOR ELF PARAMS.scf SPIKE.gz EXPECTED.decoder.trace.gz
#                     "PARAM ARGS" "ENCODE ARGS" "DECODE ARGS"
# PARAM ARGS (--param KEY=VALUE ...) go to both; the rest to one each.
set -eu
encode=$1 spoor=$2 elf=$3 params=$4 spike=$5 expected=$6 common=$7 enc_args=$8 dec_args=$9
raw=$(mktemp)
out=$(mktemp)
trap 'rm -f "$raw" "$out"' EXIT
# shellcheck disable=SC2086
"$encode" --params "$params" $common $enc_args "$spike" "$raw"
# shellcheck disable=SC2086
"$spoor" decode -q --elf "$elf" --spike-rom --params "$params" $common $dec_args \
	--format pcs "$raw" >"$out"
if ! gzip -dc "$expected" | cmp -s - "$out"; then
	echo "round trip differs from $expected ($(wc -c <"$raw") bytes encoded):"
	gzip -dc "$expected" | diff - "$out" | head -10
	exit 1
fi
echo "$(wc -l <"$out") instructions, $(wc -c <"$raw") bytes: $enc_args / $dec_args"
