#!/usr/bin/env bash
# Ingest with auto monitor setups that match nothing, old build vs new build
# back to back: for each build and each number of setups, a fresh collector
# (otlp -> memory_limiter -> tenant -> evaluator {api: evalapi}, no static
# monitor -> warehouse on SQLite, the durable default shape), cmd/otlpload -setups N to create
# N setups of workflows its spans never carry (in the spans' environment)
# and wait until they are loaded, then cmd/otlpload unthrottled for DURATION.
# Records acknowledged spans/s, the collector's CPU over the load phase and
# acknowledged spans per CPU-second.
#
#   scripts/setups-load.sh                       # results in ./_load/setups/results.md
#   OLD_REF=main SETUPS="0 10000" ROUNDS=2 DURATION=15s scripts/setups-load.sh /tmp/out
#
# OLD_REF is the git revision of the old build (default main). Loopback
# only; needs go, git, curl, python3 and bc.
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=${1:-./_load/setups}
OLD_REF=${OLD_REF:-main}
SETUPS=${SETUPS:-"0 10000"}
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-15s}
KEY=load-test-key
API=127.0.0.1:28180 HTTP=127.0.0.1:24418
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
COLLECTOR=""
cleanup() {
  [[ -n $COLLECTOR ]] && kill "$COLLECTOR" 2>/dev/null || true
  git worktree remove --force "$WORK/old-src" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "building old ($OLD_REF) and new evalcol, and otlpload..." >&2
git worktree add --detach "$WORK/old-src" "$OLD_REF" >/dev/null 2>&1
(cd "$WORK/old-src" && go build -o "$WORK/evalcol-old" ./cmd/evalcol)
go build -o "$WORK/evalcol-new" ./cmd/evalcol
go build -o "$WORK/otlpload" ./cmd/otlpload
OLD_COMMIT=$(git rev-parse --short "$OLD_REF") NEW_COMMIT=$(git rev-parse --short HEAD)

config() {
  cat <<YAML
extensions:
  evalapi:
    endpoint: $API
    warehouse: {backend: sqlite, path: $1/evalcol.db}
    api_keys: [{key: $KEY, environment: production}]
    max_setups_per_environment: 20000 # the test creates up to 10 000 in one environment
receivers:
  otlp:
    protocols:
      http: {endpoint: $HTTP, auth: {authenticator: evalapi}}
processors:
  memory_limiter: {check_interval: 1s, limit_percentage: 80, spike_limit_percentage: 20}
  tenant: {}
  evaluator: {api: evalapi}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {logs: {level: warn}, metrics: {level: none}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [memory_limiter, tenant, evaluator], exporters: [warehouse]}
YAML
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run BUILD SETUPS ROUND: one collector, one result row.
run() {
  local build=$1 n=$2 round=$3
  local db="$WORK/db-$build-$n-$round"
  mkdir -p "$db"
  config "$db" >"$WORK/config.yaml"
  "$WORK/evalcol-$build" --config "$WORK/config.yaml" >"$WORK/collector.log" 2>&1 &
  local pid=$!
  COLLECTOR=$pid
  for _ in $(seq 100); do
    curl -sf "http://$API/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  local setup_s=0
  if ((n > 0)); then
    setup_s=$("$WORK/otlpload" -endpoint "$HTTP" -api "$API" -api-key "$KEY" -setups "$n" -rate 100 -duration 1s |
      python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["setup_seconds"])')
  fi
  sleep 1
  local t0 c0 t1 c1
  t0=$(date +%s.%N) c0=$(cpu_ticks $pid)
  # A long export timeout: before the index, 10 000 setups made one
  # request of 100 spans take more than the default 10 s.
  "$WORK/otlpload" -endpoint "$HTTP" -api-key "$KEY" -rate 0 -duration "$DURATION" -timeout 120s >"$OUT/$build-$n-$round.json"
  t1=$(date +%s.%N) c1=$(cpu_ticks $pid)
  kill $pid && wait $pid || true
  local secs cpu acc load
  secs=$(echo "$t1 - $t0" | bc -l)
  cpu=$(echo "100 * ($c1 - $c0) / $(getconf CLK_TCK) / $secs" | bc -l)
  acc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["acknowledged_per_s"])' "$OUT/$build-$n-$round.json")
  load=$(cut -d' ' -f1 /proc/loadavg)
  printf '| %s | %s (%s) | %s | %.0f | %.0f | %.0f | %s | %s |\n' "$round" "$build" "$([[ $build == old ]] && echo "$OLD_COMMIT" || echo "$NEW_COMMIT")" \
    "$n" "$acc" "$cpu" "$(echo "100 * $acc / ($cpu + 0.001)" | bc -l)" "$setup_s" "$load" | tee -a "$OUT/results.md"
}

{
  echo "# evalcol ingest with auto monitor setups that match nothing, $(date -u +%FT%TZ)"
  echo
  echo "$(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $DURATION per run; old = $OLD_REF ($OLD_COMMIT), new = $NEW_COMMIT"
  echo
  echo "| round | build | setups | acknowledged spans/s | collector CPU % | acknowledged per CPU-s | setups created and loaded in s | load avg |"
  echo "|---|---|---|---|---|---|---|---|"
} | tee "$OUT/results.md"
for round in $(seq "$ROUNDS"); do
  for build in old new; do
    for n in $SETUPS; do
      run "$build" "$n" "$round"
    done
  done
done
echo | tee -a "$OUT/results.md"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/results.md"
