#!/bin/sh
# Writes docs/results.md, the tables `wadn report` makes of the runs stored
# under results/, docs/runs.md, a line per stored run (`wadn report
# --runs`), docs/figures/*.svg, the paper's figures drawn from them
# (`wadn report --figures`, Digits' Fig. 2 from the data directory
# $WADN_DATA, else ../shared/data), and fills the generated blocks of README.md and docs/*.md: the
# lines between "<!-- wadn report ARGS -->" and the next
# "<!-- end of wadn report -->" become what `wadn report ARGS` prints (ARGS
# split as xargs splits them: at blanks, quotes keeping a blank in an
# argument; paths from the repository's top). With --check it only
# says whether all of them are up to date (exit 1 when not), as .ci/run
# does.
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
mkdir -p "$tmp/out/docs"

# fill FILE OUT writes FILE to OUT with its generated blocks made again.
fill() {
	n=0 open=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in
		'<!-- wadn report '*' -->')
			if [ "$open" != 0 ]; then
				echo "$1:$n: a generated block opens inside the one of line $open" >&2
				return 1
			fi
			open=$n
			printf '%s\n' "$line"
			args=${line#'<!-- wadn report '}
			args=${args%' -->'}
			if ! printf '%s\n' "$args" | xargs "$tmp/wadn" report; then
				echo "$1:$n: wadn report $args failed" >&2
				return 1
			fi
			;;
		'<!-- end of wadn report -->')
			if [ "$open" = 0 ]; then
				echo "$1:$n: the end of a generated block that did not open" >&2
				return 1
			fi
			open=0
			printf '\n%s\n' "$line"
			;;
		*)
			[ "$open" != 0 ] || printf '%s\n' "$line"
			;;
		esac
	done <"$1" >"$2"
	if [ "$open" != 0 ]; then
		echo "$1:$open: the generated block has no '<!-- end of wadn report -->'" >&2
		return 1
	fi
}
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
are not in it: docs/amazon.md, docs/digits.md and docs/office-caltech.md give
the rest.
docs/runs.md has a line per run.

HEADER
	"$tmp/wadn" report "$@"
	if [ -d results/diagnostic ]; then
		cat <<'DIAG'

## Diagnostic runs

Runs with settings meant to find a cause, not to be compared with the
paper (`results/diagnostic/`; docs/amazon.md and docs/digits.md tell their
story).

DIAG
		"$tmp/wadn" report results/diagnostic
	fi
} >"$tmp/out/docs/results.md"
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
} >"$tmp/out/docs/runs.md"
files="docs/results.md docs/runs.md"
for f in README.md docs/*.md; do
	case $f in docs/results.md | docs/runs.md) continue ;; esac
	if grep -q '^<!-- wadn report .* -->$' "$f"; then
		fill "$f" "$tmp/out/$f"
		files="$files $f"
	fi
done
# The paper's figures, as SVG (the PNG twins are not kept).
"$tmp/wadn" report --figures "$tmp/figures" --data "${WADN_DATA:-../shared/data}" "$@" >/dev/null 2>"$tmp/figures.log" || {
	cat "$tmp/figures.log" >&2
	exit 1
}
mkdir -p "$tmp/out/docs/figures"
cp "$tmp"/figures/*.svg "$tmp/out/docs/figures/"
for f in "$tmp"/out/docs/figures/*.svg; do
	files="$files docs/figures/${f##*/}"
done
status=0
if $check; then
	for f in docs/figures/*.svg; do
		[ -e "$f" ] || continue
		if [ ! -e "$tmp/out/$f" ]; then
			echo "$f is not among the figures scripts/results.sh draws from results/"
			status=1
		fi
	done
else
	mkdir -p docs/figures
	rm -f docs/figures/*.svg
fi
for f in $files; do
	if $check; then
		if ! cmp -s "$tmp/out/$f" "$f"; then
			echo "$f is not what scripts/results.sh writes from results/:"
			case $f in
			*.svg) ;; # a drawing: its diff says little
			*) diff "$f" "$tmp/out/$f" || true ;;
			esac
			status=1
		fi
	else
		cp "$tmp/out/$f" "$f"
	fi
done
exit $status
