#!/usr/bin/env bash
# ncu profile of every kernel on the graphs its issue sets targets for; run on a lent H100/H200:
#   bash scripts/ncu_targets.sh OUT_DIR [SECONDS_PER_PROFILE]
# Appends rows to OUT_DIR/ncu_profile.csv; a profile that runs past the limit is left out (and said so).
set -u
out=${1:?usage: scripts/ncu_targets.sh OUT_DIR [SECONDS]}; limit=${2:-150}
prof() { echo "== $*"; timeout "$limit" python3 -m mce_kit.experiments.ncu "$@" --out "$out" || echo "!! failed or timed out: $*"; }
prof rdmce ego-Facebook
prof mce-gpu ego-Facebook --param subtree=L2 --param induced=IPX
prof kcminer socfb-MIT --param k=4
prof kcminer socfb-MIT --param k=6
prof kcminer socfb-MIT --param k=8
prof kcminer wiki-Vote --param k=4
prof gmbe marvel
prof gmbe MovieLens
prof gmbe dbpedia-writer
prof gmbe marvel --param level=block
prof rdmce wiki-Vote
prof mce-gpu wiki-Vote --param subtree=L2 --param induced=IPX
prof mce-gpu ego-Facebook --param subtree=L1 --param induced=IP  # ~6.6 s a pass: needs SECONDS >= 200
