#!/usr/bin/env bash
# Load test of evalcol: runs the SAME evalcol binary back to back in three
# configurations and drives each with cmd/otlpload (realistic LLM spans over
# OTLP/HTTP, real OTel Go SDK exporter) at increasing rates:
#
#   passthrough  otlp -> batch -> debug exporter (verbosity basic, sampled):
#                the baseline, nothing evaluated or stored
#   full         otlp -> memory_limiter -> tenant -> evaluator (5 evaluators
#                on every span) -> batch -> warehouse (SQLite on disk)
#   nomatch      the same pipeline, but the monitor matches no span
#   storeonly    (only when named in MODES) otlp -> memory_limiter -> tenant
#                -> batch -> warehouse: what storing costs without the
#                evaluator processor
#   default      (only when named in MODES) examples/config.yaml as shipped
#                (DEFAULT_CONFIG: its safety monitor, toxicity and pii on
#                chat spans), driven like the other modes
#   burst        (only when named in MODES) examples/config.yaml as shipped
#                (DEFAULT_CONFIG), flooded far above capacity (BURST_ARGS:
#                25 000 spans/s offered, 128 requests in flight, 30 s, 1 KB
#                texts); otlpload then checks through the API that every
#                span it got a success answer for is stored (the process
#                stays alive), and the row counts the acknowledged spans
#                that are not
#
# The warehouse modes run the durable pipeline shape of examples/config.yaml
# (PIPELINE=durable, the default: no batch processor, the exporter answers
# after its group commit) or the shape it had before (PIPELINE=legacy:
# batch processor and the exporter's in-memory sending_queue and retries),
# so that an older build runs the shape it shipped with. EVALCOL_BIN runs a
# prebuilt binary instead of building cmd/evalcol (old build vs new build:
# run the script twice into the same OUT with APPEND=1 and LABEL).
# SEARCH_INDEX=false runs the warehouse modes with SQLite's full-text
# index off (warehouse.search_index; a build before it has no such field).
#
# plus telemetrygen (small non-LLM spans) against the passthrough config.
# For each run it records spans/s sent, acknowledged and refused, the
# spans the exporter wrote by 1 s after the run (otelcol_exporter_sent_spans;
# less than acknowledged when the exporter queue grows), the collector's
# CPU (from /proc/<pid>/stat) and peak RSS, and the evaluation
# latency p50/p99 from the collector's own Prometheus metrics
# (otelcol_processor_evaluator_evaluation_duration, all slugs together).
#
#   scripts/load.sh                 # results in ./_load/results.md
#   PORT_BASE=30000 scripts/load.sh # ports 38080, 34318, 34317, 38888 instead of 2xxxx
#   RATES="1000 2000 max" DURATION=10s scripts/load.sh /tmp/out
#   MODES=full OTLPLOAD_ARGS="-min-bytes 1024 -max-bytes 1024" LABEL="1 KB" \
#     APPEND=1 scripts/load.sh /tmp/out   # add rows with 1 KB texts
#
#   EVALCOL_BIN=/tmp/old/evalcol PIPELINE=legacy LABEL=old MODES="full nomatch burst" \
#     DEFAULT_CONFIG=/tmp/old-src/examples/config.yaml APPEND=1 scripts/load.sh /tmp/out
#
# Loopback only; each load run lasts DURATION (default 15 s, at most 60 s).
# Needs go, curl, python3 (to read the histogram), and telemetrygen
# v0.161.0 in $PATH or ~/go/bin for its baseline (skipped when missing).
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=${1:-./_load}
RATES=${RATES:-"1000 2000 3000 4000 6000 max"}
DURATION=${DURATION:-15s}
MODES=${MODES:-"passthrough full nomatch"}
PIPELINE=${PIPELINE:-durable}
SEARCH_INDEX=${SEARCH_INDEX:-}
DEFAULT_CONFIG=${DEFAULT_CONFIG:-examples/config.yaml}
BURST_ARGS=${BURST_ARGS:-"-rate 25000 -concurrency 128 -duration 30s -min-bytes 1024 -max-bytes 1024"}
KEY=load-test-key
# PORT_BASE moves every port (API, OTLP/HTTP, OTLP/gRPC, metrics) so that two
# runs on one machine do not answer each other's load.
PORT_BASE=${PORT_BASE:-20000}
API=127.0.0.1:$((PORT_BASE + 8080)) HTTP=127.0.0.1:$((PORT_BASE + 4318)) METRICS_PORT=$((PORT_BASE + 8888))
GRPC=127.0.0.1:$((PORT_BASE + 4317))
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

