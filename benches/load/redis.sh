#!/usr/bin/env bash
# The shared store's cost (a benchmark, not a test): the service (tokio, one IO thread pinned to
# CPU 0) with its store in the process against the same service with REDIS_URL (a local
# Debian `redis-server`, AOF everysec, noeviction), alternating rounds:
#  1. the unpaid 402 path: 64 keep-alive connections for 10 s (wrk on CPU 1): each request takes
#     a token of the client's rate limit — in the process, or from a lease its instance drew from
#     Redis in batches (one round trip per batch); with BEFORE=<another build's contact-extract>,
#     that build's two services run too, interleaved (to compare builds in one run);
#  2. a paid request's store operations (admission, reservation, the settlement stage, the
#     outcome: the whole sequence a paid request makes) through the service's own store code,
#     `store-ops` from contact-benches: sequences/s and per-operation p50/p99, both stores.
# Needs wrk, redis-server, curl (Debian `wrk`, `redis-server`, `curl`).
# Usage: bash benches/load/redis.sh        (ROUNDS=3 by default; BEFORE=path optional)
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in wrk redis-server curl taskset; do
  command -v "$tool" >/dev/null || { echo "redis: install $tool (apt-get install wrk redis-server curl util-linux)" >&2; exit 1; }
done
cargo build -q --release -p contact-runtime-smol
cargo build -q --release -p contact-benches --bin store-ops
ROUNDS=${ROUNDS:-3}
MEMORY_PORT=18290 REDIS_SERVICE_PORT=18291 REDIS_PORT=18292
source benches/load/scratch.sh
cat > "$WORK/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body   = '{"url":"https://www.example.com/"}'
wrk.headers["Content-Type"] = "application/json"
LUA

taskset -c 1 redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly yes \
  --appendfsync everysec --maxmemory-policy noeviction --dir "$WORK" >/dev/null &
PIDS+=($!)

start() { # port redis_url [binary]
  BIND_ADDR=127.0.0.1:$1 PUBLIC_BASE_URL=https://contacts.example.com \
  PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 FACILITATOR_URL=https://facilitator.example.com CHAIN_RPC_URL=none \
  RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000 IO_THREADS=1 \
  REDIS_URL=$2 RUNTIME=tokio taskset -c 0 "${3:-./target/release/contact-extract}" serve 2>/dev/null &
  PIDS+=($!)
}
start $MEMORY_PORT ""
start $REDIS_SERVICE_PORT "redis://127.0.0.1:$REDIS_PORT/"
PORTS=($MEMORY_PORT $REDIS_SERVICE_PORT)
if [ -n "${BEFORE:-}" ]; then
  start 18293 "" "$BEFORE"
  start 18294 "redis://127.0.0.1:$REDIS_PORT/" "$BEFORE"
  PORTS+=(18293 18294)
fi
sleep 2
# All answer the same 402.
for port in "${PORTS[@]}"; do
  status=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"url":"https://www.example.com/"}' "http://127.0.0.1:$port/api/v1/extract-contact")
  [ "$status" = 402 ] || { echo "redis: the service on $port answered $status" >&2; exit 1; }
done

load() { # name port
  wrk -t1 -c64 -d10s -s "$WORK/post.lua" --latency "http://127.0.0.1:$2/api/v1/extract-contact" \
    | awk -v name="$1" '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {printf "%-8s %10s req/s  p50 %8s  p99 %8s\n", name, rps, p50, p99}'
}
echo "== unpaid 402, 64 keep-alive connections, 10 s per run; the service on CPU 0, wrk and redis on CPU 1"
for _ in $(seq "$ROUNDS"); do
  if [ -n "${BEFORE:-}" ]; then
    taskset -c 1 bash -c "$(declare -f load); WORK=$WORK load b-memory 18293"
    taskset -c 1 bash -c "$(declare -f load); WORK=$WORK load b-redis 18294"
  fi
  taskset -c 1 bash -c "$(declare -f load); WORK=$WORK load memory $MEMORY_PORT"
  taskset -c 1 bash -c "$(declare -f load); WORK=$WORK load redis $REDIS_SERVICE_PORT"
done

echo "== a paid request's store operations (admit, reserve, begin_settle, finish), 16 threads, 5 s per run"
for _ in $(seq "$ROUNDS"); do
  ./target/release/store-ops memory 16 5
  ./target/release/store-ops "redis://127.0.0.1:$REDIS_PORT/" 16 5
done
