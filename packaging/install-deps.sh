#!/usr/bin/env bash
# Installs what Lacuna needs to build, run and test on Debian 12 (bookworm), from Debian's packages.
# The CUDA toolkit is optional and not installed here: when nvcc is on PATH, in $CUDACXX or at
# /usr/local/cuda/bin/nvcc, the CUDA backend is built too.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev libqt6opengl6-dev            # Qt 6 Widgets, OpenGL widgets, Qt Test
  libopencv-dev                             # BMP/Netpbm codecs (imgcodecs), imgproc
  libjpeg-dev libpng-dev libtiff-dev        # JPEG, PNG, TIFF read and written directly
  libwebp-dev                               # WebP read and written directly
  libgif-dev                                # GIF (giflib): first frame, or every frame as a stack
  libopencv-videoio-dev                     # video files through FFmpeg (libopencv-dev pulls it too)
  libavformat-dev libavcodec-dev libavutil-dev libswresample-dev  # a clip's audio in video outputs
  libopencv-video-dev                       # DIS optical flow: video object removal (libopencv-dev pulls it too)
  libopencv-contrib-dev                     # ximgproc (bilateral peer, line detector), saliency
  opencv-data                               # Haar cascades: retargeting protects detected faces
  opencv-doc                                # sample photos of `lacuna bench retarget-quality`
  imagemagick                               # liblqr (-liquid-rescale): the retargeting benchmarks' peer
  libjpeg-turbo-progs                       # djpeg: decoding alone, beside the 8K load (tools/measure-large-images.sh)
  libgdcm-dev libcfitsio-dev                # DICOM and FITS measurement images
  libexiv2-dev                              # ICC profile, EXIF, XMP and IPTC kept from open to save
  liblcms2-dev                              # colour-managed display (image profile to display profile)
  libglew-dev libegl-dev libgl-dev          # GL loading, headless EGL
  libgl1-mesa-dri libegl-mesa0              # software GL/EGL when there is no GPU
  xvfb xauth                                # GUI tests without a display
  dpkg-dev file man-db                      # the Debian package: dpkg-shlibdeps, man page check
  appstream desktop-file-utils              # validating the desktop entry and AppStream metainfo
  python3-distributed                       # Dask: the batch-across-hosts recipe and its test
  python3-pydicom python3-astropy           # the real-file tier: their test files, read by both
  python3-pil                               # pydicom's JPEG / JPEG 2000 decoder: without it the tier
                                            # reads "cannot decode" where the baseline has the decoder's word
  clang libclang-rt-14-dev                  # the libFuzzer harnesses (fuzz/): clang, its fuzzer runtime
  lld                                       # a faster linker for the build (CMakeLists.txt, LACUNA_LLD)
  opencv-doc                                # its sample photos: the object cases of `lacuna bench inpaint`
  gmic                                      # G'MIC: the fill's peers in `lacuna bench inpaint`
  pybind11-dev python3-dev python3-numpy    # `import lacuna`: the Python module on numpy arrays
  libdlpack-dev                             # its DLPack structs (numpy, CuPy, PyTorch arrays; device arrays)
  python3-pytest                            # its tests, against the CLI
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
