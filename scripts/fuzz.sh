#!/bin/sh
# A long libFuzzer campaign on the deframer + te_inst decoder (run by hand).
# usage: scripts/fuzz.sh [SECONDS]   (default 3600)
set -eu
cd "$(dirname "$0")/.."
cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DSPOOR_SANITIZE=ON -DSPOOR_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-fuzz --target fuzz_stream
mkdir -p build-fuzz/corpus
exec ./build-fuzz/tests/fuzz_stream -max_total_time="${1:-3600}" -max_len=4096 \
	-jobs="$(nproc)" -workers="$(nproc)" build-fuzz/corpus ../shared/conformance/etrace-v2/encap
