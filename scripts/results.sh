#!/bin/sh
# Writes docs/results.md, the tables `wadn report` makes of the runs stored
# under results/, and docs/runs.md, a line per stored run (`wadn report
# --runs`). With --check it only says whether both are up to date (exit 1
# when not), as .ci/run does.
set -eu
check=false
case "$*" in
"") ;;
--check) check=true ;;
*)
	echo "usage: scripts/results.sh [--check]" >&2
	exit 2
	;;
esac
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/wadn" ./cmd/wadn
# Every folder of results/ but diagnostic/.
set --
for d in results/*/; do
	[ "$d" = results/diagnostic/ ] || set -- "$@" "${d%/}"
done
{
	cat <<'HEADER'
# Stored results

The tables `wadn report` makes of the runs stored under `results/` (their
epoch logs and results; the sweep files there are the grids).
`scripts/results.sh` writes this file again from them. Runs not yet stored
are not in it: docs/amazon.md and docs/digits.md give the rest.
docs/runs.md has a line per run.

HEADER
	"$tmp/wadn" report "$@"
	if [ -d results/diagnostic ]; then
		cat <<'DIAG'

## Diagnostic runs

Runs with settings meant to find a cause, not to be compared with the
paper (`results/diagnostic/`; docs/digits.md tells their story).

DIAG
		"$tmp/wadn" report results/diagnostic
	fi
} >"$tmp/results.md"
{
	cat <<'HEADER'
# Stored runs

A line per run stored under `results/`, from its epoch log (`wadn report
--runs`): the target accuracy at epochs 1, 10, 20 and 30 and at the last,
the peak and its epoch, the largest fall from one epoch to the next into
the last 10 epochs, and the median seconds of an epoch (which depend on the
machine and on what ran beside the run). `scripts/results.sh` writes this
file again; docs/results.md has the tables over the seeds.

HEADER
	"$tmp/wadn" report --runs "$@"
	if [ -d results/diagnostic ]; then
		printf '\n## Diagnostic runs\n\n'
		"$tmp/wadn" report --runs results/diagnostic
	fi
} >"$tmp/runs.md"
status=0
for f in results.md runs.md; do
	if $check; then
		if ! cmp -s "$tmp/$f" "docs/$f"; then
			echo "docs/$f is not what scripts/results.sh writes from results/:"
			diff "docs/$f" "$tmp/$f" || true
			status=1
		fi
	else
		cp "$tmp/$f" "docs/$f"
	fi
done
exit $status
