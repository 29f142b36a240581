#!/bin/sh
# The two 8K rows of issue 37 on this machine, measured side by side (docs/notes/large-images.md):
#   1. lacuna histogram of one diagonal line, 64-px band, against decoding alone (djpeg, from
#      libjpeg-turbo-progs: the same libjpeg-turbo, output thrown away);
#   2. lacuna retarget to 90 % width against ImageMagick's -liquid-rescale (liblqr).
# Each line: wall and CPU seconds and the maximum resident set (GNU time), then the command's own
# --json timings. Usage: tools/measure-large-images.sh LACUNA [WORKDIR]
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
for i in 1 2 3; do
  run "djpeg (decode alone)" djpeg -rgb -outfile /dev/null "$img"
  run "lacuna histogram" "$lacuna" histogram "$img" --from 100,100 --to 7500,4200 --width 64 --json
done
run "lacuna retarget" "$lacuna" retarget "$img" "$work/retarget.jpg" --width 90% --json
run "ImageMagick -liquid-rescale" convert "$img" -liquid-rescale '6912x4320!' "$work/lqr.jpg"
run "ImageMagick plain convert (its read and write)" convert "$img" "$work/copy.jpg"
