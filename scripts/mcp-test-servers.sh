#!/usr/bin/env bash
# Install the real MCP servers the steward-mcp tests run (from npm, pinned) into DEST.
#
# Usage: scripts/mcp-test-servers.sh [DEST]
#   DEST defaults to $STEWARD_TEST_MCP_DIR, else target/mcp-servers under the repository
#   root (where the tests look; see steward-mcp's tests/support). CI points it under ~/.cache.
#
# Idempotent and offline-safe: when DEST already holds exactly these versions (recorded in
# DEST/.installed after a successful install, and each bin present), nothing is fetched.
# Needs node (>= 18) and npm; fails loudly without them, because the tests need them.
set -euo pipefail

PACKAGES=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
)
BINS=(mcp-server-everything mcp-server-filesystem mcp-server-memory)

die() { echo "mcp-test-servers: error: $*" >&2; exit 1; }
say() { echo "mcp-test-servers: $*" >&2; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-${STEWARD_TEST_MCP_DIR:-$repo_root/target/mcp-servers}}"
want="$(printf '%s\n' "${PACKAGES[@]}")"

command -v node >/dev/null 2>&1 || die "node not found; the MCP tests need Node.js >= 18 (apt-get install nodejs npm)"
command -v npm >/dev/null 2>&1 || die "npm not found; the MCP tests need it to install their test servers"

installed() {
  [[ -f "$dest/.installed" ]] && [[ "$(cat "$dest/.installed")" == "$want" ]] || return 1
  local bin
  for bin in "${BINS[@]}"; do
    [[ -x "$dest/node_modules/.bin/$bin" ]] || return 1
  done
}

if installed; then
  say "already installed in $dest"
  exit 0
fi

mkdir -p "$dest" || die "cannot create $dest"
rm -f "$dest/.installed"
# A private package.json keeps npm from walking up into the repository.
[[ -f "$dest/package.json" ]] || echo '{"name":"steward-mcp-test-servers","private":true}' >"$dest/package.json"
say "installing ${PACKAGES[*]} into $dest"
if ! npm install --prefix "$dest" --no-audit --no-fund --no-save --loglevel=error "${PACKAGES[@]}" >&2; then
  die "npm install failed (is the npm registry reachable?)"
fi
for bin in "${BINS[@]}"; do
  [[ -x "$dest/node_modules/.bin/$bin" ]] || die "npm install finished but $bin is missing"
done
echo "$want" >"$dest/.installed"
say "installed into $dest"
