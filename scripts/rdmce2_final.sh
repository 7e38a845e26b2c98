#!/usr/bin/env bash
# Issue 8, streaming listing: the opt-in paths FAST_EMIT and UNPACK_REGS of rdmce.cu (added after this
# session's one device run, commit 045b42e, H200; not measured yet). At most 230 s, from the checkout's root:
#   MCE_KIT_COMMIT=<short sha> bash scripts/rdmce2_final.sh OUT_DIR
# 1. the GPU tests of listing with both paths on (MCE_KIT_RDMCE_DEFINES builds them for the whole
#    process): ego-Facebook in full, 2 x 300 random graphs against the oracle, suspended register
#    sub-trees 10 runs in a row, every bundled graph listed 10 times, and each path alone on 100 random
#    graphs and ego-Facebook (test_opt_in_listing_builds_match_the_oracle)  -> OUT_DIR/tests.log
# 2. OUT_DIR/rdmce_stream_builds.csv: ego-Facebook, every block consumed on the GPU, with each build
#    (default, FAST_EMIT, UNPACK_REGS, both) in one process, beside the plain count
# 3. OUT_DIR/both/rdmce_stream.csv, rdmce_stream_parts.csv with both paths on.
# If tests.log shows no failure and "both" beats "default": set FAST_EMIT and UNPACK_REGS to 1 at the
# top of mce_kit/gpu/cuda/rdmce.cu and fold the rows in with
#   python -m mce_kit.experiments.rdmce --merge OUT_DIR && python -m mce_kit.experiments.rdmce --merge OUT_DIR/both
# Otherwise fold in only rdmce_stream_builds.csv (it keeps the default build's row beside the others).
set -uo pipefail
out=${1:?usage: scripts/rdmce2_final.sh OUT_DIR}
mkdir -p "$out/both"
export PYTHONUNBUFFERED=1 MCE_KIT_COMMIT=${MCE_KIT_COMMIT:-unknown}
nvidia-smi -L
t=tests/test_gpu_rdmce.py
tests=(test_ego_facebook_listing_on_the_gpu_matches_the_count
       "test_listing_in_registers_suspends_and_resumes_exactly_ten_runs_in_a_row[9]"
       test_register_subtrees_match_the_oracle_on_300_random_graphs
       test_histogram_filters_and_streaming_match_oracle_on_300_random_graphs
       test_bundled_graphs_listing_exact_ten_runs_in_a_row
       test_streaming_wraps_many_times_and_is_exact_ten_runs_in_a_row
       test_public_api_streams_on_the_gpu
       test_opt_in_listing_builds_match_the_oracle)
MCE_KIT_RDMCE_DEFINES=FAST_EMIT=1,UNPACK_REGS=1 timeout 110 python3 -m pytest -q -m gpu -p no:cacheprovider -rfEs \
    -W ignore --durations=5 -x "${tests[@]/#/$t::}" >"$out/tests.log" 2>&1
echo "tests (FAST_EMIT=1 UNPACK_REGS=1) rc=$?"; tail -12 "$out/tests.log"
timeout 60 python3 -m mce_kit.experiments.rdmce --only stream_builds --out "$out" 2>&1 | tail -3
echo "stream_builds rc=$?"
MCE_KIT_RDMCE_DEFINES=FAST_EMIT=1,UNPACK_REGS=1 timeout 60 python3 -m mce_kit.experiments.rdmce \
    --only stream stream_parts --graphs ego-Facebook --out "$out/both" 2>&1 | tail -3
echo "stream, stream_parts (both) rc=$?"
python3 -c "
import pandas as pd
b = pd.read_csv('$out/rdmce_stream_builds.csv')
print(b[['build', 'wall_ms', 'over_count', 'launches', 'kernel_ms', 'unpack_ms']].round(3).to_string())
s = pd.read_csv('$out/both/rdmce_stream.csv')
print(s[['graph', 'task', 'wall_ms', 'over_count', 'launches', 'kernel_ms', 'unpack_ms', 'build']].round(3).to_string())
p = pd.read_csv('$out/both/rdmce_stream_parts.csv')
print(p[['case', 'wall_ms', 'over_count', 'launches', 'kernel_ms', 'unpack_ms', 'build']].round(3).to_string())
" 2>&1 | tail -24
