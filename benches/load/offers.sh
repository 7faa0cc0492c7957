#!/usr/bin/env bash
# The unpaid 402 path with and without signed offers (x402 offer-receipt, RECEIPT_SIGNING_KEY_FILE),
# side by side (a benchmark, not a test): two servers on the tokio runtime, one IO thread each
# pinned to CPU 0, wrk (one thread, 64 keep-alive connections, 8 s) pinned to CPU 1, rounds
# alternating between them. The key is anvil's third development key (a well-known test key).
# Needs wrk and taskset (Debian packages `wrk`, `util-linux`).
# Usage: bash benches/load/offers.sh        (ROUNDS=5 by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in wrk taskset; do
  command -v "$tool" >/dev/null || { echo "offers: install $tool (apt-get install wrk util-linux)" >&2; exit 1; }
done
cargo build -q --release -p contact-runtime-smol
ROUNDS=${ROUNDS:-5}
PLAIN_PORT=18195 SIGNED_PORT=18196
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cat > "$WORK/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body   = '{"url":"https://www.example.com/"}'
wrk.headers["Content-Type"] = "application/json"
LUA
echo "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" > "$WORK/key"
start() { # port [key file]
  BIND_ADDR=127.0.0.1:$1 PUBLIC_BASE_URL=https://contacts.example.com \
  PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 FACILITATOR_URL=https://facilitator.example.com CHAIN_RPC_URL=none \
  RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000 IO_THREADS=1 \
  MAX_CONNECTIONS=20000 MAX_CONNECTIONS_PER_IP=20000 RUNTIME=tokio \
  RECEIPT_SIGNING_KEY_FILE=${2:-} \
    taskset -c 0 ./target/release/contact-extract serve 2>/dev/null &
  PIDS+=($!)
}
start "$PLAIN_PORT"
start "$SIGNED_PORT" "$WORK/key"
sleep 1
curl -s -X POST -H 'Content-Type: application/json' -d '{"url":"https://www.example.com/"}' \
  "http://127.0.0.1:$SIGNED_PORT/api/v1/extract-contact" | grep -q '"offer-receipt"' \
  || { echo "offers: the signed server's 402 carries no signed offers" >&2; exit 1; }
for round in $(seq "$ROUNDS"); do
  for which in plain:$PLAIN_PORT signed:$SIGNED_PORT; do
    name=${which%%:*} port=${which##*:}
    printf 'round %s %-7s ' "$round" "$name"
    taskset -c 1 wrk -t1 -c64 -d8s -s "$WORK/post.lua" --latency \
      "http://127.0.0.1:$port/api/v1/extract-contact" \
      | grep -E "Requests/sec|^ +99%" | tr -s ' \n' ' '
    echo
  done
done
