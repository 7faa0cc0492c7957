#!/usr/bin/env bash
# Faults over real sockets, 1 000 times: paid requests through a
# loopback site and facilitator that misbehave on purpose (a reset mid-body, endless headers,
# invalid chunking, a gzip bomb, a stall mid-body, a stalled TLS handshake; a facilitator that
# answers garbage, 500 or nothing at /verify, garbage or 500 at /settle; clients that leave
# right after sending). Checks every status, that /settle succeeded only for the payments that
# succeeded (once each), that the RSS stays flat, and that the gauges (METRICS_ADDR) return to
# 0. Details in faults.py. The same faults are unit-tested in the core's simulation
# (core/tests/sim.rs); this runs them through the real runtime. Needs python3.
# Usage: bash benches/load/faults.sh          (REPS=N for another count; BIN=… as heavy.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -q --release -p contact-runtime-smol -p contact-benches \
  --bin contact-extract --bin sign-payment
BIN=${BIN:-./target/release/contact-extract}
PORT=${PORT:-18200}
SITE_PORT=${SITE_PORT:-18201}
STALL_PORT=${STALL_PORT:-18202}
FACILITATOR_PORT=${FACILITATOR_PORT:-18203}
METRICS_PORT=${METRICS_PORT:-18204}
HOSTS=""
for fault in ok reset endless chunks bomb stall tlsstall; do HOSTS+="$fault.fault-site.com=127.0.0.1,"; done
export BIND_ADDR=127.0.0.1:$PORT METRICS_ADDR=127.0.0.1:$METRICS_PORT \
  PUBLIC_BASE_URL=https://contacts.example.com PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 \
  FACILITATOR_URL=http://127.0.0.1:$FACILITATOR_PORT CHAIN_RPC_URL=none \
  ALLOW_PRIVATE_CIDRS=127.0.0.0/8 ALLOWED_PORTS=$SITE_PORT,$STALL_PORT RESOLVE=${HOSTS%,} \
  RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000
source benches/load/scratch.sh
"$BIN" serve 2>"$WORK/service.log" &
SERVICE=$!
PIDS+=($SERVICE)
sleep 1
python3 benches/load/faults.py "$PORT" "$SITE_PORT" "$STALL_PORT" "$FACILITATOR_PORT" \
  "$METRICS_PORT" "$SERVICE" "${REPS:-1000}"
