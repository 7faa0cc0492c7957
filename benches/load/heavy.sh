#!/usr/bin/env bash
# No request can hurt the others: a loopback site serves the crafted
# ~2 MiB pages of `contact_benches::pathological` (100 000 distinct emails; 40 000 contact-like
# links; 200 000 unclosed nested elements; 80 000 phones; 40 000 addresses), one per host.
# While paid crawls of them run back to back (a stub facilitator accepts and settles), wrk
# loads the unpaid 402 path with 64 keep-alive connections for 10 s. Prints the 402 path's
# requests/s, p50 and p99 alone, then during the crawls, and the crawls' statuses and times.
# Needs wrk, curl and python3. Loopback only; bounded (each phase 10 s, each paid request at
# most 60 s).
# Usage: bash benches/load/heavy.sh           (BIN=path/to/contact-extract to measure another
#        build, e.g. an older commit's; SMOL_THREADS and WORKER_THREADS pass through)
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "heavy: install $tool" >&2; exit 1; }
done
cargo build -q --release -p contact-runtime-smol -p contact-benches \
  --bin contact-extract --bin sign-payment --bin pathological-page
BIN=${BIN:-./target/release/contact-extract}
PORT=${PORT:-18190}
SITE_PORT=${SITE_PORT:-18191}
FACILITATOR_PORT=${FACILITATOR_PORT:-18192}
PAGES=(emails links nested phones addresses)
RESOLVE_LIST=""
for page in "${PAGES[@]}"; do RESOLVE_LIST+="$page.heavy-site.com=127.0.0.1,"; done
export BIND_ADDR=127.0.0.1:$PORT PUBLIC_BASE_URL=https://contacts.example.com \
  PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 \
  FACILITATOR_URL=http://127.0.0.1:$FACILITATOR_PORT CHAIN_RPC_URL=none \
  ALLOW_PRIVATE_CIDRS=127.0.0.0/8 ALLOWED_PORTS=$SITE_PORT RESOLVE=${RESOLVE_LIST%,} \
  RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000 SMOL_THREADS=${SMOL_THREADS:-1}
source benches/load/scratch.sh
for page in "${PAGES[@]}"; do
  ./target/release/pathological-page "$page" > "$WORK/$page.html"
done

# The site (the page named by the Host's first label) and the facilitator (world.py).
# The harness (site, facilitator, paid-request loop) runs at nice 10: on a small machine it
# would otherwise compete with the service it measures (in production the site is remote).
nice -n 10 python3 benches/load/world.py "$SITE_PORT" "$FACILITATOR_PORT" pages "$WORK" &
PIDS+=($!)
"$BIN" serve 2>/dev/null &
PIDS+=($!)
sleep 1.5
cat > "$WORK/unpaid.lua" <<'LUA'
wrk.method = "POST"
wrk.body   = '{"url":"https://www.example.com/"}'
wrk.headers["Content-Type"] = "application/json"
LUA
# The 402 path needs an allowed port: the site's.
sed -i "s#https://www.example.com/#http://emails.heavy-site.com:$SITE_PORT/#" "$WORK/unpaid.lua"
load() {
  wrk -t1 -c64 -d10s --timeout 10s -s "$WORK/unpaid.lua" --latency \
    "http://127.0.0.1:$PORT/api/v1/extract-contact" \
    | grep -E "Requests/sec|^ +50%|^ +99%|Socket errors" | tr -s ' \n' ' '
  echo
}
echo "== the 402 path alone (64 keep-alive connections, 10 s)"
load
echo "== the 402 path during paid crawls of the pathological pages, back to back"
(
  nonce=1
  end=$(( $(date +%s) + 11 ))
  while [ "$(date +%s)" -lt "$end" ] && [ "$nonce" -lt 250 ]; do
    page=${PAGES[$(( nonce % ${#PAGES[@]} ))]}
    signature=$(nice -n 10 ./target/release/sign-payment "$nonce")
    nice -n 10 curl -s -o /dev/null -w "$page %{http_code} %{time_total}s\n" --max-time 60 \
      -H 'Content-Type: application/json' -H "PAYMENT-SIGNATURE: $signature" \
      --data "{\"url\":\"http://$page.heavy-site.com:$SITE_PORT/\"}" \
      "http://127.0.0.1:$PORT/api/v1/extract-contact" >> "$WORK/paid.txt" || true
    nonce=$(( nonce + 1 ))
  done
) &
PAID=$!
sleep 0.3
load
wait "$PAID" || true
echo "paid crawls: $(wc -l < "$WORK/paid.txt") (page, status, time):"
sort "$WORK/paid.txt" | awk '{ k = $1 " " $2; n[k]++; t[k] += $3 } END { for (k in n) printf "  %s: %d, mean %.2f s\n", k, n[k], t[k] / n[k] }' | sort
