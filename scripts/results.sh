#!/bin/sh
# Writes docs/results.md: the tables `wadn report` makes of the runs stored
# under results/. With --check it only says whether docs/results.md is up to
# date (exit 1 when not), as .ci/run does.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
	cat <<'HEADER'
# Stored results

The tables `wadn report` makes of the runs stored under `results/` (their
epoch logs and results; the sweep files there are the grids).
`scripts/results.sh` writes this file again from them. Runs not yet stored
are not in it: docs/amazon.md and docs/digits.md give the rest.

HEADER
	# Every folder of results/ but diagnostic/, in one report.
	set --
	for d in results/*/; do
		[ "$d" = results/diagnostic/ ] || set -- "$@" "${d%/}"
	done
	go run ./cmd/wadn report "$@"
	if [ -d results/diagnostic ]; then
		cat <<'DIAG'

## Diagnostic runs

Runs with settings meant to find a cause, not to be compared with the
paper (`results/diagnostic/`; docs/digits.md tells their story).

DIAG
		go run ./cmd/wadn report results/diagnostic
	fi
} >"$tmp"
if [ "${1:-}" = --check ]; then
	if ! cmp -s "$tmp" docs/results.md; then
		echo "docs/results.md is not what scripts/results.sh writes from results/:"
		diff docs/results.md "$tmp" || true
		exit 1
	fi
	exit 0
fi
cp "$tmp" docs/results.md
