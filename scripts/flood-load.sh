#!/usr/bin/env bash
# One tenant's expensive evaluator calls against another's cheap ones, old
# build vs new build back to back. Key A floods regex-validator with a
# pattern that backtracks into the 250 ms match timeout on every call (wrk,
# FLOOD_CONNECTIONS connections); key B calls char-count (wrk, 1 thread, 16
# connections) without the flood and then during it. Records B's requests/s
# and p99 latency, and A's answers by status.
#
#   scripts/flood-load.sh                      # results in ./_load/flood/results.md
#   OLD_REF=main DURATION=5s CYCLES=4 ROUNDS=2 scripts/flood-load.sh /tmp/out
#
# OLD_REF is the git revision of the old build (default main); the new
# build runs with the default evaluator_limits. Each build runs CYCLES
# (default 4) cycles of B alone then B under the flood, DURATION (default
# 5s) each, alternating so that the drifting load of a shared machine hits
# both alike; the row gives the median ratio. Loopback only; needs go,
# git, curl, wrk (Debian package) and python3.
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=${1:-./_load/flood}
OLD_REF=${OLD_REF:-main}
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-5s}
CYCLES=${CYCLES:-4}
FLOOD_CONNECTIONS=${FLOOD_CONNECTIONS:-32}
KEY_A=flood-key-aaaaaaaa KEY_B=cheap-key-bbbbbbbb
API=127.0.0.1:28280 HTTP=127.0.0.1:24518
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

echo "building old ($OLD_REF) and new evalcol..." >&2
git worktree add --detach "$WORK/old-src" "$OLD_REF" >/dev/null 2>&1
(cd "$WORK/old-src" && go build -o "$WORK/evalcol-old" ./cmd/evalcol)
go build -o "$WORK/evalcol-new" ./cmd/evalcol
OLD_COMMIT=$(git rev-parse --short "$OLD_REF") NEW_COMMIT=$(git rev-parse --short HEAD)

cat >"$WORK/config.yaml" <<YAML
extensions:
  evalapi:
    endpoint: $API
    warehouse: {backend: sqlite, path: $WORK/evalcol.db}
    api_keys:
      - {key: $KEY_A, environment: team-a}
      - {key: $KEY_B, environment: team-b}
receivers:
  otlp:
    protocols:
      http: {endpoint: $HTTP, auth: {authenticator: evalapi}}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {logs: {level: error}, metrics: {level: none}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], exporters: [warehouse]}
YAML
python3 - "$WORK" "$KEY_A" "$KEY_B" <<'PY'
import json, sys
work, a, b = sys.argv[1:]
flood = json.dumps({"input": {"text": "a" * 50000 + "!"}, "config": {"regex": "(a+)+$"}})
cheap = json.dumps({"input": {"text": "Why did the pirate go to school?"}})
for name, key, body in (("flood", a, flood), ("cheap", b, cheap)):
    with open(f"{work}/{name}.lua", "w") as f:
        f.write('wrk.method = "POST"\n')
        f.write("wrk.body = %s\n" % json.dumps(body))
        f.write('wrk.headers["Authorization"] = "Bearer %s"\n' % key)
        f.write('wrk.headers["Content-Type"] = "application/json"\n')
        if name == "flood":
            # Count A's answers by status (response() runs in the thread).
            f.write('local threads = {}\n'
                    'function setup(thread) table.insert(threads, thread) end\n'
                    'function init(args) statuses = {} end\n'
                    'function response(status, headers, body) statuses[status] = (statuses[status] or 0) + 1 end\n')
        f.write('done = function(summary, latency, requests)\n'
                '  local s = ""\n'
                '  for _, t in ipairs(threads or {}) do\n'
                '    for code, n in pairs(t:get("statuses")) do s = s .. " " .. code .. ":" .. n end\n'
                '  end\n'
                '  io.write(string.format("RESULT %.1f %.2f %.2f%s\\n", summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000, s))\n'
                'end\n')
PY

