#!/usr/bin/env bash
# Real-VS-Code extension tests: installs the offline test host if needed (cached outside the repo), then runs
# test/vscode/runner (stage "dev": the repo's extension with the suites; stage "package": the built linux-x64
# VSIX installed into a clean server). Extra arguments go to the runner, e.g. --stage dev or --skip-build.
# Prints "vscode: N passed, N failed" and "vscode-package: N passed, N failed"; exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
START=$(date +%s)
bash scripts/vscode/install-test-host.sh
STATUS=0
node --import tsx test/vscode/runner/main.ts "$@" || STATUS=$?
echo "[run-tests] real-VS-Code tests took $(( $(date +%s) - START )) s"
exit $STATUS
