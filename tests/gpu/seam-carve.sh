#!/usr/bin/env bash
# On the GPU machine (through .gpu/on-gpu): the seam-carving GPU tests, then the retarget
# benchmark at 1080p and 4K (building.jpg, half the width, forward energy), CPU and CUDA in one run.
# Usage: bash .gpu/on-gpu bash tests/gpu/seam-carve.sh BUILD_DIR [quick]
build=${1:-build-gpu}
ctest --test-dir "$build" -R 'seam_carve_cuda' --output-on-failure 2>&1 | tail -25
lacuna="$build/app/cli/lacuna"
for size in 1920x1080 3840x2160; do
  "$lacuna" bench retarget --image tests/data/photos/building.jpg --size "$size" 2>&1
done
