#!/usr/bin/env bash
# Real-VS-Code extension tests: installs the offline test host if needed (cached outside the repo), then runs
# test/vscode/runner (stage "dev": the repo's extension with the suites, then their German pass "de" in a VS Code
# started with --locale de; stage "package": the built linux-x64 VSIX installed into a clean server). Extra arguments
# go to the runner, e.g. --stage dev, --stage de or --skip-build.
# Prints "vscode: N passed, N failed", "vscode-de: ..." and "vscode-package: ..."; exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
START=$(date +%s)
bash scripts/vscode/install-test-host.sh
STATUS=0
node --import tsx test/vscode/runner/main.ts "$@" || STATUS=$?
echo "[run-tests] real-VS-Code tests took $(( $(date +%s) - START )) s"
exit $STATUS
