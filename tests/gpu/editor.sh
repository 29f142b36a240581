#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: every GPU test (label gpu: the engine's CUDA paths, interop,
# and the device-resident session against the host session), then the editor's latency benchmark
# on a 3840x2160 photo, device path and host path side by side.
# The benchmark runs even when a test fails (its numbers still help), but the script then exits
# with the test failure's status, so CI and callers see red.
# Usage: tests/gpu/editor.sh BUILD_DIR   (from the repository's root)
set -euo pipefail
build=${1:-build-gpu}
tests_rc=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ctest --test-dir "$build" -L gpu --output-on-failure >"$log" 2>&1 || tests_rc=$?
tail -25 "$log"
"$build/app/session/lacuna-bench-editor" --image resources/sample/fruits.jpg --size 3840x2160 --repeats 100 2>&1
if [ "$tests_rc" -ne 0 ]; then
  echo "editor.sh: GPU tests failed (ctest exit $tests_rc)" >&2
fi
exit "$tests_rc"
