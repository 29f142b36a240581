#!/bin/sh
# The 7680×4320 JPEG of docs/notes/large-images.md: a repository photo (tests/data/photos/
# building.jpg) upscaled to 8K with a little noise (so the encoder has real detail to code, as
# in a camera's file), quality 90, 4:2:0. Deterministic (ImageMagick's -seed).
# Usage: tools/make-8k-jpeg.sh OUT.jpg
set -eu
out=${1:?usage: make-8k-jpeg.sh OUT.jpg}
here=$(dirname "$0")
convert "$here/../tests/data/photos/building.jpg" -resize '7680x4320!' -seed 37 \
  -attenuate 0.4 +noise Gaussian -quality 90 -sampling-factor 2x2 "$out"
