#!/usr/bin/env bash
# Puts the OCR traineddata (German and English, Apache-2.0, Debian packages tesseract-ocr-deu / tesseract-ocr-eng:
# tesseract 4 "fast" LSTM models) into dist/tessdata, where the parser worker and the VSIX find them. Installs the
# Debian packages with apt-get when they are missing (needs root or sudo). Idempotent; called by esbuild.mjs
# (npm run build) and scripts/test.sh. Nothing is downloaded at run time.
#   bash scripts/ocr/traineddata.sh [dest] [langs]      defaults: dist/tessdata, "deu eng"
set -euo pipefail
cd "$(dirname "$0")/../.."
DEST=${1:-dist/tessdata}
LANGS=${2:-${DOCS_RAG_OCR_LANGS:-deu eng}}
SYSTEM_DIRS=(/usr/share/tesseract-ocr/5/tessdata /usr/share/tesseract-ocr/4.00/tessdata)

log() { echo "[traineddata] $*"; }
fail() { echo "[traineddata] ERROR: $*" >&2; exit 1; }

find_system() {
  local lang=$1 d
  for d in "${SYSTEM_DIRS[@]}"; do
    [[ -f "$d/$lang.traineddata" ]] && { echo "$d/$lang.traineddata"; return 0; }
  done
  return 1
}

missing=()
for lang in $LANGS; do
  [[ -f "$DEST/$lang.traineddata" ]] && continue
  find_system "$lang" >/dev/null || missing+=("tesseract-ocr-$lang")
done

if (( ${#missing[@]} > 0 )); then
  log "installing ${missing[*]} with apt-get (needs root)"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || fail "traineddata missing and we are not root; run: apt-get install -y ${missing[*]}"
    SUDO=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" \
    || { $SUDO apt-get update -q && $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
    || fail "apt-get install ${missing[*]} failed"
fi

mkdir -p "$DEST"
for lang in $LANGS; do
  if [[ -f "$DEST/$lang.traineddata" ]]; then continue; fi
  src=$(find_system "$lang") || fail "$lang.traineddata not found in ${SYSTEM_DIRS[*]} after installing tesseract-ocr-$lang"
  cp "$src" "$DEST/$lang.traineddata.tmp" && mv "$DEST/$lang.traineddata.tmp" "$DEST/$lang.traineddata"
  log "$DEST/$lang.traineddata ($(du -k "$DEST/$lang.traineddata" | cut -f1) kB) from $src"
done
# The licence of the data travels with it.
for d in /usr/share/doc/tesseract-ocr-eng /usr/share/doc/tesseract-ocr-deu; do
  [[ -f "$d/copyright" ]] && cp "$d/copyright" "$DEST/$(basename "$d").copyright"
done
exit 0
