#!/usr/bin/env bash
# gen-anchors.sh regenerates anchors.txt, the list of every page and heading anchor of the
# 2026-07-28 specification, so that the registry test can check rule URLs without reading the
# network or the spec mirror.
#
# Usage: rules/testdata/gen-anchors.sh GIT_DIR [REV] > rules/testdata/anchors.txt
#   GIT_DIR  a bare clone (or mirror) of the MCP specification repository
#   REV      the revision to read (default HEAD)
#
# Output: one line per page ("basic/transports/streamable-http") and one per heading
# ("basic/transports/streamable-http#security-&-endpoint"), sorted. The index page of a folder maps
# to the folder ("basic/index.mdx" is "basic"); the top-level index is the empty page "".
#
# Anchors follow the Mintlify heading-id rules the site renders with: markdown stripped, lower-case,
# whitespace to '-', characters that encodeURIComponent leaves alone but that are not letters,
# digits, '_' or '-' become '-', every other character survives (it is percent-encoded, kept by the
# slugger, then decoded) except ?,;:!'"()[]{} which are dropped; runs of '-' collapse and the ends
# are trimmed. Headings inside fenced code blocks are skipped.
set -euo pipefail

gitdir=${1:?usage: gen-anchors.sh GIT_DIR [REV]}
rev=${2:-HEAD}
root=docs/specification/2026-07-28

git --git-dir="$gitdir" ls-tree -r --name-only "$rev" "$root" | grep '\.mdx$' | while read -r file; do
	page=${file#"$root"/}
	page=${page%.mdx}
	case "$page" in
	index) page="" ;;
	*/index) page=${page%/index} ;;
	esac
	printf '%s\n' "$page"
	git --git-dir="$gitdir" show "$rev:$file" | LC_ALL=C awk -v page="$page" '
		/^[ \t]*(```|~~~)/ { fence = !fence; next }
		fence { next }
		/^#+[ \t]/ {
			h = $0
			sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#*[ \t]*$/, "", h)
			while (match(h, /\[[^]]*\]\([^)]*\)/)) {
				link = substr(h, RSTART, RLENGTH)
				text = link; sub(/^\[/, "", text); sub(/\]\(.*$/, "", text)
				h = substr(h, 1, RSTART - 1) text substr(h, RSTART + RLENGTH)
			}
			gsub(/`|\*\*|<[^>]*>/, "", h)
			h = tolower(h)
			out = ""
			for (i = 1; i <= length(h); i++) {
				c = substr(h, i, 1)
				if (c ~ /[ \t]/) out = out "-"
				else if (c ~ /[a-z0-9_-]/) out = out c
				else if (c ~ /[.!~*\047()]/) out = out "-"
				else if (index("?,;:!\047\"()[]{}", c) > 0) continue
				else out = out c
			}
			gsub(/-+/, "-", out); sub(/^-/, "", out); sub(/-$/, "", out)
			if (out != "") print page "#" out
		}'
done | LC_ALL=C sort -u
