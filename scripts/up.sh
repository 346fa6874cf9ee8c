#!/usr/bin/env bash
# up.sh starts the local stack as plain processes (no containers), all state under one folder:
#
#   PostgreSQL   a throwaway cluster from the system binaries, on a unix socket in $STACK/pg
#   broker ×2    two replicas sharing that database (one key pair, one requestState key)
#   fixture      the unmigrated fixture
#   sentinel     proxy in front of them: /mcp -> broker 1, /replica2/mcp -> broker 2,
#                /fixture/mcp -> the fixture; admin API beside it
#
# Every PID is written to $STACK/pids; scripts/down.sh stops exactly those. Prints the URLs and a
# token for tenant "acme" when ready.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

BIN=${BIN:-bin}
STACK=${STACK_DIR:-$PWD/.state/stack}
PROXY_PORT=${PROXY_PORT:-9100}
ADMIN_PORT=${ADMIN_PORT:-9101}
PG_BIN=${SENTINEL_PG_BIN:?run through make up, which sets SENTINEL_PG_BIN}
STATE=$STACK/run

if [ -s "$STACK/pids" ]; then
	echo "up: a stack is already recorded in $STACK/pids; run make down first" >&2
	exit 2
fi
mkdir -p "$STACK" "$STATE"
: >"$STACK/pids"
record() { echo "$1 $2" >>"$STACK/pids"; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
fail() { echo "up: $*" >&2; exit 1; }

# PostgreSQL: initdb once, then start; the socket lives in the stack folder.
PG=$STACK/pg
mkdir -p "$PG/run"
[ "$(id -u)" = 0 ] && chown -R postgres: "$PG"
if [ ! -f "$PG/data/PG_VERSION" ]; then
	as_pg "$PG_BIN/initdb" -D "$PG/data" -U postgres -A trust --no-locale -E UTF8 --no-sync >"$PG/initdb.log" 2>&1 ||
		fail "initdb failed: see $PG/initdb.log"
fi
as_pg "$PG_BIN/pg_ctl" -D "$PG/data" -l "$PG/log" -w -o "-c listen_addresses='' -k $PG/run" start >/dev/null ||
	fail "PostgreSQL did not start: see $PG/log"
record postgres "$(head -n1 "$PG/data/postmaster.pid")"
DSN="postgres://postgres@/postgres?host=$PG/run&sslmode=disable"
"$BIN/broker" migrate --db "$DSN" >/dev/null

# One key pair and one requestState key for both replicas, and a config naming the proxy's URL as
# the canonical URI: clients reach the brokers only through it.
CANON="http://127.0.0.1:$PROXY_PORT/mcp"
[ -f "$STACK/keys/private.pem" ] || "$BIN/broker" token keygen --out "$STACK/keys" >/dev/null
[ -f "$STACK/state.key" ] || echo "k1:$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" >"$STACK/state.key"
cat >"$STACK/broker.json" <<JSON
{
  "auth": {"issuer": "https://issuer.local", "canonicalURI": "$CANON", "publicKeyFile": "keys/public.pem"},
  "tenants": [
    {"tenantId": "acme", "aggregation": "strictest", "metrics": [
      {"metric": "flag_injection", "enabled": true, "threshold": 0.5, "onTimeout": "fail_closed"},
      {"metric": "check_groundedness", "enabled": true, "threshold": 0.6, "onTimeout": "fail_open"}
    ]}
  ]
}
JSON
for i in 1 2; do
	BROKER_STATE_KEYS=$(cat "$STACK/state.key") start_bg "broker$i" "$STACK/broker$i.log" \
		"$BIN/broker" serve --http 127.0.0.1:0 --config "$STACK/broker.json" --db "$DSN"
	record "broker$i" "$LAST_PID"
	declare "B$i=$(wait_url "$STACK/broker$i.log")"
done
start_bg fixture "$STACK/fixture.log" "$BIN/fixture" serve unmigrated --listen 127.0.0.1:0
record fixture "$LAST_PID"
FIXTURE=$(wait_url "$STACK/fixture.log")
start_bg proxy "$STACK/proxy.log" "$BIN/sentinel" proxy --upstream "$B1" \
	--route "/replica2=$B2" --route "/fixture=$FIXTURE" \
	--listen "127.0.0.1:$PROXY_PORT" --admin "127.0.0.1:$ADMIN_PORT" --db "$DSN"
record proxy "$LAST_PID"
wait_url "$STACK/proxy.log" >/dev/null
PIDS=() # everything is recorded for down.sh; do not stop it when this script exits

TOKEN=$("$BIN/broker" token mint --key "$STACK/keys/private.pem" --issuer https://issuer.local \
	--audience "$CANON" --tenant acme --subject developer --ttl 24h)
echo "$TOKEN" >"$STACK/token"
cat <<EOT
up: the stack is running (state in $STACK)
  broker (replica 1)   http://127.0.0.1:$PROXY_PORT/mcp          direct: $B1
  broker (replica 2)   http://127.0.0.1:$PROXY_PORT/replica2/mcp direct: $B2
  unmigrated fixture   http://127.0.0.1:$PROXY_PORT/fixture/mcp  direct: $FIXTURE
  proxy admin API      http://127.0.0.1:$ADMIN_PORT
  PostgreSQL           $DSN
  token (tenant acme)  $STACK/token
Try:  SENTINEL_TOKEN=\$(cat $STACK/token) $BIN/sentinel probe --endpoint http://127.0.0.1:$PROXY_PORT/mcp
      $BIN/sentinel tui --admin http://127.0.0.1:$ADMIN_PORT
Stop: make down
EOT
