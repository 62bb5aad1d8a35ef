#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs rsp_torture against spoor gdbserver on a capture of ELF made here.
# usage: test_torture.sh SPOOR RSP_TORTURE BOARD ELF
set -eu
spoor=$1 torture=$2 board=$3 elf=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 60 "$spoor" virt --board "$board" --trace-on-start --capture "$tmp/cap.bin" --exit "$elf" \
	>/dev/null 2>&1 || { echo "FAIL: spoor virt"; exit 1; }
timeout 120 "$torture" "$spoor" "$elf" "$board" "$tmp/cap.bin"
