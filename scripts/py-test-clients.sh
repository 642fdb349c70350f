#!/usr/bin/env bash
# Install the third-party Python clients the tests drive Steward with (the official `openai`
# SDK) and check it with (`openapi-spec-validator` and `openapi-schema-validator` for the API
# document; `croniter`, an independent cron implementation the schedule tests compare next-fire
# times with), pinned, into a virtual environment at DEST.
#
# Usage: scripts/py-test-clients.sh [DEST]
#   DEST defaults to $STEWARD_TEST_PY_DIR, else target/py-clients under the repository root
#   (where the tests look; see crates/steward/tests/support). CI points it under ~/.cache.
#
# Idempotent and offline-safe: when DEST already holds exactly these versions (recorded in
# DEST/.installed after a successful install), nothing is fetched. Needs python3 (3.9+) with
# the venv module; fails loudly without it, because the tests need it.
set -euo pipefail

# openai and everything it pulls in, pinned (pip freeze of a fresh install).
PACKAGES=(
  "openai==3.57.0"
  "annotated-types==0.8.0"
  "anyio==4.16.0"
  "h11==0.16.0"
  "httpcore2==2.16.2"
  "httpx2==2.16.2"
  "idna==3.20"
  "jiter==0.19.0"
  "pydantic==2.14.4"
  "pydantic_core==2.50.5"
  "sniffio==1.3.1"
  "truststore==0.10.5"
  "typing-inspection==0.4.5"
  "typing_extensions==4.16.0"
  # openapi-spec-validator and what it pulls in beyond the above (pip freeze of a fresh
  # install): the API document test (crates/steward-server/tests/server/openapi.rs).
  "openapi-spec-validator==0.9.0"
  "openapi-schema-validator==0.9.0"
  "attrs==26.1.0"
  "jsonschema==4.26.0"
  "jsonschema-path==0.5.0"
  "jsonschema-specifications==2025.9.1"
  "lazy-object-proxy==1.13.0"
  "pathable==0.6.0"
  "pydantic-settings==2.16.3"
  "python-dotenv==1.2.4"
  "PyYAML==6.0.4"
  "referencing==0.37.0"
  "rfc3339-validator==0.1.4"
  "rpds-py==2026.9.1"
  "six==1.17.0"
  # croniter and what it pulls in beyond the above: the cron vectors of the schedule tests
  # (crates/steward-jobs/tests/schedule_cron_vectors.rs). python-dateutil stays on 2.9 (it
  # needs six, pinned above, and supports Python 3.9; 4.x needs 3.11 and tzdata); pytz gives
  # the tests a time-zone database of its own, not the system's.
  "croniter==7.0.0"
  "python-dateutil==2.9.0.post0"
  "pytz==2026.6"
)

die() { echo "py-test-clients: error: $*" >&2; exit 1; }
say() { echo "py-test-clients: $*" >&2; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-${STEWARD_TEST_PY_DIR:-$repo_root/target/py-clients}}"
want="$(printf '%s\n' "${PACKAGES[@]}")"

command -v python3 >/dev/null 2>&1 || die "python3 not found; the OpenAI SDK tests need Python 3.9+"

if [[ -f "$dest/.installed" ]] && [[ "$(cat "$dest/.installed")" == "$want" ]] \
  && "$dest/bin/python" -c "import openai, openapi_spec_validator, croniter, pytz" >/dev/null 2>&1; then
  say "already installed in $dest"
  exit 0
fi

rm -rf "$dest"
python3 -m venv "$dest" || die "python3 -m venv failed (install python3-venv)"
say "installing ${PACKAGES[*]} into $dest"
if ! "$dest/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${PACKAGES[@]}" >&2; then
  die "pip install failed (is PyPI reachable?)"
fi
"$dest/bin/python" -c "import openai, openapi_spec_validator, openapi_schema_validator, croniter, dateutil, pytz" \
  || die "installed, but openai, the OpenAPI validators or croniter cannot be imported"
echo "$want" >"$dest/.installed"
say "installed into $dest"
