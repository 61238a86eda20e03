#!/usr/bin/env bash
# Checks that the reference numerics mode trains to the same bits on every
# platform: builds wadn for linux/amd64 (SIMD, -tags purego, and GOAMD64=v3,
# where the compiler fuses multiply-adds), linux/386, linux/arm64, linux/arm,
# linux/riscv64, linux/ppc64le, linux/s390x (big-endian), linux/loong64 and
# js/wasm, runs "wadn audit --fingerprint" on each (natively, under qemu-user,
# under node), and fails if two fingerprints differ. A platform this machine
# cannot run (no qemu-user, no node, a CPU or kernel that cannot run the
# binary) is skipped, saying why; FINGERPRINT_REQUIRE_ALL=1 makes that a
# failure too.
#
# Usage: scripts/fingerprint-check.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."

work=${1:-$(mktemp -d /tmp/wadn-fingerprint.XXXXXX)}
mkdir -p "$work"
export CGO_ENABLED=0

goroot=$(go env GOROOT)
wasm_exec=""
for f in "$goroot/lib/wasm/wasm_exec_node.js" "$goroot/misc/wasm/wasm_exec_node.js"; do
	if [ -f "$f" ]; then wasm_exec=$f; break; fi
done

# qemu prints the path of qemu-user for the CPU named, or "-" and the reason.
qemu() { command -v "qemu-$1-static" || command -v "qemu-$1" || echo "-no qemu-$1: install qemu-user-static"; }

# probe runs a binary the host should run natively and prints "" when it
# runs, or "-" and the reason: status 126 where the kernel cannot exec it
# (an amd64 kernel without IA32 emulation, for 386), Go's own refusal where
# the CPU lacks a feature the build needs (GOAMD64=v3; /proc/cpuinfo may not
# list one the CPU has, such as abm). Any other failure is left to the
# fingerprint run to report.
probe() {
	local out status=0
	out=$("$1" help 2>&1) || status=$?
	if [ "$status" = 126 ]; then echo "-this kernel cannot exec it (for 386: no IA32 emulation)"
	elif [ "$status" != 0 ] && [[ $out == *"microarchitecture support"* ]]; then echo "-this CPU lacks a feature the build needs"
	else echo ""; fi
}

# runner prints the command prefix that runs the binary $2 of target $1
# (empty for a native run), or "-" and the reason when this machine cannot
# run it.
runner() {
	local amd64_linux=""
	if [ "$(go env GOHOSTARCH)" = amd64 ] && [ "$(go env GOHOSTOS)" = linux ]; then amd64_linux=1; fi
	case $1 in
	native) echo "" ;;
	linux/386)
		# Elsewhere qemu-i386, though on amd64 it does not run Go's 386
		# binaries ("bad g in signal handler").
		if [ -n "$amd64_linux" ]; then probe "$2"; else qemu i386; fi ;;
	linux/amd64-v3)
		if [ -n "$amd64_linux" ]; then probe "$2"; else echo "-the host is not linux/amd64"; fi ;;
	linux/amd64) qemu x86_64 ;;
	linux/arm64) qemu aarch64 ;;
	linux/arm) qemu arm ;;
	linux/riscv64) qemu riscv64 ;;
	linux/ppc64le) qemu ppc64le ;;
	linux/s390x) qemu s390x ;;
	linux/loong64) qemu loongarch64 ;;
	js/wasm)
		if [ -n "$wasm_exec" ] && command -v node >/dev/null 2>&1; then echo "node $wasm_exec"
		elif [ -z "$wasm_exec" ]; then echo "-no wasm_exec_node.js under $goroot"
		else echo "-no node: install nodejs"; fi ;;
	*) echo "-no way to run $1 known to this script" ;;
	esac
}

# name|GOOS/GOARCH|build tags|threads|environment of the build
targets=(
	"amd64|linux/amd64||2|"
	"amd64-1thread|linux/amd64||1|"
	"amd64-purego|linux/amd64|purego|2|"
	"amd64-v3|linux/amd64||2|GOAMD64=v3"
	"386|linux/386||2|"
	"arm64|linux/arm64||2|"
	"arm|linux/arm||2|GOARM=7"
	"riscv64|linux/riscv64||2|"
	"ppc64le|linux/ppc64le||2|"
	"s390x|linux/s390x||2|"
	"loong64|linux/loong64||2|"
	"wasm|js/wasm||1|"
)

declare -A sums
first=""
failed=0
skipped=()
for t in "${targets[@]}"; do
	IFS='|' read -r name platform tags threads buildenv <<<"$t"
	bin="$work/wadn-$name"
	case $name in amd64-1thread) bin="$work/wadn-amd64" ;; esac
	if [ ! -f "$bin" ]; then
		# shellcheck disable=SC2086 # buildenv is empty or one VAR=value
		env $buildenv GOOS=${platform%/*} GOARCH=${platform#*/} go build -tags "$tags" -o "$bin" ./cmd/wadn
	fi
	kind=$platform
	if [ "$platform" = "$(go env GOHOSTOS)/$(go env GOHOSTARCH)" ]; then kind=native; fi
	if [ "$name" = amd64-v3 ]; then kind=linux/amd64-v3; fi
	run=$(runner "$kind" "$bin")
	if [ "${run:0:1}" = "-" ]; then
		echo "   $name: skipped (cannot run $platform${buildenv:+ $buildenv} here: ${run#-})"
		skipped+=("$name")
		continue
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086 # the runner is a command and its arguments
	if ! out=$($run "$bin" audit --fingerprint --threads "$threads" 2>"$work/$name.err"); then
		echo "   $name: wadn audit --fingerprint failed:"; cat "$work/$name.err"; failed=1; continue
	fi
	sum=$(echo "$out" | awk '/^fingerprint /{print $2}')
	sums[$name]=$sum
	printf '   %-14s %s  (%s, %ss)\n' "$name" "$sum" "$(echo "$out" | awk '/^platform /{$1=""; print substr($0,2)}')" $(( $(date +%s) - start ))
	if [ -z "$first" ]; then
		first=$name
	elif [ "$sum" != "${sums[$first]}" ]; then
		echo "   $name differs from $first; the first lines where their traces part:"
		# shellcheck disable=SC2086
		$run "$bin" audit --fingerprint --threads "$threads" --trace 2>"$work/$name.trace" >/dev/null || true
		"$work/wadn-amd64" audit --fingerprint --threads 1 --trace 2>"$work/amd64.trace" >/dev/null || true
		diff "$work/amd64.trace" "$work/$name.trace" | head -6 | cut -c1-300 || true
		failed=1
	fi
done

if [ "$failed" != 0 ]; then
	echo "fingerprint check FAILED (binaries and traces in $work)"
	exit 1
fi
if [ ${#skipped[@]} -gt 0 ] && [ "${FINGERPRINT_REQUIRE_ALL:-}" = 1 ]; then
	echo "fingerprint check FAILED: skipped ${skipped[*]}"
	exit 1
fi
echo "fingerprint check passed: ${#sums[@]} platforms agree${skipped:+ (skipped: ${skipped[*]})}"
