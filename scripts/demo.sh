#!/usr/bin/env bash
# demo.sh is the narrated demo `make demo` runs on the embedded default (SQLite, no containers):
#
#   1. start the broker (dev mode) and the unmigrated fixture on loopback
#   2. scan both with `sentinel probe`: the fixture fails the gate, the broker passes
#   3. run a scripted old-style client through `sentinel proxy` to the fixture: passive findings,
#      a prompt injection in a tool result among them
#   4. show the fixture's deprecation inventory with removal windows
#   5. export the proxy's findings as SARIF
#   6. verify the broker's audit chain
#   7. open the TUI on a terminal; otherwise print the stored findings
#
# Everything runs from ./bin (make build) with state under $DEMO_DIR (default .state/demo), and
# stops only the processes it started. Each step prints its result; a step that does not behave as
# described fails the demo with exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

BIN=${BIN:-bin}
STATE=${DEMO_DIR:-.state/demo}
rm -rf "$STATE"
mkdir -p "$STATE"
# The broker keeps its audit key and the checkpoint file it anchors the audit chain with in its
# state folder, outside the database, so that a replaced database shows as rewritten. The demo
# recreates its database on every run, so it gets a state folder of its own, wiped with it:
# otherwise the second run's chain would be checked against the first run's checkpoints.
export SENTINEL_STATE_DIR="$(cd "$STATE" && pwd)/state"
trap stop_started EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
[ -n "${NO_COLOR:-}" ] || [ ! -t 1 ] && step() { printf '\n== %s\n' "$*"; }
fail() { echo "demo: $*" >&2; exit 1; }

step "1. Start the broker (dev mode, SQLite under $STATE) and the unmigrated fixture"
start_bg broker "$STATE/broker.log" "$BIN/broker" serve --http 127.0.0.1:0 --dev --db "$STATE/broker.db"
BROKER=$(wait_url "$STATE/broker.log")
TOKEN=$(sed -n 's/^.*token: *\([^ ]*\).*$/\1/p' "$STATE/broker.log" | head -n1)
[ -n "$TOKEN" ] || fail "the broker printed no dev token"
start_bg fixture "$STATE/fixture.log" "$BIN/fixture" serve unmigrated --listen 127.0.0.1:0
FIXTURE=$(wait_url "$STATE/fixture.log")
echo "broker:  $BROKER"
echo "fixture: $FIXTURE"

step "2a. Scan the unmigrated fixture (expected: fails the MUST gate, exit 1)"
set +e
"$BIN/sentinel" probe --endpoint "$FIXTURE" --timeout 60s >"$STATE/fixture-scan.txt"
code=$?
head -n 30 "$STATE/fixture-scan.txt" # the report leads with the verdict and the top failures
set -e
echo "sentinel probe exited $code"
[ "$code" = 1 ] || fail "expected exit 1 from the fixture scan, got $code"

step "2b. Scan the broker (expected: passes the MUST gate, exit 0)"
set +e
SENTINEL_TOKEN=$TOKEN "$BIN/sentinel" probe --endpoint "$BROKER" --allow-call set_metric_policy --timeout 60s >"$STATE/broker-scan.txt"
code=$?
head -n 12 "$STATE/broker-scan.txt"
set -e
echo "sentinel probe exited $code"
[ "$code" = 0 ] || fail "expected exit 0 from the broker scan, got $code"

step "3. An old-style client talks to the fixture through sentinel proxy"
start_bg proxy "$STATE/proxy.log" "$BIN/sentinel" proxy --upstream "$FIXTURE" --listen 127.0.0.1:0 \
	--admin 127.0.0.1:0 --db "$STATE/findings.db"
PROXY=$(wait_url "$STATE/proxy.log")
ADMIN=$(sed -n 's/^.*admin on \(http[^ ]*\).*$/\1/p' "$STATE/proxy.log" | head -n1)
echo "proxy: $PROXY (admin API $ADMIN)"
"$BIN/fixture" client --url "$PROXY" | sed 's/^/  client: /'
# Grading runs off the hot path: wait (up to 10 s) until the injection finding has landed.
for _ in $(seq 1 50); do
	"$BIN/sentinel" findings list --db "$STATE/findings.db" --format json >"$STATE/findings.json"
	grep -q 'tool-outputs-sanitized' "$STATE/findings.json" && break
	sleep 0.2
done
grep -o '"id": *"MCP/[^"]*"' "$STATE/findings.json" | sed 's/.*"MCP\/[^/]*\/\([^/]*\)\/\([^"]*\)"/  \1  \2/' | sort -u
grep -q 'tool-outputs-sanitized' "$STATE/findings.json" ||
	fail "the prompt injection in the fixture's tool result was not flagged"
echo "  (prompt injection in a tool result: flagged)"

step "4. Deprecation inventory of the fixture, with removal windows"
"$BIN/sentinel" deprecations --endpoint "$FIXTURE"

step "5. Export the proxy's findings as SARIF"
"$BIN/sentinel" findings export --db "$STATE/findings.db" --format sarif --out "$STATE/findings.sarif"
echo "wrote $STATE/findings.sarif ($(wc -c <"$STATE/findings.sarif") bytes)"

step "6. Verify the broker's hash-chained audit log"
"$BIN/broker" audit verify --db "$STATE/broker.db"

step "7. Findings"
if [ -t 0 ] && [ -t 1 ] && [ -z "${CI:-}" ]; then
	echo "opening the TUI on the proxy (q to quit)"
	"$BIN/sentinel" tui --admin "$ADMIN"
else
	"$BIN/sentinel" findings list --db "$STATE/findings.db" | sed -n 1,40p
fi
echo
echo "demo: done. State is in $STATE."
