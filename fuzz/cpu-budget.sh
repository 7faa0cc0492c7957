#!/usr/bin/env bash
# Runs each cargo-fuzz target until it has used a budget of CPU time (not wall time: on a shared
# machine a wall-clock run gets less than it says), then stops it with SIGINT so libFuzzer prints
# its final stats. Usage: fuzz/cpu-budget.sh SECONDS TARGET...   (needs cargo-fuzz; nightly
# features through RUSTC_BOOTSTRAP). Prints per target: CPU seconds used, executions, exit.
# New inputs land in fuzz/corpus/TARGET; crashes in fuzz/artifacts/TARGET (exit status != 0).
# Memory is bounded as the service's is (docs/security.md, "Reading a page"): libFuzzer stops
# with a finding when the process's RSS passes RSS_LIMIT_MB (default 512) or one allocation
# asks for more than MALLOC_LIMIT_MB (default 128), so an input that amplifies is a finding.
set -u
rss_limit_mb=${RSS_LIMIT_MB:-512}
malloc_limit_mb=${MALLOC_LIMIT_MB:-128}
budget=${1:?usage: cpu-budget.sh SECONDS TARGET...}
shift
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
ticks=$(getconf CLK_TCK)
for target in "$@"; do
  cargo fuzz build --release "$target" >/dev/null 2>&1 || { echo "$target: build failed"; exit 1; }
  log=$(mktemp)
  # -max_total_time is only a backstop (10× the budget in wall time).
  nice -n 19 cargo fuzz run --release "$target" -- -max_total_time=$((budget * 10)) \
    -rss_limit_mb="$rss_limit_mb" -malloc_limit_mb="$malloc_limit_mb" \
    -print_final_stats=1 >"$log" 2>&1 &
  runner=$!
  used=0
  for _ in $(seq 1 $((budget * 20))); do # bounded: at most 10× the budget in wall time
    sleep 0.5
    pid=$(pgrep -f "release/$target -artifact_prefix" | head -1)
    [ -n "$pid" ] || { kill -0 $runner 2>/dev/null || break; continue; }
    # utime + stime of the fuzzer process (fields 14 and 15 of /proc/PID/stat), in ticks.
    used=$(awk -v t="$ticks" '{print int(($14 + $15) / t)}' "/proc/$pid/stat" 2>/dev/null || echo "$used")
    if [ "$used" -ge "$budget" ]; then kill -INT "$pid"; break; fi
  done
  wait $runner
  status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  # libFuzzer exits 72 when stopped by SIGINT; anything else but 0 is a finding.
  if [ $status -eq 0 ] || grep -q 'libFuzzer: run interrupted' "$log"; then verdict=ok; else verdict=FINDING; fi
  echo "$target: $verdict cpu_seconds=$used executions=${runs:-?} exit=$status log=$log"
done
