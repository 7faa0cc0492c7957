#!/usr/bin/env bash
# Load benchmark of the real server on loopback (not a test): the unpaid 402 path with
# keep-alive, 64 connections for 10 s (wrk, one thread), three runs; then the same against the
# reference @x402/express 2.27 middleware guarding the same route (benches/load/express,
# installed from npm on first use); then the RSS of our server with 10 000 idle connections;
# then the issue-10 suite: heavy.sh (crafted pages crawled while the 402 path is loaded) and
# storm.sh (bursts, 10 000 idle connections and a slowloris storm), memory.sh (peak RSS of
# 256 concurrent paid crawls of 2 MiB pages) and faults.sh (1 000 paid requests through a site
# and a facilitator that misbehave: statuses, settlements, RSS, gauges).
# Needs wrk (Debian package `wrk`), python3, and Node.js with npm for the reference.
# Usage: bash benches/load/run.sh            (SMOL_THREADS=2 to give the executor two threads)
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { echo "load: install wrk (apt-get install wrk)" >&2; exit 1; }
cargo build -q --release -p contact-runtime-smol
PORT=${PORT:-18180}
EXPRESS_PORT=${EXPRESS_PORT:-18181}
BIND_ADDR=127.0.0.1:$PORT PUBLIC_BASE_URL=https://contacts.example.com \
PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 FACILITATOR_URL=https://facilitator.example.com CHAIN_RPC_URL=none \
RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000 SMOL_THREADS=${SMOL_THREADS:-1} \
MAX_CONNECTIONS=20000 MAX_CONNECTIONS_PER_IP=20000 \
  ./target/release/contact-extract serve 2>/dev/null &
SERVER=$!
EXPRESS=
SCRIPT=$(mktemp)
cleanup() {
  kill -INT "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true
  [ -n "$EXPRESS" ] && { kill "$EXPRESS" 2>/dev/null; wait "$EXPRESS" 2>/dev/null || true; }
  rm -f "$SCRIPT"
}
trap cleanup EXIT
cat > "$SCRIPT" <<'LUA'
wrk.method = "POST"
wrk.body   = '{"url":"https://www.example.com/"}'
wrk.headers["Content-Type"] = "application/json"
LUA
sleep 1
load() { # name port
  echo "== $1: unpaid 402, 64 keep-alive connections, 10 s, three runs"
  for _ in 1 2 3; do
    wrk -t1 -c64 -d10s -s "$SCRIPT" --latency "http://127.0.0.1:$2/api/v1/extract-contact" \
      | grep -E "Requests/sec|^ +50%|^ +99%" | tr -s ' \n' ' '
    echo
  done
}
load contact-extract "$PORT"
if command -v npm >/dev/null; then
  (cd benches/load/express && { [ -d node_modules/@x402/express ] || npm install --no-audit --no-fund --loglevel=error; })
  node benches/load/express/server.mjs "$EXPRESS_PORT" 2>/dev/null &
  EXPRESS=$!
  sleep 2
  # One warm-up run so the comparison is with a JIT-compiled Express.
  wrk -t1 -c64 -d5s -s "$SCRIPT" "http://127.0.0.1:$EXPRESS_PORT/api/v1/extract-contact" >/dev/null
  load "@x402/express 2.27 (reference)" "$EXPRESS_PORT"
else
  echo "load: npm not found; skipping the @x402/express reference" >&2
fi
echo "== RSS with 10 000 idle connections"
python3 - "$PORT" "$SERVER" <<'PY'
import resource, socket, sys, time
port, pid = int(sys.argv[1]), sys.argv[2]
resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
rss = lambda: open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split("\n")[0].strip()
print("idle server:", rss())
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(10000)]
time.sleep(1)
print("with 10000 idle connections:", rss())
for s in socks:
    s.close()
PY
cleanup
trap - EXIT
bash benches/load/heavy.sh
bash benches/load/storm.sh
bash benches/load/memory.sh
bash benches/load/faults.sh
