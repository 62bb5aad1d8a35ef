#!/bin/sh
# Installs what spoor needs, builds it twice (warnings as errors; ASan+UBSan)
# and runs the whole test suite under ctest in both builds, plus a short
# libFuzzer run.  This is the README's test command; .ci/run calls it.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

cmake -S . -B build -G Ninja -DSPOOR_WERROR=ON
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

cmake -S . -B build-san -G Ninja -DCMAKE_C_COMPILER=clang -DSPOOR_WERROR=ON \
	-DSPOOR_SANITIZE=ON -DSPOOR_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-san -j "$jobs"
ctest --test-dir build-san --output-on-failure -j "$jobs"
