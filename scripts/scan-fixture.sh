#!/usr/bin/env bash
# scan-fixture.sh starts the unmigrated fixture on a free loopback port, scans it with
# `sentinel probe`, stops the fixture, and exits with the probe's exit code. The fixture breaks
# the 2026-07-28 revision on purpose, so the expected exit code is 1 (the target failed the gate);
# 2 means the scanner could not run.
#
#   scripts/scan-fixture.sh [extra sentinel probe flags...]
#
# Binaries come from ./bin (make build); BIN overrides the directory.
set -euo pipefail

cd "$(dirname "$0")/.."
BIN="${BIN:-bin}"
for b in fixture sentinel; do
	if [ ! -x "$BIN/$b" ]; then
		echo "scan-fixture: $BIN/$b is missing: run \`make build\` first" >&2
		exit 2
	fi
done

out=$(mktemp)
"$BIN/fixture" serve unmigrated --listen 127.0.0.1:0 >"$out" 2>&1 &
pid=$!
cleanup() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -f "$out"
}
trap cleanup EXIT

url=""
for _ in $(seq 1 100); do # up to 10 s
	url=$(sed -n 's/^listening on //p' "$out" | head -n1)
	[ -n "$url" ] && break
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "scan-fixture: the fixture exited before it was ready:" >&2
		cat "$out" >&2
		exit 2
	fi
	sleep 0.1
done
if [ -z "$url" ]; then
	echo "scan-fixture: the fixture printed no URL within 10 s" >&2
	exit 2
fi

echo "scan-fixture: scanning the unmigrated fixture at $url (expected exit code 1)" >&2
set +e
# The operator's grants for this fixture: its tools without readOnlyHint change only the
# fixture's memory, and get_weather needs a city it knows (its schema cannot say which).
grants=(--allow-call connect_db --allow-call import_notes --allow-call summarize_workspace
	--allow-call sync_calendar --allow-call bulk_export --tool-args 'get_weather={"city":"Paris"}')
"$BIN/sentinel" probe --endpoint "$url" "${grants[@]}" "$@"
code=$?
set -e
echo "scan-fixture: sentinel probe exited $code" >&2
exit "$code"
