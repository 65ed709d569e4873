#!/usr/bin/env bash
# Runs evalcol's end-to-end tests against real client SDKs (Traceloop Node
# SDK 0.27.0 and 0.22.8, OpenInference's OpenAI instrumentation 4.2.7).
# Builds evalcol once, then `npm ci` and `node --test` in each package.
# Exits non-zero when any package fails; skips when Node.js is absent.
#
#   e2e/run.sh
set -uo pipefail

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "e2e: SKIP: node/npm not found; install Node.js >= 20 to run the end-to-end tests"
  exit 0
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "e2e: SKIP: Node.js $(node --version) is too old; the end-to-end tests need >= 20"
  exit 0
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(traceloop-js openinference-js traceloop-js-legacy)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

start=$SECONDS
# Phase 1, in parallel: build evalcol and install each package (npm ci).
echo "e2e: building evalcol and running npm ci in ${packages[*]}"
if [ -n "${EVALCOL_BIN:-}" ] && [ -x "$EVALCOL_BIN" ]; then
  cp "$EVALCOL_BIN" "$tmp/evalcol" # built by the caller (CI)
  true &
else
  (cd "$repo" && go build -o "$tmp/evalcol" ./cmd/evalcol) >"$tmp/build.log" 2>&1 &
fi
build_pid=$!
declare -A ci_pid
for p in "${packages[@]}"; do
  (cd "$repo/e2e/$p" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error) >"$tmp/npm-$p.log" 2>&1 &
  ci_pid[$p]=$!
done
if ! wait "$build_pid"; then
  wait # for the npm ci jobs, which write into $tmp
  cat "$tmp/build.log"
  echo "e2e: FAIL: go build ./cmd/evalcol"
  exit 1
fi
export EVALCOL_BIN="$tmp/evalcol"

# Phase 2, one package after the other: the tests.
failed=()
for p in "${packages[@]}"; do
  echo
  echo "=== e2e/$p"
  if ! wait "${ci_pid[$p]}"; then
    cat "$tmp/npm-$p.log"
    echo "e2e: FAIL: npm ci in e2e/$p"
    failed+=("$p")
    continue
  fi
  if ! (cd "$repo/e2e/$p" && node --test); then
    failed+=("$p")
  fi
done

echo
if [ "${#failed[@]}" -gt 0 ]; then
  echo "e2e: FAIL: ${failed[*]} ($((SECONDS - start)) s)"
  exit 1
fi
echo "e2e: PASS: ${packages[*]} ($((SECONDS - start)) s)"
