#!/usr/bin/env bash
# Runs every libFuzzer harness (or the ones named) for SECONDS each on a copy of its seed corpus,
# under ASan + UBSan with every report fatal, and fails if any harness finds a crash, a sanitizer
# report, a leak, a timeout or an out-of-memory input.
#
#   fuzz/run.sh SECONDS [HARNESS...]
#
# Environment: LACUNA_FUZZ_BUILD (default build-fuzz: configured with -DLACUNA_FUZZ=ON, target
# lacuna_fuzzers built), LACUNA_FUZZ_JOBS (harnesses run at once, default 1), LACUNA_FUZZ_OUT
# (where logs, the inputs found and failing inputs go; default a new temporary folder, kept),
# LACUNA_FUZZ_SEED (libFuzzer's -seed: 0, the default, picks a new one each run; CI fixes it so a
# run explores the same inputs on the same code, and a red CI can be reproduced).
# The committed corpus is never written: each run starts from a copy. A failing input is left as
# $LACUNA_FUZZ_OUT/<harness>/crash-* (or leak-*, timeout-*, oom-*); reproduce it with
# build-fuzz/fuzz/<harness> FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
  echo "usage: fuzz/run.sh SECONDS [HARNESS...]" >&2
  exit 2
fi
seconds=$1
shift
build=${LACUNA_FUZZ_BUILD:-build-fuzz}
jobs=${LACUNA_FUZZ_JOBS:-1}
out=${LACUNA_FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/lacuna-fuzz.XXXXXX")}
mkdir -p "$out"
harnesses=("$@")
if [[ ${#harnesses[@]} -eq 0 ]]; then
  harnesses=(fuzz_image_decode fuzz_mask_load fuzz_video_open fuzz_cli_args fuzz_line_histogram
             fuzz_retarget)
fi

# Every sanitizer report ends the run with a failure. Leaks are reported at the end of each input
# (libFuzzer's -detect_leaks); fuzz/lsan.supp lists leaks inside third-party decoders only.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=0:detect_stack_use_after_return=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:abort_on_error=0
export LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0
# OpenCV: no worker threads (one input at a time is the unit), no plugin search per input.
export OPENCV_FOR_THREADS_NUM=1 OPENCV_LOG_LEVEL=ERROR OPENCV_VIDEOIO_DEBUG=0
export OPENCV_FFMPEG_LOGLEVEL=-8

run_one() {
  local harness=$1 dir=$out/$1
  local binary=$build/fuzz/$harness
  if [[ ! -x $binary ]]; then
    echo "$harness: $binary is missing (cmake --build $build --target lacuna_fuzzers)" >"$dir.result"
    return 1
  fi
  mkdir -p "$dir/corpus" "$dir/artifacts"
  # fuzz_oiio_decode (a comparison harness, not in the default list) starts from the same seeds
  # as the reader it is compared with, and unwinds allocations fully: Debian's OpenImageIO has
  # no frame pointers, and its leak suppression (lsan.supp) must see the library's frames.
  local seeds=fuzz/corpus/$harness asan=$ASAN_OPTIONS
  if [[ $harness == fuzz_oiio_decode ]]; then
    seeds=fuzz/corpus/fuzz_image_decode asan=$ASAN_OPTIONS:fast_unwind_on_malloc=0
  fi
  cp -r "$seeds/." "$dir/corpus/"
  local status=0
  ASAN_OPTIONS=$asan "$binary" "$dir/corpus" -max_total_time="$seconds" -seed="${LACUNA_FUZZ_SEED:-0}" \
    -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2560 -max_len=65536 -artifact_prefix="$dir/artifacts/" -close_fd_mask=1 \
    >"$dir/log" 2>&1 || status=$?
  # (A harness that fails on its seeds prints no coverage line: these may find nothing.)
  local execs cov ft found
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1) || true
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | cut -d' ' -f2) || true
  ft=$(grep -o 'ft: [0-9]*' "$dir/log" | tail -1 | cut -d' ' -f2) || true
  found=$(find "$dir/artifacts" -type f | head -1) || true
  if [[ $status -eq 0 && -z $found ]]; then
    printf '%-20s %6s s %12s execs  cov %6s  ft %6s  corpus %5s  ok\n' "$harness" "$seconds" \
      "${execs:-?}" "${cov:-?}" "${ft:-?}" "$(ls "$dir/corpus" | wc -l)" >"$dir.result"
    return 0
  fi
  printf '%-20s %6s s %12s execs  cov %6s  ft %6s  FAILED (exit %s) %s\n' "$harness" "$seconds" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "$status" "${found:-}" >"$dir.result"
  grep -m1 -A30 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|==ERROR|invariant violated|deadly signal' \
    "$dir/log" >"$dir.failure" || tail -40 "$dir/log" >"$dir.failure"
  return 1
}

echo "fuzzing ${#harnesses[@]} harness(es) for $seconds s each, $jobs at a time; logs in $out"
pids=() names=()
failed=0
wait_one() {
  if ! wait "${pids[0]}"; then failed=1; fi
  pids=("${pids[@]:1}")
}
for harness in "${harnesses[@]}"; do
  while [[ ${#pids[@]} -ge $jobs ]]; do wait_one; done
  run_one "$harness" &
  pids+=($!)
done
while [[ ${#pids[@]} -gt 0 ]]; do wait_one; done

for harness in "${harnesses[@]}"; do
  cat "$out/$harness.result" 2>/dev/null || echo "$harness: no result (see $out/$harness/log)"
  if [[ -f $out/$harness.failure ]]; then sed 's/^/    /' "$out/$harness.failure"; fi
done
if [[ $failed -ne 0 ]]; then
  echo "fuzzing FAILED: see $out/<harness>/log; failing inputs under $out/<harness>/artifacts" >&2
  exit 1
fi
echo "fuzzing: no crash, sanitizer report, leak or hang"