case ${DURATION%s} in
  '' | *[!0-9]*) echo "DURATION must be whole seconds like 15s" >&2; exit 2 ;;
esac
if (( ${DURATION%s} > 60 )); then echo "DURATION must be at most 60s" >&2; exit 2; fi

case $PIPELINE in durable | legacy) ;; *) echo "PIPELINE must be durable or legacy" >&2; exit 2 ;; esac
if [[ -n ${EVALCOL_BIN:-} ]]; then
  cp "$EVALCOL_BIN" "$WORK/evalcol"
else
  echo "building evalcol..." >&2
  go build -o "$WORK/evalcol" ./cmd/evalcol
fi
echo "building otlpload..." >&2
go build -o "$WORK/otlpload" ./cmd/otlpload
TELEMETRYGEN=$(command -v telemetrygen || true)
[[ -z $TELEMETRYGEN && -x $HOME/go/bin/telemetrygen ]] && TELEMETRYGEN=$HOME/go/bin/telemetrygen

# config MODE DBDIR: prints the collector config of a mode.
config() {
  local mode=$1 db=$2 processors exporter monitor="" batch="" warehouse="{api: evalapi}"
  if [[ $PIPELINE == legacy ]]; then
    batch=", batch"
    warehouse="{api: evalapi, sending_queue: {enabled: true}, retry_on_failure: {enabled: true}}"
  fi
  case $mode in
    passthrough) processors="[batch]" exporter=debug ;;
    full) processors="[memory_limiter, tenant, evaluator$batch]" exporter=warehouse ;;
    nomatch) processors="[memory_limiter, tenant, evaluator$batch]" exporter=warehouse
      monitor="condition: 'attributes[\"traceloop.workflow.name\"] == \"no-such-workflow\"'" ;;
    storeonly) processors="[memory_limiter, tenant$batch]" exporter=warehouse ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
  cat <<EOF
extensions:
  evalapi:
    endpoint: $API
    warehouse: {backend: sqlite, path: $db/evalcol.db${SEARCH_INDEX:+, search_index: $SEARCH_INDEX}}
    api_keys: [{key: $KEY, environment: production}]
receivers:
  otlp:
    protocols:
      http: {endpoint: $HTTP, auth: {authenticator: evalapi}}
processors:
  memory_limiter: {check_interval: 1s, limit_percentage: 80, spike_limit_percentage: 20}
  tenant: {}
  evaluator:
    monitors:
      - name: load
        evaluators: [toxicity-detector, pii-detector, secrets-detector, prompt-injection, char-count]
        ${monitor:-}
  batch: {}
exporters:
  debug: {verbosity: basic, sampling_initial: 1, sampling_thereafter: 1000000}
  warehouse: $warehouse
service:
  telemetry:
    logs: {level: warn}
    metrics:
      level: detailed
      readers:
        - pull: {exporter: {prometheus: {host: 127.0.0.1, port: $METRICS_PORT}}}
      views:
        - selector: {instrument_name: otelcol_processor_evaluator_evaluation_duration}
          stream:
            aggregation:
              explicit_bucket_histogram:
                boundaries: [0.00001, 0.00002, 0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: $processors, exporters: [$exporter]}
