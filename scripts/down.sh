#!/usr/bin/env bash
# down.sh stops what scripts/up.sh started, and nothing else: the PIDs recorded in $STACK/pids
# (PostgreSQL through pg_ctl, the rest by TERM, then KILL after 5 s). State stays for the next up;
# `make down CLEAN=1` also removes it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
STACK=${STACK_DIR:-$PWD/.state/stack}
PG_BIN=${SENTINEL_PG_BIN:-}
if [ ! -s "$STACK/pids" ]; then
	echo "down: nothing recorded in $STACK/pids" >&2
else
	tac "$STACK/pids" | while read -r name pid; do
		if [ "$name" = postgres ] && [ -n "$PG_BIN" ]; then
			if [ "$(id -u)" = 0 ]; then
				runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$STACK/pg/data" -m fast -w stop >/dev/null 2>&1 || stop_pid "$pid"
			else
				"$PG_BIN/pg_ctl" -D "$STACK/pg/data" -m fast -w stop >/dev/null 2>&1 || stop_pid "$pid"
			fi
		else
			stop_pid "$pid"
		fi
		echo "down: stopped $name ($pid)"
	done
	: >"$STACK/pids"
fi
if [ "${CLEAN:-}" = 1 ]; then
	rm -rf "$STACK"
	echo "down: removed $STACK"
fi
