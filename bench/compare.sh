#!/bin/sh
# Compares Troupe with eino on workloads W1-W3 (shared/bench/WORKLOADS.md)
# on this machine, now: both benchmarks run in interleaved rounds, one CPU
# each, so that drift in the machine's speed hits both alike. Prints each
# workload's median times and eino's median divided by Troupe's.
#
#   bench/compare.sh [ROUNDS]
set -eu
rounds=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$here/.." && go test -c -o "$tmp/troupe.test" ./flow)
(cd "$here/eino" && go test -c -o "$tmp/eino.test" .)
i=0
while [ "$i" -lt "$rounds" ]; do
	"$tmp/eino.test" -test.run '^$' -test.bench . -test.cpu 1 | grep '^Benchmark' >>"$tmp/eino.txt"
	"$tmp/troupe.test" -test.run '^$' -test.bench 'W[123]' -test.cpu 1 | grep '^Benchmark' >>"$tmp/troupe.txt"
	i=$((i + 1))
done
python3 - "$tmp/eino.txt" "$tmp/troupe.txt" <<'PY'
import statistics, sys
def medians(path):
    runs = {}
    for line in open(path):
        f = line.split()
        runs.setdefault(f[0].removeprefix("Benchmark"), []).append(float(f[2]))
    return {k: statistics.median(v) for k, v in runs.items()}
eino, troupe = medians(sys.argv[1]), medians(sys.argv[2])
for w, name in (("W1", "Chain10"), ("W2", "Fanout8"), ("W3", "Router")):
    e = eino["Eino" + w + name]
    for variant in ("go", "declarative"):
        t = troupe[f"{w}{name}/{variant}"]
        print(f"{w} {variant:12} eino {e/1000:8.1f} us  troupe {t/1000:7.2f} us  {e/t:5.1f}x")
PY
