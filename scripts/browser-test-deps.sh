#!/usr/bin/env bash
# Install what the web app's browser tests need: Debian's Chromium (apt, when /usr/bin/chromium
# is missing) and the npm packages that drive it and check the pages (pinned), into DEST; and
# the npm package steward-telegram's Mini App initData tests sign their vectors with.
#
# Usage: scripts/browser-test-deps.sh [DEST]
#   DEST defaults to $STEWARD_TEST_BROWSER_DIR, else target/browser-tests under the repository
#   root (where the tests look; see crates/steward/tests/browser.rs). CI points it under ~/.cache.
#   CHROMIUM (default /usr/bin/chromium) names the browser binary.
#
# Idempotent and offline-safe: when Chromium is present and DEST already holds exactly these
# versions (recorded in DEST/.installed after a successful install), nothing is fetched. Needs
# node (>= 20) and npm, and root (or sudo) to install Chromium; fails loudly without them,
# because the tests need them.
set -euo pipefail

PACKAGES=(
  "playwright-core@1.65.1"
  "axe-core@4.14.1"
  # Not for the browser: steward-telegram's initData tests sign vectors with the library Mini
  # App developers use (crates/steward-telegram/tests/support/init_data_vectors.mjs).
  "@telegram-apps/init-data-node@2.0.10"
)
FILES=(
  node_modules/playwright-core/index.mjs
  node_modules/axe-core/axe.min.js
  node_modules/@telegram-apps/init-data-node/package.json
)

die() { echo "browser-test-deps: error: $*" >&2; exit 1; }
say() { echo "browser-test-deps: $*" >&2; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-${STEWARD_TEST_BROWSER_DIR:-$repo_root/target/browser-tests}}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
want="$(printf '%s\n' "${PACKAGES[@]}")"

if [[ ! -x "$chromium" ]]; then
  say "$chromium is missing; installing Debian's chromium"
  command -v apt-get >/dev/null 2>&1 || die "no $chromium and no apt-get to install it; install Chromium and set CHROMIUM"
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "installing chromium needs root (or sudo)"
    sudo="sudo"
  fi
  $sudo apt-get update -qq >&2 || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >&2 \
    || die "apt-get install chromium failed"
  [[ -x "$chromium" ]] || die "chromium was installed but $chromium is still missing; set CHROMIUM"
fi

command -v node >/dev/null 2>&1 || die "node not found; the browser tests need Node.js >= 20 (apt-get install nodejs npm)"
command -v npm >/dev/null 2>&1 || die "npm not found; the browser tests need it to install playwright-core and axe-core"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[[ "$node_major" -ge 20 ]] || die "node $(node --version) is too old; the browser tests need Node.js >= 20 (node:test)"

installed() {
  [[ -f "$dest/.installed" ]] && [[ "$(cat "$dest/.installed")" == "$want" ]] || return 1
  local f
  for f in "${FILES[@]}"; do
    [[ -f "$dest/$f" ]] || return 1
  done
}

if installed; then
  say "already installed in $dest"
  exit 0
fi

mkdir -p "$dest" || die "cannot create $dest"
rm -f "$dest/.installed"
# A private package.json keeps npm from walking up into the repository.
[[ -f "$dest/package.json" ]] || echo '{"name":"steward-browser-tests","private":true}' >"$dest/package.json"
say "installing ${PACKAGES[*]} into $dest"
if ! npm install --prefix "$dest" --no-audit --no-fund --no-save --loglevel=error "${PACKAGES[@]}" >&2; then
  die "npm install failed (is the npm registry reachable?)"
fi
for f in "${FILES[@]}"; do
  [[ -f "$dest/$f" ]] || die "npm install finished but $f is missing"
done
echo "$want" >"$dest/.installed"
say "installed into $dest"
