#!/usr/bin/env bash
# Runs a local ClickHouse server for evalcol's ClickHouse warehouse tests.
#
#   scripts/clickhouse.sh start    install (apt, as root) when missing, start, wait, print the address
#   scripts/clickhouse.sh stop     stop the server started by this script
#   scripts/clickhouse.sh status   say whether it runs (exit 0) or not (exit 1)
#
# Debian bookworm ships ClickHouse 18.16, whose post-install cannot start the
# service in a container, so the server runs by hand from a scratch directory
# ($CLICKHOUSE_DIR, default /tmp/evalcol-clickhouse) as the clickhouse user,
# listening on 127.0.0.1 only: native port $CLICKHOUSE_PORT (default 19000),
# HTTP port $CLICKHOUSE_HTTP_PORT (default 18123), interserver port
# $CLICKHOUSE_INTERSERVER_PORT (default 19009), so that it does not clash with a
# system ClickHouse. `start` is idempotent and ends by printing
#   EVALCOL_CLICKHOUSE_ADDR=127.0.0.1:19000
# which CI exports for `go test ./internal/warehouse/clickhouse/`.
set -euo pipefail
# clickhouse-server and runuser live in sbin, which a non-login PATH may lack.
export PATH="$PATH:/usr/sbin:/sbin"

DIR="${CLICKHOUSE_DIR:-/tmp/evalcol-clickhouse}"
PORT="${CLICKHOUSE_PORT:-19000}"
HTTP_PORT="${CLICKHOUSE_HTTP_PORT:-18123}"
INTERSERVER_PORT="${CLICKHOUSE_INTERSERVER_PORT:-19009}"
PIDFILE="$DIR/clickhouse-server.pid"
ADDR="127.0.0.1:$PORT"

log() { printf 'clickhouse.sh: %s\n' "$*" >&2; }

running() {
  [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

answers() {
  clickhouse-client --host 127.0.0.1 --port "$PORT" --query 'SELECT 1' >/dev/null 2>&1
}

install() {
  if command -v clickhouse-server >/dev/null 2>&1 && command -v clickhouse-client >/dev/null 2>&1; then
    return
  fi
  if [ "$(id -u)" -ne 0 ]; then
    log "clickhouse-server/clickhouse-client are missing and installing them needs root"
    exit 1
  fi
  log "installing clickhouse-server and clickhouse-client with apt"
  apt-get update -qq
  # The package's post-install tries to start the service and fails in
  # containers; the binaries are installed all the same.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clickhouse-server clickhouse-client >/dev/null ||
    command -v clickhouse-server >/dev/null
}

# write_config copies the packaged config into $DIR and points every path
# and port at the scratch directory.
write_config() {
  mkdir -p "$DIR/data" "$DIR/tmp" "$DIR/user_files" "$DIR/format_schemas" "$DIR/log"
  local src=/etc/clickhouse-server
  # Only the first <path> is the data path (a later one is distributed DDL's
  # ZooKeeper path).
  sed -e "0,\#<path>[^<]*</path>#s##<path>$DIR/data/</path>#" \
      -e "s#<tmp_path>[^<]*</tmp_path>#<tmp_path>$DIR/tmp/</tmp_path>#" \
      -e "s#<user_files_path>[^<]*</user_files_path>#<user_files_path>$DIR/user_files/</user_files_path>#" \
      -e "s#<format_schema_path>[^<]*</format_schema_path>#<format_schema_path>$DIR/format_schemas/</format_schema_path>#" \
      -e "s#<log>[^<]*</log>#<log>$DIR/log/clickhouse-server.log</log>#" \
      -e "s#<errorlog>[^<]*</errorlog>#<errorlog>$DIR/log/clickhouse-server.err.log</errorlog>#" \
      -e "s#<level>trace</level>#<level>warning</level>#" \
      -e "s#<tcp_port>[^<]*</tcp_port>#<tcp_port>$PORT</tcp_port>#" \
      -e "s#<http_port>[^<]*</http_port>#<http_port>$HTTP_PORT</http_port>#" \
      -e "s#<interserver_http_port>[^<]*</interserver_http_port>#<interserver_http_port>$INTERSERVER_PORT</interserver_http_port>#" \
      -e "s#<users_config>[^<]*</users_config>#<users_config>$DIR/users.xml</users_config>#" \
      -e "s#<include_from>[^<]*</include_from>##" \
      -e "/<listen_host>/d" \
      "$src/config.xml" > "$DIR/config.xml.tmp"
  # One listen_host, loopback only.
  sed -i "s#</tcp_port>#</tcp_port>\n    <listen_host>127.0.0.1</listen_host>#" "$DIR/config.xml.tmp"
  mv "$DIR/config.xml.tmp" "$DIR/config.xml"
  cp "$src/users.xml" "$DIR/users.xml"
  chown -R clickhouse "$DIR" 2>/dev/null || true
}

start() {
  install
  if running && answers; then
    log "already running (pid $(cat "$PIDFILE"))"
    echo "EVALCOL_CLICKHOUSE_ADDR=$ADDR"
    return
  fi
  if running; then
    log "pid $(cat "$PIDFILE") runs but does not answer; waiting for it"
  else
    write_config
    local runas=()
    if [ "$(id -u)" -eq 0 ] && id clickhouse >/dev/null 2>&1; then
      runas=(runuser -u clickhouse --)
    fi
    # The server runs in the background, detached from this shell.
    nohup "${runas[@]}" "$(command -v clickhouse-server)" --config-file="$DIR/config.xml" \
      >"$DIR/log/stdout.log" 2>&1 </dev/null &
    local launcher=$! server=""
    # With runuser the server is the launcher's child; record the server
    # itself so that stop signals it directly.
    for _ in $(seq 1 50); do
      if [ ${#runas[@]} -eq 0 ]; then server=$launcher; break; fi
      server=$(pgrep -P "$launcher" 2>/dev/null | head -n 1 || true)
      [ -n "$server" ] && break
      kill -0 "$launcher" 2>/dev/null || break
      sleep 0.1
    done
    echo "${server:-$launcher}" >"$PIDFILE"
  fi
  for _ in $(seq 1 150); do
    if answers; then
      echo "EVALCOL_CLICKHOUSE_ADDR=$ADDR"
      return
    fi
    if ! running; then
      log "the server exited; last log lines:"
      tail -n 20 "$DIR/log/stdout.log" "$DIR/log/clickhouse-server.err.log" 2>/dev/null >&2 || true
      exit 1
    fi
    sleep 0.2
  done
  log "the server did not answer SELECT 1 on $ADDR within 30 s"
  exit 1
}

stop() {
  if ! running; then
    log "not running"
    rm -f "$PIDFILE"
    return
  fi
  local pid
  pid=$(cat "$PIDFILE")
  # runuser forwards the signal to the server.
  kill "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not stop in 10 s; sending KILL"
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDFILE"
  log "stopped"
}

status() {
  if running && answers; then
    echo "running (pid $(cat "$PIDFILE")), EVALCOL_CLICKHOUSE_ADDR=$ADDR"
    return 0
  fi
  echo "not running"
  return 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