# wrkrun NAME CONNECTIONS DURATION: prints "req/s p50ms p99ms|code:n ...".
wrkrun() {
  local name=$1 conns=$2 dur=$3
  wrk -t1 -c"$conns" -d"$dur" --timeout 10s -s "$WORK/$name.lua" "http://$API/v2/evaluators/execute/$([[ $name == flood ]] && echo regex-validator || echo char-count)" >"$WORK/$name.out" 2>&1 || true
  local r
  r=$(grep '^RESULT' "$WORK/$name.out" | cut -d' ' -f2-)
  echo "$(echo "$r" | cut -d' ' -f1-3)|$(echo "$r" | cut -d' ' -f4-)"
}

# run BUILD ROUND: one collector, CYCLES cycles of B alone then B under
# A's flood (alternating, so that a shared machine's drifting load hits
# both alike), one result row: the median ratio and every cycle's.
run() {
  local build=$1 round=$2
  rm -f "$WORK"/evalcol.db*
  "$WORK/evalcol-$build" --config "$WORK/config.yaml" >"$WORK/collector.log" 2>&1 &
  local pid=$!
  COLLECTOR=$pid
  for _ in $(seq 100); do
    curl -sf "http://$API/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  wrk -t1 -c16 -d2s -s "$WORK/cheap.lua" "http://$API/v2/evaluators/execute/char-count" >/dev/null 2>&1 || true # warm up
  local secs=${DURATION%s} ratios="" alones="" unders="" p99s="" flood=""
  for _ in $(seq "$CYCLES"); do
    local alone under
    alone=$(wrkrun cheap 16 "$DURATION")
    wrkrun flood "$FLOOD_CONNECTIONS" "$((secs + 2))s" >"$WORK/flood.result" &
    local fl=$!
    sleep 1
    under=$(wrkrun cheap 16 "$DURATION")
    wait $fl || true
    flood="$flood $(cat "$WORK/flood.result")"
    local b1 b2
    b1=$(echo "${alone%%|*}" | cut -d' ' -f1) b2=$(echo "${under%%|*}" | cut -d' ' -f1)
    alones="$alones $b1" unders="$unders $b2" p99s="$p99s $(echo "${under%%|*}" | cut -d' ' -f3)"
    ratios="$ratios $(python3 -c "print('%.2f' % ($b2 / $b1))")"
  done
  kill $pid && wait $pid || true
  local median answers
  median=$(python3 -c "import statistics,sys; print('%.2f' % statistics.median(map(float, sys.argv[1:])))" $ratios)
  answers=$(echo "$flood" | tr ' |' '\n\n' | grep ':' | awk -F: '{n[$1]+=$2} END {for (c in n) printf "%s:%d ", c, n[c]}')
  printf '| %s | %s (%s) | %s | %s | **%s** (%s) | %s | %s | %s |\n' "$round" "$build" \
    "$([[ $build == old ]] && echo "$OLD_COMMIT" || echo "$NEW_COMMIT")" "${alones# }" "${unders# }" "$median" "${ratios# }" \
    "${p99s# }" "$answers" "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/results.md"
}

{
  echo "# evalcol: key A floods regex-validator (each call runs into the 250 ms timeout), key B calls char-count, $(date -u +%FT%TZ)"
  echo
  echo "$(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $CYCLES cycles per build of B alone then B under A's flood, B: wrk -t1 -c16 -d$DURATION, A: wrk -t1 -c$FLOOD_CONNECTIONS; old = $OLD_REF ($OLD_COMMIT), new = $NEW_COMMIT (default evaluator_limits)"
  echo
  echo "| round | build | B alone req/s, per cycle | B under flood req/s, per cycle | B under / alone: median (per cycle) | B p99 ms under flood | A answers (status:count) | load avg |"
  echo "|---|---|---|---|---|---|---|---|"
} | tee "$OUT/results.md"
for round in $(seq "$ROUNDS"); do
  for build in old new; do
    run "$build" "$round"
  done
done
echo | tee -a "$OUT/results.md"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/results.md"
