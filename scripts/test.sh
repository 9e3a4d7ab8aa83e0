#!/usr/bin/env bash
# The project's one test command (`npm test`; CI runs `.ci/run`, which calls it after `npm ci`).
# 1. build + strict type check, 2. engine tests (mocha: unit, slow loader deadlines, kill -9 crash safety),
# 3. the retrieval quality gate (`npm run gate`: default vs test/quality/baseline.json and vs bm25 on the dev questions and
#    the four public sets in ../shared/eval; a few minutes), 4. extension tests in a real VS Code (installs Chromium and the
#    VS Code server into a cache outside the repo).
# Ends with one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
export LANCEDB_LOG=${LANCEDB_LOG:-error}

passed=0
failed=0
status=0

step() { printf '\n=== %s ===\n' "$*"; }

step "build"
if ! node esbuild.mjs; then echo "build failed"; exit 1; fi
step "type check"
if ! npx tsc -p . --noEmit || ! npx tsc -p media/tsconfig.json; then echo "type check failed"; exit 1; fi

step "engine tests (mocha)"
specs=("test/unit/**/*.test.ts")
[ -d test/slow ] && specs+=("test/slow/**/*.test.ts")
[ -d test/crash ] && specs+=("test/crash/**/*.test.ts")
npx mocha "${specs[@]}" 2>&1 | tee test-results/mocha.log
mocha_rc=${PIPESTATUS[0]}
p=$(grep -Eo '^ *[0-9]+ passing' test-results/mocha.log | tail -n1 | grep -Eo '[0-9]+' || echo 0)
f=$(grep -Eo '^ *[0-9]+ failing' test-results/mocha.log | tail -n1 | grep -Eo '[0-9]+' || echo 0)
passed=$((passed + p)); failed=$((failed + f))
if [ "$mocha_rc" -ne 0 ]; then status=1; [ "$f" -eq 0 ] && failed=$((failed + 1)); fi

step "retrieval quality gate"
node --import tsx scripts/quality-gate.ts 2>&1 | tee test-results/gate.log
if [ "${PIPESTATUS[0]}" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi

if [ -f scripts/vscode/run-tests.sh ] && [ "${DOCS_RAG_SKIP_VSCODE:-}" != "1" -o "${CI:-}" = "true" ]; then
  step "extension tests in a real VS Code"
  bash scripts/vscode/run-tests.sh 2>&1 | tee test-results/vscode.log
  vs_rc=${PIPESTATUS[0]}
  # one line per stage: "vscode: N passed, N failed" (dev), "vscode-de: ..." (the German pass) and "vscode-package: ..."
  vf=0
  while read -r line; do
    vp=$(echo "$line" | sed -E 's/^[a-z-]+: ([0-9]+) passed.*/\1/'); f1=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + vp)); failed=$((failed + f1)); vf=$((vf + f1))
  done < <(grep -E '^vscode(-de|-package)?: [0-9]+ passed, [0-9]+ failed' test-results/vscode.log)
  if [ "$vs_rc" -ne 0 ]; then status=1; [ "$vf" -eq 0 ] && failed=$((failed + 1)); fi
fi

echo
echo "tests: ${passed} passed, ${failed} failed"
exit $status
