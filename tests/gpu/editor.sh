#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: every GPU test (label gpu: the engine's CUDA paths, interop,
# and the device-resident session against the host session), then the editor's latency benchmark
# on a 3840x2160 photo, device path and host path side by side.
# Usage: tests/gpu/editor.sh BUILD_DIR   (from the repository's root)
build=${1:-build-gpu}
ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tail -25
"$build/app/session/lacuna-bench-editor" --image resources/sample/fruits.jpg --size 3840x2160 --repeats 100 2>&1
