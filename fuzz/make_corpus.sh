#!/usr/bin/env bash
# Regenerates the committed seed corpus (fuzz/corpus/<harness>/) from fuzz/make_corpus.cpp, which
# makes every seed itself (no data from outside the repository). The regression-* seeds (inputs
# that found bugs) are kept.
#   fuzz/make_corpus.sh [BUILD]   (BUILD: a folder configured with -DLACUNA_FUZZ=ON; default build-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
nice -n 10 cmake --build "$build" -j2 --target lacuna_fuzz_make_corpus
# Everything but the regression seeds (inputs that found bugs, regression-*) is regenerated.
find fuzz/corpus -type f ! -name 'regression-*' -delete 2>/dev/null || true
ASAN_OPTIONS=detect_leaks=0 OPENCV_LOG_LEVEL=ERROR "$build/fuzz/lacuna_fuzz_make_corpus" fuzz/corpus
find fuzz/corpus -type f | sort | while read -r f; do printf '%7d %s\n' "$(stat -c %s "$f")" "$f"; done
