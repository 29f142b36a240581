#!/usr/bin/env bash
# make-man-page.sh LACUNA OUT — writes the lacuna(1) man page from the tool's own --help texts, so
# the manual never drifts from the options the program accepts.
set -euo pipefail
lacuna=$1
out=$2
# roff: escape backslashes, hyphens and lines starting with a dot or an apostrophe.
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
version=$("$lacuna" --version | awk '{print $2}')
commands=$("$lacuna" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{if (seen) exit} on{seen=1}')
{
  echo ".TH LACUNA 1 \"\" \"lacuna $version\" \"User Commands\""
  echo ".SH NAME"
  echo "lacuna \\- content-aware image editing from the command line (seam carving, line histograms, object removal)"
  echo ".SH SYNOPSIS"
  echo ".B lacuna"
  echo "[\\fB\\-\\-version\\fR] [\\fB\\-\\-help\\fR] \\fICOMMAND\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]"
  echo ".SH DESCRIPTION"
  echo ".nf"
  "$lacuna" --help | roff
  echo ".fi"
  echo ".SH COMMANDS"
  for c in $commands; do
    echo ".SS lacuna $c"
    echo ".nf"
    "$lacuna" "$c" --help | roff
    echo ".fi"
  done
  echo ".SH EXIT STATUS"
  echo "0 on success, 1 when the operation failed (an unreadable file, a bad mask, a device error),"
  echo "2 for a usage mistake. Errors are one line on standard error."
  echo ".SH FILES"
  echo "Outputs are written to a temporary file and renamed into place; the input is never replaced."
  echo ".SH SEE ALSO"
  echo ".BR lacuna\\-editor (1)"
} > "$out"
