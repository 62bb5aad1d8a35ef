#!/bin/sh
# SPDX-License-Identifier: MIT
# Benchmark: serving qXfer:btrace:read:all for a history of about a million
# instructions.  The bench test program runs on the virtual board with its
# trace captured; spoor gdbserver replays the capture keeping the last
# BLOCKS blocks (default 230000: a little over a million instructions of
# this program); bench_btrace reads the whole document as GDB does.
# usage: bench/btrace.sh [BUILD_DIR [BLOCKS]]
set -eu
build=${1:-build} blocks=${2:-230000}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'kill $gs 2>/dev/null; rm -rf "$tmp"' EXIT
elf=$build/tests/programs/iss/c64/bench.elf
"$build/host/spoor" virt --board boards/virt-rv64.ini --trace-on-start --capture "$tmp/cap.bin" \
	--exit "$elf" >/dev/null 2>&1
"$build/host/spoor" gdbserver --replay "$tmp/cap.bin" --elf "$elf" --board boards/virt-rv64.ini \
	--unsynced --history "$blocks" --port 0 >"$tmp/gs.out" 2>"$tmp/gs.err" &
gs=$!
for _ in $(seq 300); do
	port=$(sed -n 's/^gdb: 127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/gs.out")
	[ -n "$port" ] && break
	sleep 0.1
done
cat "$tmp/gs.err"
"$build/bench/bench_btrace" "$port"
