#!/usr/bin/env bash
# Starts N rlx-run processes at once on one graph and one empty compile
# cache, so they miss and store the same entry together; fails unless
# every one succeeds and all write the same output.
# Usage: concurrent-compiles.sh RLX_RUN GRAPH CACHE_DIR OUT_DIR N
set -u
rlx_run=$1 graph=$2 cache=$3 out=$4 n=$5
pids=()
for i in $(seq 1 "$n"); do
  RLX_CACHE_DIR=$cache "$rlx_run" "$graph" --random-inputs --seed 5 \
    --output "$out/run$i" >"$out/log$i" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "run $((i + 1)) failed:"
    cat "$out/log$((i + 1))"
    status=1
  fi
done
for i in $(seq 2 "$n"); do
  cmp "$out/run1/output_0.npy" "$out/run$i/output_0.npy" || status=1
done
exit $status
