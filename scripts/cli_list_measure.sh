#!/usr/bin/env bash
# The listing CLI on ego-Facebook: peak resident memory, time, file size. One complete run with a size
# filter, one unfiltered run cut after SECONDS (default 100): how far it got says the throughput (a run
# that ends in time reports the file's `count`: ego-Facebook has 869,325,383 maximal cliques).
# Usage: scripts/cli_list_measure.sh OUT [SECONDS]
out=${1:?OUT}; secs=${2:-100}; mkdir -p "$out"
measure() {   # label, timeout, CLI arguments...
    local label=$1 limit=$2; shift 2
    timeout "$limit" python3 - "$label" "$@" <<'PY' 2>&1 | tr '\r' '\n' | tail -3
import os, resource, subprocess, sys, time
label, args = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
p = subprocess.Popen([sys.executable, "-m", "mce_kit", "list", *args, "--progress", "--out", "/tmp/cli_out.npz"])
try:
    rc = p.wait(timeout=float(os.environ.get("CUT", "1e9")))
except subprocess.TimeoutExpired:
    p.terminate(); rc = "cut"; p.wait()
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
wall = time.perf_counter() - t
size = os.path.getsize("/tmp/cli_out.npz") if os.path.exists("/tmp/cli_out.npz") else 0
count = ""
if rc == 0:                      # a complete file: its `count` member (the last one; nothing else is read)
    import numpy as np
    with np.load("/tmp/cli_out.npz") as f:
        count = int(f["count"])
print(f"\nROW,{label},{rc},{wall:.2f},{kib / 1024:.0f},{size},{count}")
PY
    rm -f /tmp/cli_out.npz
}
{
echo "ROW,label,rc,wall_s,peak_rss_mib,file_bytes,cliques_in_file"
measure "ego-Facebook --min-size 65" 150 ego-Facebook --min-size 65
CUT=$secs measure "ego-Facebook (all; cut after ${secs} s)" $((secs + 40)) ego-Facebook
} | tee "$out/cli_list.log"
grep '^ROW,' "$out/cli_list.log" | cut -d, -f2- > "$out/cli_list.csv"
