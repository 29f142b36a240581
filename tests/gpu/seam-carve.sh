#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: every GPU test (label gpu), then the retarget
# benchmark at 1080p and 4K (building.jpg, half the width, forward energy), CPU and CUDA in one
# run; with OUT set, the exact and approximate previews at the target are written there.
# The benchmark runs even when a test fails, but the script then exits with the test failure's
# status, so CI and callers see red.
# Usage: tests/gpu/seam-carve.sh BUILD_DIR   (from the repository's root)
set -euo pipefail
build=${1:-build-gpu}
tests_rc=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ctest --test-dir "$build" -L gpu --output-on-failure >"$log" 2>&1 || tests_rc=$?
tail -15 "$log"
lacuna="$build/app/cli/lacuna"
for size in 1920x1080 3840x2160; do
  dump=()
  [ -n "${OUT:-}" ] && dump=(--dump "$OUT/building-$size")
  "$lacuna" bench retarget --image tests/data/photos/building.jpg --size "$size" "${dump[@]+"${dump[@]}"}" 2>&1
done
if [ "$tests_rc" -ne 0 ]; then
  echo "seam-carve.sh: GPU tests failed (ctest exit $tests_rc)" >&2
fi
exit "$tests_rc"
