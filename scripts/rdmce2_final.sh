#!/usr/bin/env bash
# Issue 8 round two, final check for the lead's batch (about 150 s), from the checkout's root:
#   MCE_KIT_COMMIT=<short sha> bash scripts/rdmce2_final.sh OUT_DIR
# It checks and measures what changed after the one device run of this session (commit 3f5834a, H200):
# histogram counted per size in registers, ring chunks with their sizes at the end (new unpack), the
# ring append inlined into the register sub-trees, a ring growing from 64 MiB to 2 GiB. First the GPU
# tests of those paths (oracle on 300 random graphs, 10-run listing of every bundled graph, ego-Facebook
# in full), then
# OUT_DIR/rdmce_stream.csv and rdmce_histogram.csv (count, histogram, min_size=10, every block consumed
# on the GPU; ego-Facebook, wiki-Vote, CA-GrQc) and rdmce_stream_parts.csv (ego-Facebook's listing with
# rings of 256 MiB / 1 GiB / 2 GiB, and with a filter that writes nothing: where listing's time goes).
# Fold them in with
#   python -m mce_kit.experiments.rdmce --merge OUT_DIR
# only if OUT_DIR/tests.log ends with no failure; otherwise keep the branch at 3f5834a's kernel.
set -uo pipefail
out=${1:?usage: scripts/rdmce2_final.sh OUT_DIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
nvidia-smi -L
t=tests/test_gpu_rdmce.py
tests=(test_ego_facebook_listing_on_the_gpu_matches_the_count
       "test_listing_in_registers_suspends_and_resumes_exactly_ten_runs_in_a_row[9]"
       test_register_subtrees_match_the_oracle_on_300_random_graphs
       test_histogram_filters_and_streaming_match_oracle_on_300_random_graphs
       test_bundled_graphs_listing_exact_ten_runs_in_a_row
       test_histogram_on_bundled_graphs_ten_runs_in_a_row
       test_public_api_streams_on_the_gpu)
timeout 85 python3 -m pytest -q -m gpu -p no:cacheprovider -rfEs -W ignore --durations=6 "${tests[@]/#/$t::}" \
    >"$out/tests.log" 2>&1
echo "tests rc=$?"; tail -16 "$out/tests.log"
timeout 58 python3 -m mce_kit.experiments.rdmce --only stream stream_parts histogram --out "$out" 2>&1 | tail -6
echo "experiments rc=$?"
python3 -c "
import pandas as pd
s = pd.read_csv('$out/rdmce_stream.csv')
print(s[['graph', 'task', 'wall_ms', 'over_count', 'launches', 'kernel_ms', 'unpack_ms']].round(3).to_string())
p = pd.read_csv('$out/rdmce_stream_parts.csv')
print(p[['case', 'wall_ms', 'over_count', 'cliques', 'launches', 'kernel_ms', 'unpack_ms']].round(3).to_string())
" 2>&1 | tail -22
