#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: every GPU test (label gpu), then the retarget
# benchmark at 1080p and 4K (building.jpg, half the width, forward energy), CPU and CUDA in one
# run; with OUT set, the exact and approximate previews at the target are written there.
# Usage: tests/gpu/seam-carve.sh BUILD_DIR   (from the repository's root)
build=${1:-build-gpu}
ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tail -15
lacuna="$build/app/cli/lacuna"
for size in 1920x1080 3840x2160; do
  dump=()
  [ -n "${OUT:-}" ] && dump=(--dump "$OUT/building-$size")
  "$lacuna" bench retarget --image tests/data/photos/building.jpg --size "$size" "${dump[@]}" 2>&1
done
