#!/bin/sh
# Runs a command with its standard output in a file (replaced only when the
# command succeeds): run_to_file.sh <file> <command> [args...]
set -e
out=$1
shift
"$@" > "$out.tmp"
mv "$out.tmp" "$out"
