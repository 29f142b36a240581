#!/bin/bash
cd "$(dirname "$0")/.."
echo "== raw probe (with cudaGetDeviceProperties)"; for i in 1 2; do ./probe-tmp/probe p; done
L=build-gpu/app/cli/lacuna
t() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; local e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms: $*"; }
for i in 1 2 3; do t $L --version; done
for i in 1 2 3 4 5; do t $L backend; done
for m in auto cpu cuda; do for i in 1 2 3; do t $L inpaint probe-tmp/in512.png probe-tmp/mask512.png /tmp/o.png --backend $m; done; done
$L inpaint probe-tmp/in512.png probe-tmp/mask512.png /tmp/o.png --json 2>/dev/null
$L backend --json
