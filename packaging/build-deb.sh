#!/usr/bin/env bash
# packaging/build-deb.sh [--install] — builds the Debian package in build-deb/ (Release; the CUDA
# backend when nvcc is found, CPU-only otherwise), checks the desktop entry and the AppStream
# metainfo, installs the package into a clean prefix and runs the installed tool there
# (LACUNA_CUDA=OFF in the environment forces the CPU-only build). With
# --install it then installs the package on this machine (apt resolves its dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
install_system=0
[ "${1:-}" = "--install" ] && install_system=1
packaging/install-deps.sh
# LACUNA_DEB_BUILD_DIR=build packages the test build's folder instead (configured as
# tests/run-all.sh configures it), so CI compiles the program once for the package and the tests.
dir=${LACUNA_DEB_BUILD_DIR:-build-deb}
testing=OFF
[ "$dir" = build ] && testing=ON
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=$testing \
  -DLACUNA_CUDA="${LACUNA_CUDA:-AUTO}"
cmake --build "$dir"
rm -f "$dir"/lacuna_*.deb
(cd "$dir" && cpack -G DEB)
deb=$(ls -t "$dir"/lacuna_*.deb | head -1)
echo "build-deb: built $deb"
dpkg-deb --info "$deb" | sed -n '/Package:/,/Description:/p'
# The plugin's libraries are found by dpkg-shlibdeps too: libavformat (a clip's audio in video
# outputs) must be among the dependencies.
dpkg-deb -f "$deb" Depends | grep -q 'libavformat' ||
  { echo "build-deb: the package does not depend on libavformat (the audio remux)" >&2; exit 1; }

desktop-file-validate packaging/io.github.lacuna_editor.Lacuna.desktop
appstreamcli validate --no-net packaging/io.github.lacuna_editor.Lacuna.metainfo.xml

# Smoke test from the package's own files in a clean prefix: version, a small retarget, the man page.
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
dpkg-deb -x "$deb" "$prefix"
for f in usr/bin/lacuna usr/bin/lacuna-editor usr/share/man/man1/lacuna.1.gz \
         usr/share/applications/io.github.lacuna_editor.Lacuna.desktop \
         usr/share/metainfo/io.github.lacuna_editor.Lacuna.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/io.github.lacuna_editor.Lacuna.svg \
         usr/share/icons/hicolor/48x48/apps/io.github.lacuna_editor.Lacuna.png \
         usr/share/lacuna/sample/fruits.jpg; do
  [ -e "$prefix/$f" ] || { echo "build-deb: the package lacks /$f" >&2; exit 1; }
done
"$prefix/usr/bin/lacuna" --version
"$prefix/usr/bin/lacuna" retarget "$prefix/usr/share/lacuna/sample/fruits.jpg" "$prefix/narrow.png" \
  --width 400 --backend cpu --json
"$prefix/usr/bin/lacuna" info "$prefix/narrow.png"
# Netpbm goes through the OpenCV plugin (liblacuna_opencv.so), found beside the unpacked program.
find "$prefix/usr/lib" -path '*/lacuna/liblacuna_opencv.so' | grep -q . ||
  { echo "build-deb: the package lacks liblacuna_opencv.so" >&2; exit 1; }
"$prefix/usr/bin/lacuna" convert "$prefix/narrow.png" "$prefix/narrow.ppm"
"$prefix/usr/bin/lacuna" info "$prefix/narrow.ppm"
# The Python module, from the package's files, on a numpy array.
ls "$prefix"/usr/lib/python3/dist-packages/lacuna.cpython-*.so >/dev/null ||
  { echo "build-deb: the package lacks the Python module (lacuna.cpython-*.so)" >&2; exit 1; }
PYTHONPATH="$prefix/usr/lib/python3/dist-packages" /usr/bin/python3 -c \
  "import lacuna, numpy as n; print('import lacuna:', lacuna.kymograph(n.ones((2, 4, 4), n.float32), [(0, 1), (3, 1)]).shape)"
man -l "$prefix/usr/share/man/man1/lacuna.1.gz" 2>/dev/null | grep -q "lacuna inpaint" ||
  { echo "build-deb: the man page does not describe lacuna inpaint" >&2; exit 1; }

if [ "$install_system" = 1 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y "./$deb"
  lacuna --version
  echo "build-deb: installed; start the editor from the menu or with lacuna-editor"
fi
