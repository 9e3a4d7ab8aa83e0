#!/usr/bin/env bash
# Executable for @vscode/test-electron's `vscodeExecutablePath`: see codeWrapper.ts.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
# tsx is resolved from the repo, whatever the caller's working directory.
exec node --import "file://$REPO/node_modules/tsx/dist/loader.mjs" --require "$REPO/node_modules/tsx/dist/preflight.cjs" "$HERE/codeWrapper.ts" "$@"
