#!/usr/bin/env bash
# Builds the evalcol distribution from builder-config.yaml with the
# OpenTelemetry Collector Builder v0.165.0 (installed with go install when
# missing) and checks that the binary starts with examples/config.yaml.
#
#   scripts/ocb-build.sh            # build into ./_build/evalcol and smoke-test it
#   SKIP_SMOKE=1 scripts/ocb-build.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BUILDER_VERSION=v0.165.0
GOBIN="$(go env GOPATH)/bin"
BUILDER="$GOBIN/builder"
installed=$("$BUILDER" version 2>/dev/null || true)
if [[ "$installed" != *"${BUILDER_VERSION#v}"* ]]; then
  echo "ocb: installing go.opentelemetry.io/collector/cmd/builder@$BUILDER_VERSION"
  go install "go.opentelemetry.io/collector/cmd/builder@$BUILDER_VERSION"
fi

echo "ocb: building _build/evalcol"
"$BUILDER" --config builder-config.yaml

if [ "${SKIP_SMOKE:-}" = 1 ]; then exit 0; fi

# Smoke test: the built binary starts with the default config and answers
# /healthz, on ports of its own so that it does not clash with a running evalcol
# (and without its telemetry port).
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
sed -e 's/127.0.0.1:8080/127.0.0.1:18080/; s/127.0.0.1:4317/127.0.0.1:14317/; s/127.0.0.1:4318/127.0.0.1:14318/' \
    -e "s#./data/evalcol.db#$work/evalcol.db#" examples/config.yaml > "$work/config.yaml"
# Its own metrics (127.0.0.1:8888 by default) are off: another collector on
# the machine may hold that port.
./_build/evalcol --config "$work/config.yaml" --config "yaml:service::telemetry::metrics::level: none" > "$work/log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  if curl -fsS http://127.0.0.1:18080/healthz >/dev/null 2>&1; then
    echo "ocb: _build/evalcol started with examples/config.yaml and answers /healthz"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then break; fi
  sleep 0.2
done
echo "ocb: the built binary did not come up; its log:" >&2
cat "$work/log" >&2
exit 1