EOF
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# metrics_summary FILE: prints "accepted refused exported p50_ms p99_ms"
# from a Prometheus scrape.
metrics_summary() {
  python3 - "$1" <<'PY'
import re, sys
acc = ref = sent = 0.0
buckets = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    m = re.match(r'(\w+)(\{[^}]*\})? (\S+)', line)
    if not m:
        continue
    name, labels, value = m.group(1), m.group(2) or "", float(m.group(3))
    if name.startswith("otelcol_receiver_accepted_spans"):
        acc += value
    elif name.startswith("otelcol_receiver_refused_spans"):
        ref += value
    elif name.startswith("otelcol_exporter_sent_spans"):
        sent += value
    elif name == "otelcol_processor_evaluator_evaluation_duration_bucket":
        le = re.search(r'le="([^"]+)"', labels).group(1)
        le = float("inf") if le == "+Inf" else float(le)
        buckets[le] = buckets.get(le, 0) + value
def quantile(q):
    if not buckets or max(buckets.values()) == 0:
        return "-"
    total = buckets[float("inf")]
    prev_le, prev_n = 0.0, 0.0
    for le in sorted(buckets):
        n = buckets[le]
        if n >= q * total:
            if le == float("inf"):
                return ">%g" % (prev_le * 1000)
            frac = (q * total - prev_n) / (n - prev_n) if n > prev_n else 1
            return "%.3g" % ((prev_le + frac * (le - prev_le)) * 1000)
        prev_le, prev_n = le, n
print(int(acc), int(ref), int(sent), quantile(0.5), quantile(0.99))
PY
}

