#!/bin/sh
# The two 8K rows of issue 37 on this machine, measured side by side (docs/notes/large-images.md):
#   1. lacuna histogram of one diagonal line, 64-px band, against decoding alone (djpeg, from
#      libjpeg-turbo-progs: the same libjpeg-turbo, output thrown away);
#   2. lacuna retarget to 90 % width against ImageMagick's -liquid-rescale (liblqr), alternated
#      RUNS times (default 3); the medians and the ratios (wall and CPU) at the end.
# Each line: wall and CPU seconds and the maximum resident set (GNU time), then the command's own
# --json timings. Usage: [RUNS=N] [ONLY=retarget] tools/measure-large-images.sh LACUNA [WORKDIR]
set -eu
lacuna=${1:?usage: measure-large-images.sh path/to/lacuna [workdir]}
work=${2:-$(mktemp -d)}
here=$(dirname "$0")
img=$work/8k.jpg
[ -e "$img" ] || "$here/make-8k-jpeg.sh" "$img"
fmt='%e s wall, %U s user, %S s sys, max RSS %M KB'
run() {
  name=$1
  shift
  /usr/bin/time -f "$name: $fmt" "$@" > "$work/out.json" 2> "$work/time.txt" || true
  grep -v progress "$work/time.txt"
  grep -o '"load_ms":[0-9.]*\|"compute_ms":[0-9.]*\|"carve_ms":[0-9.]*\|"write_ms":[0-9.]*\|"importance_detect_ms":[0-9.]*' "$work/out.json" | tr '\n' ' '
  echo
}
echo "input: $img ($(stat -c %s "$img") bytes), $(nproc) CPU threads, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $([ "${ONLY:-}" = retarget ] || echo 1 2 3); do  # ONLY=retarget: row 2 alone
  run "djpeg (decode alone)" djpeg -rgb -outfile /dev/null "$img"
  run "lacuna histogram" "$lacuna" histogram "$img" --from 100,100 --to 7500,4200 --width 64 --json
done
# The retarget and liblqr alternated RUNS times (default 3; the machine is shared, so they see
# the same load), then the medians and the ratios. CPU = user + sys, less sensitive to the load
# than wall time; RSS as a multiple of the RGBA image (4 bytes a pixel, in GNU time's KB).
runs=${RUNS:-3}
: > "$work/lacuna.txt"
: > "$work/lqr.txt"
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  echo "run $i: load $(cut -d' ' -f1-3 /proc/loadavg)"
  run "lacuna retarget" "$lacuna" retarget "$img" "$work/retarget.jpg" --width 90% --json
  grep -o '[0-9.]* s wall, [0-9.]* s user, [0-9.]* s sys, max RSS [0-9]*' "$work/time.txt" >> "$work/lacuna.txt"
  run "ImageMagick -liquid-rescale" convert "$img" -liquid-rescale '6912x4320!' "$work/lqr.jpg"
  grep -o '[0-9.]* s wall, [0-9.]* s user, [0-9.]* s sys, max RSS [0-9]*' "$work/time.txt" >> "$work/lqr.txt"
done
run "ImageMagick plain convert (its read and write)" convert "$img" "$work/copy.jpg"
median() {  # column of a "W s wall, U s user, S s sys, max RSS K" file: wall, cpu or rss
  awk -v what="$2" '{ v = what == "wall" ? $1 : what == "cpu" ? $4 + $7 : $12; print v }' "$1" |
    sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}
rgba_kb=$(( $(identify -format '%w*%h*4/1024' "$img") ))
lw=$(median "$work/lacuna.txt" wall); lc=$(median "$work/lacuna.txt" cpu); lr=$(median "$work/lacuna.txt" rss)
qw=$(median "$work/lqr.txt" wall); qc=$(median "$work/lqr.txt" cpu)
awk -v lw="$lw" -v lc="$lc" -v lr="$lr" -v qw="$qw" -v qc="$qc" -v rgba="$rgba_kb" -v n="$runs" 'BEGIN {
  printf "medians of %d alternated runs: lacuna retarget %.2f s wall, %.2f s CPU, max RSS %d KB (%.2f x the RGBA image)\n", n, lw, lc, lr, lr / rgba
  printf "                              liblqr %.2f s wall, %.2f s CPU\n", qw, qc
  printf "lacuna is %.2f x faster than liblqr in wall time, %.2f x in CPU time\n", qw / lw, qc / lc }'
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
