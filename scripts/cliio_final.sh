#!/usr/bin/env bash
# The .npz writer's scaling on the host's cores, no GPU: synthetic ego-Facebook-shaped blocks (2 GB of
# int32 ids per thread count) through mce_kit.clique_io.write_blocks at 1, 2, 4, 8, 16 threads.
# About a minute on a 16-core host. Writes OUT/clique_io_bench.csv and OUT/clique_io_bench.log.
# Usage: scripts/cliio_final.sh OUT
out=${1:?OUT}; mkdir -p "$out"
set -o pipefail
timeout 300 python3 scripts/clique_io_bench.py "$out/clique_io_bench.csv" --gb 2 --threads 1,2,4,8,16 \
    2>&1 | tee "$out/clique_io_bench.log"
echo "wrote $out/clique_io_bench.csv"