# run MODE RATE GENERATOR: one collector, one load run, one result row.
run() {
  local mode=$1 rate=$2 gen=$3
  local name="$mode${LABEL:+-${LABEL// /}}-$gen-$rate"
  local db="$WORK/db-$name"
  mkdir -p "$db"
  local telemetry=()
  if [[ $mode == burst || $mode == default ]]; then
    # examples/config.yaml as shipped, on the script's ports and key.
    sed -e "s#127.0.0.1:8080#$API#; s#127.0.0.1:4318#$HTTP#; s#127.0.0.1:4317#$GRPC#" \
        -e "s#./data/evalcol.db#$db/evalcol.db#" -e "s#\${env:EVALCOL_API_KEY:-evalcol-dev-key}#$KEY#" \
        "$DEFAULT_CONFIG" >"$WORK/config.yaml"
    telemetry=(--config "yaml:service::telemetry::metrics::readers: [{pull: {exporter: {prometheus: {host: 127.0.0.1, port: $METRICS_PORT}}}}]")
  else
    config "$mode" "$db" >"$WORK/config.yaml"
  fi
  "$WORK/evalcol" --config "$WORK/config.yaml" "${telemetry[@]}" >"$WORK/collector-$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do
    curl -sf "http://$API/healthz" >/dev/null 2>&1 && curl -s -o /dev/null "http://$HTTP/" 2>/dev/null && break
    sleep 0.1
  done
  sleep 1
  local t0 c0 peak=0 rss
  t0=$(date +%s.%N) c0=$(cpu_ticks $pid)
  local loadrate=$rate
  [[ $rate == max ]] && loadrate=0
  local report="$OUT/$name.json"
  if [[ $mode == burst ]]; then
    # shellcheck disable=SC2086 # BURST_ARGS is a list of flags
    "$WORK/otlpload" -endpoint "$HTTP" -api-key "$KEY" $BURST_ARGS -verify-api "$API" >"$report" &
  elif [[ $gen == otlpload ]]; then
    # shellcheck disable=SC2086 # OTLPLOAD_ARGS is a list of flags
    "$WORK/otlpload" -endpoint "$HTTP" -api-key "$KEY" -rate "$loadrate" -duration "$DURATION" ${OTLPLOAD_ARGS:-} >"$report" &
  else
    # telemetrygen: --rate is spans/s per worker; 0 means unthrottled.
    local workers=1 tgrate=$loadrate
    [[ $loadrate == 0 ]] && workers=4
    "$TELEMETRYGEN" traces --otlp-http --otlp-insecure --otlp-endpoint "$HTTP" \
      --otlp-header "Authorization=\"Bearer $KEY\"" --rate "$tgrate" --workers $workers \
      --duration "$DURATION" >"$report" 2>&1 &
  fi
  local lg=$!
  while kill -0 $lg 2>/dev/null; do
    rss=$(rss_kib $pid) && ((rss > peak)) && peak=$rss
    sleep 0.5
  done
  wait $lg || true
  local t1 c1 clk
  t1=$(date +%s.%N) c1=$(cpu_ticks $pid) clk=$(getconf CLK_TCK)
  sleep 1 # let the last batch through before scraping
  curl -s "http://127.0.0.1:$METRICS_PORT/metrics" >"$OUT/$name.prom"
  kill $pid && wait $pid || true # SIGTERM: SQLite checkpoints its WAL into the file
  cp "$WORK/collector-$name.log" "$OUT/" 2>/dev/null || true
  local diskbytes
  diskbytes=$(du -sb "$db" | cut -f1)
  local secs cpu acc ref p50 p99 load
  secs=$(echo "$t1 - $t0" | bc -l)
  cpu=$(echo "100 * ($c1 - $c0) / $clk / $secs" | bc -l)
  local exported
  read -r acc ref exported p50 p99 < <(metrics_summary "$OUT/$name.prom")
  local accps refps
  accps=$(echo "$acc / $secs" | bc -l) refps=$(echo "$ref / $secs" | bc -l)
  if [[ $gen == otlpload ]]; then # the sender's own count of acknowledged spans
    read -r accps refps < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["acknowledged_per_s"], r["refused_per_s"])' "$report")
  fi
  load=$(cut -d' ' -f1 /proc/loadavg)
  if [[ $mode == burst ]]; then
    local verdict
    verdict=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print("%d acknowledged, %d refused (503), %d failed (timeouts), %d stored, **%d acknowledged lost**%s" % (r["acknowledged_spans"], r["refused_spans"], r["failed_spans"], r.get("stored_spans", 0), r["acknowledged_lost"], "" if r.get("verified") else " (not verified: %s)" % r.get("verify_error", "")))' "$report")
    printf '| %s | otlpload, %s | %s | %.0f | – | %.0f | – | – | %.0f | %s | – | – | %s |\n' \
      "$mode${LABEL:+ $LABEL}" "$(basename "$DEFAULT_CONFIG")" "$BURST_ARGS" "$accps" "$refps" \
      "$((peak / 1024))" "$verdict" "$load" | tee -a "$OUT/results.md"
    return
  fi
  local perspan="–"
  [[ $mode != passthrough && $acc -gt 0 ]] && perspan=$((diskbytes / acc)) # per span answered success (all stored by now)
  printf '| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s | %s | %s |\n' \
    "$mode${LABEL:+ $LABEL}" "$gen" "$rate" "$accps" "$(echo "$exported / $secs" | bc -l)" "$refps" "$cpu" "$(echo "100 * $accps / ($cpu + 0.001)" | bc -l)" \
    "$((peak / 1024))" "$p50" "$p99" "$perspan" "$load" | tee -a "$OUT/results.md"
}

[[ -n ${APPEND:-} && -f $OUT/results.md ]] || {
  echo "# evalcol load run $(date -u +%FT%TZ)"
  echo
  echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load average at start: $(cut -d' ' -f1-3 /proc/loadavg); duration $DURATION per run"
  echo
  echo "| mode | generator | target spans/s | acknowledged spans/s | exported spans/s | refused spans/s | collector CPU % | acknowledged per CPU-s | peak RSS MiB | eval p50 ms | eval p99 ms | disk bytes per span | load avg |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} | tee "$OUT/results.md"

for mode in $MODES; do
  for rate in $RATES; do
    run "$mode" "$rate" otlpload
  done
done
if [[ -n $TELEMETRYGEN && " $MODES " == *" passthrough "* && -z ${OTLPLOAD_ARGS:-} ]]; then
  for rate in $RATES; do
    run passthrough "$rate" telemetrygen
  done
fi
echo >>"$OUT/results.md"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/results.md"
