#!/usr/bin/env bash
# Counts the instructions one run of each engine benchmark executes, under
# valgrind's callgrind: unlike wall time, the count does not drift with the
# machine's load, so two builds can be compared on a busy machine.
#
#   bench/instructions.sh [TEST_BINARY] [BENCH_REGEXP]
#
# TEST_BINARY defaults to a fresh `go test -c ./flow`; keep one built from an
# older commit to compare against it. Each benchmark runs at two counts; the
# difference divided by the extra runs is the cost of one run, set-up
# excluded. The garbage collector is off (GOGC=off) unless GOGC is set: its
# share varies by a thousand instructions a run between two runs of the
# same binary under valgrind, so compare what it costs through the
# allocations that -benchmem reports instead. (cpu.rdtscp=off: valgrind cannot run
# the RDTSCP instruction the Go runtime uses on some CPUs.)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	(cd "$here/.." && go test -c -o "$tmp/flow.test" ./flow)
	bin=$tmp/flow.test
fi
pattern=${2:-'W[1235]'}
low=2000
high=12000
count() { # count BENCH N -> instructions
	cd "$here/../flow"
	GOGC=${GOGC:-off} GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
		"$bin" -test.run '^$' -test.bench "^$1\$" -test.benchtime "${2}x" -test.cpu 1 >/dev/null 2>"$tmp/cg.err"
	grep -E '^(summary|totals):' "$tmp/cg.out" | head -n 1 | awk '{ print $2 }'
}
for b in $("$bin" -test.list "^Benchmark" | grep -E "$pattern"); do
	for v in go declarative; do
		a=$(count "$b/$v" $low)
		z=$(count "$b/$v" $high)
		echo "$b/$v $(( (z - a) / (high - low) )) instructions/run"
	done
done
