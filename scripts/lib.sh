# lib.sh: shell helpers shared by the demo and stack scripts. Source it; it defines functions only.
#
#   start_bg NAME LOG CMD...   start CMD in the background, record its PID in PIDS and $STATE/NAME.pid
#   wait_url LOG [SECONDS]     print the URL the server logged as "listening on URL", waiting up to
#                              SECONDS (default 20); fails if the process died or never said it
#   stop_started               stop, by PID, only what start_bg started (TERM, then KILL after 5 s)

PIDS=()

start_bg() {
	local name=$1 log=$2
	shift 2
	"$@" >"$log" 2>&1 &
	local pid=$!
	PIDS+=("$pid")
	if [ -n "${STATE:-}" ]; then echo "$pid" >"$STATE/$name.pid"; fi
	LAST_PID=$pid
}

wait_url() {
	local log=$1 secs=${2:-20} url i
	for ((i = 0; i < secs * 10; i++)); do
		url=$(sed -n 's/^.*listening on \(http[^ ]*\).*$/\1/p' "$log" 2>/dev/null | head -n1)
		if [ -n "$url" ]; then
			echo "$url"
			return 0
		fi
		if [ -n "${LAST_PID:-}" ] && ! kill -0 "$LAST_PID" 2>/dev/null; then
			echo "the process logging to $log exited before it was ready:" >&2
			cat "$log" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "no 'listening on' line in $log after ${secs}s" >&2
	return 1
}

stop_pid() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

stop_started() {
	local pid
	for pid in "${PIDS[@]}"; do
		stop_pid "$pid"
	done
	wait 2>/dev/null || true
	PIDS=()
}
