#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 checkout: install dependencies, build (with CUDA when
# nvcc is found), run every test tier. GUI tests run under a virtual X server (xvfb-run); tests
# that need a CUDA device skip themselves without one.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
export LIBGL_ALWAYS_SOFTWARE=1 LP_NUM_THREADS=2
# One test per core; the tests on the X server take it one at a time (RESOURCE_LOCK, tests/CMakeLists.txt).
xvfb-run -a -s "-screen 0 1600x1000x24" ctest --test-dir build --output-on-failure -j "$(nproc)"
