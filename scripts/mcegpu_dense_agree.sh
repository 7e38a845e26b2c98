#!/usr/bin/env bash
# mce-gpu against RDMCE on the dense DIMACS graphs, each graph in its own process under a time cap
# (a dense graph's count can be beyond any run: see the estimates in notebook 20).
# Usage (device): bash scripts/mcegpu_dense_agree.sh OUT SECONDS_PER_GRAPH GRAPH...
out=$1; cap=$2; shift 2
mkdir -p "$out"
for g in "$@"; do
    timeout "$cap" python3 -m mce_kit.experiments.mcegpu --only agree --graphs "$g" \
        --modes L2+IPX L1+IP L2+IP L1+IPX --out "$out/$g" 2>&1 | grep -v "^ *$" | tail -6
    [ "${PIPESTATUS[0]}" = 124 ] && echo "$g: cut at $cap s"
done
