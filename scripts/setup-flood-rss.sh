#!/usr/bin/env bash
# One tenant's setup flood against another tenant's OTLP, on the real
# binary (issue #32, item 1): a collector built from this tree
# (otlp -> memory_limiter -> tenant -> warehouse on SQLite, the console
# on), key A creates setups at every request limit (63 unknown 256-byte
# evaluator names, a 16 KiB selector, a 1 KiB entity value) until the
# collector refuses one, then renders the console's monitors page and
# GET /v2/auto-monitor-setups?limit=1000 three times each at once, ROUNDS
# times, while key B posts OTLP spans every 50 ms. Prints the setups
# stored, the page sizes, the collector's RSS (VmRSS sampled every 100 ms:
# before the renders and its peak during them, and VmHWM) and B's answers.
#
#   scripts/setup-flood-rss.sh            # ROUNDS=3 MAX_SETUPS=1000
#   BIN=/tmp/evalcol-old MAX_SETUPS=200 scripts/setup-flood-rss.sh   # a binary built elsewhere
#
# Loopback only; needs go, curl and python3.
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
MAX_SETUPS=${MAX_SETUPS:-1000}
KEY_A=flood-key-a-0001 KEY_B=flood-key-b-0001
WORK=$(mktemp -d)
PID=""
cleanup() {
  [[ -n $PID ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  jobs -p | xargs -r kill 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
API=127.0.0.1:$(free_port) OTLP=127.0.0.1:$(free_port)

if [[ -n ${BIN:-} ]]; then
  cp "$BIN" "$WORK/evalcol"
else
  echo "building evalcol..." >&2
  go build -o "$WORK/evalcol" ./cmd/evalcol
fi
cat >"$WORK/config.yaml" <<YAML
extensions:
  evalapi:
    endpoint: $API
    warehouse: {backend: sqlite, path: $WORK/evalcol.db}
    api_keys:
      - {key: $KEY_A, environment: tenant-a}
      - {key: $KEY_B, environment: tenant-b}
receivers:
  otlp:
    protocols:
      http: {endpoint: $OTLP, auth: {authenticator: evalapi}}
processors:
  memory_limiter: {check_interval: 1s, limit_mib: 1024, spike_limit_mib: 256}
  tenant: {}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}, logs: {level: warn}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [memory_limiter, tenant], exporters: [warehouse]}
YAML
"$WORK/evalcol" --config "$WORK/config.yaml" >"$WORK/collector.log" 2>&1 &
PID=$!
for _ in $(seq 100); do curl -sf "http://$API/healthz" >/dev/null && break; sleep 0.1; done

rss() { awk '/^VmRSS/ {print int($2/1024)}' "/proc/$PID/status"; }
hwm() { awk '/^VmHWM/ {print int($2/1024)}' "/proc/$PID/status"; }

# B's OTLP, all along.
(
  while :; do
    now=$(date +%s%N)
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$OTLP/v1/traces" -H "Authorization: Bearer $KEY_B" \
      -H 'Content-Type: application/json' -d '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",
      "spanId":"'"$(printf '%016x' "$RANDOM$RANDOM")"'","name":"chat","kind":3,"startTimeUnixNano":"'"$now"'","endTimeUnixNano":"'"$((now + 1000000))"'"}]}]}]}')
    echo "$code" >>"$WORK/otlp.codes"
    sleep 0.05
  done
) &

# A's setups.
python3 - "$WORK/setup.json" <<'PY'
import json, sys
names = ["%03d-%s" % (i, "n" * 252) for i in range(63)]
sel = {"key-%02d" % i: "v" * 240 for i in range(60)}
json.dump({"entity_type": "workflow", "entity_value": "e" * 1024, "evaluators": names, "selector": sel}, open(sys.argv[1], "w"))
PY
created=0 refusal=""
for i in $(seq "$MAX_SETUPS"); do
  code=$(curl -s -o "$WORK/answer" -w '%{http_code}' -X POST "http://$API/v2/auto-monitor-setups" \
    -H "Authorization: Bearer $KEY_A" --data-binary @"$WORK/setup.json")
  if [[ $code != 201 ]]; then refusal="$code $(cat "$WORK/answer")"; break; fi
  created=$((created + 1))
done
echo "setups stored by A: $created; then: ${refusal:-none refused}"

# A's console session.
csrf=$(curl -s -c "$WORK/jar" "http://$API/ui/login" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -1)
curl -s -b "$WORK/jar" -c "$WORK/jar" -o /dev/null "http://$API/ui/login" --data-urlencode "csrf=$csrf" --data-urlencode "api_key=$KEY_A"

sleep 2
before=$(rss)
peak=$before
(
  while :; do rss >>"$WORK/rss"; sleep 0.1; done
) &
SAMPLER=$!
start=$(date +%s.%N)
for round in $(seq "$ROUNDS"); do
  pids=()
  for _ in 1 2 3; do
    curl -s -b "$WORK/jar" -o /dev/null -w 'console %{http_code} %{size_download} B\n' "http://$API/ui/monitors" >>"$WORK/pages" &
    pids+=($!)
    curl -s -H "Authorization: Bearer $KEY_A" -o /dev/null -w 'api %{http_code} %{size_download} B\n' \
      "http://$API/v2/auto-monitor-setups?limit=1000" >>"$WORK/pages" &
    pids+=($!)
  done
  wait "${pids[@]}"
done
sleep 0.5
kill "$SAMPLER" 2>/dev/null || true
peak=$(sort -n "$WORK/rss" | tail -1)
echo "renders: $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s for $ROUNDS rounds of 3 console + 3 API"
sort "$WORK/pages" | uniq -c | sed 's/^/  /'
echo "collector RSS: ${before} MiB before the renders, peak ${peak} MiB during them (+$((peak - before)) MiB), VmHWM $(hwm) MiB"
echo "B's OTLP answers: $(sort "$WORK/otlp.codes" | uniq -c | tr '\n' ' ')"
