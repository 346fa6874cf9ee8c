#!/usr/bin/env bash
# action.sh is the body of the Sentinel GitHub Action (action.yml): it installs sentinel with
# `go install` (unless SENTINEL_BIN names a binary), scans, writes the SARIF file, appends the
# Markdown report to the step summary and records the outcome as step outputs. It always exits
# 0 once the scan ran, so the upload step can follow; the action's last step exits with the
# scan's code (0 passed, 1 failed the gate, 2 could not run or did not finish).
#
# Inputs, as the action passes them (environment):
#   INPUT_ENDPOINT      the MCP endpoint URL (or endpoint: in the config file)
#   INPUT_CONFIG        a sentinel.yaml (default: the workspace's, when it has one)
#   INPUT_GATE          must, should or none (default must)
#   INPUT_BASELINE      a baseline file written by `sentinel baseline write`
#   INPUT_SARIF_FILE    where the SARIF goes (default sentinel.sarif)
#   INPUT_SARIF_ANCHOR  repository path SARIF results point at (see the README)
#   INPUT_ARGS          further `sentinel probe` arguments, one per line
#   INPUT_VERSION       the version go install fetches (default latest)
#   SENTINEL_TOKEN      the bearer token, from a secret (never an argument)
# Outputs (to $GITHUB_OUTPUT): exit-code, verdict (passed, failed, did-not-finish), sarif-file,
# json-file.
set -euo pipefail

out() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }
tmp="${RUNNER_TEMP:-$(mktemp -d)}"

bin="${SENTINEL_BIN:-}"
if [ -z "$bin" ]; then
	version="${INPUT_VERSION:-latest}"
	echo "sentinel action: go install github.com/mcp-sentinel/sentinel/cmd/sentinel@$version" >&2
	GOBIN="$tmp/sentinel-bin" go install "github.com/mcp-sentinel/sentinel/cmd/sentinel@$version"
	bin="$tmp/sentinel-bin/sentinel"
fi

sarif="${INPUT_SARIF_FILE:-sentinel.sarif}"
json="$tmp/sentinel-result.json"
md="$tmp/sentinel-summary.md"
args=(probe --gate "${INPUT_GATE:-must}" --out-sarif "$sarif" --out-json "$json" --out-markdown "$md")
[ -n "${INPUT_ENDPOINT:-}" ] && args+=(--endpoint "$INPUT_ENDPOINT")
[ -n "${INPUT_CONFIG:-}" ] && args+=(--config "$INPUT_CONFIG")
[ -n "${INPUT_BASELINE:-}" ] && args+=(--baseline "$INPUT_BASELINE")
[ -n "${INPUT_SARIF_ANCHOR:-}" ] && args+=(--sarif-anchor "$INPUT_SARIF_ANCHOR")
if [ -n "${INPUT_ARGS:-}" ]; then
	while IFS= read -r line; do
		[ -n "$line" ] && args+=("$line")
	done <<<"$INPUT_ARGS"
fi

set +e
"$bin" "${args[@]}"
code=$?
set -e

if [ -s "$md" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	cat "$md" >>"$GITHUB_STEP_SUMMARY"
fi
case "$code" in
0) verdict=passed ;;
1) verdict=failed ;;
*) verdict=did-not-finish ;;
esac
out exit-code "$code"
out verdict "$verdict"
[ -s "$sarif" ] && out sarif-file "$sarif"
[ -s "$json" ] && out json-file "$json"
echo "sentinel action: $verdict (exit $code)" >&2
# A bad flag never reaches the report files: fail the step at once rather than upload nothing.
if [ "$code" = 2 ] && [ ! -s "$sarif" ]; then
	exit 2
fi
exit 0
