#!/usr/bin/env bash
# Offline throughput as a user runs it, with the Python peer in the same run:
#   bash benches/peer/compare.sh [DIR] [RUNS]     (DIR default ../shared/corpus-perf, RUNS 5)
# Prints, per command, MB/s of every run (sorted) and the peak RSS of the last run:
#   extract-dir --jobs 1 pinned to one core, extract-dir --jobs 2 (all cores of this machine),
#   one tiny page and the largest page alone (for the process's floor and a page's own share
#   of memory), the Python peer (lxml + phonenumbers, benches/peer/extract_dir.py) pinned to
#   one core.
# Needs: a release build (cargo build --release -p contact-runtime-smol), python3 with lxml
# and phonenumbers (pip install lxml phonenumbers), taskset and GNU time.
set -u
cd "$(dirname "$0")/../.."
dir=${1:-../shared/corpus-perf}
runs=${2:-5}
bin=target/release/contact-extract
[ -x "$bin" ] || { echo "build first: cargo build --release -p contact-runtime-smol"; exit 1; }
measure() {
  local name=$1; shift
  local rates=() rss=
  for _ in $(seq 1 "$runs"); do
    local err
    err=$(/usr/bin/time -f 'maxrss_kb %M' "$@" 2>&1 >/dev/null)
    rates+=("$(grep -o 'MB/s: [0-9.]*' <<<"$err" | grep -o '[0-9.]*$')")
    rss=$(grep -o 'maxrss_kb [0-9]*' <<<"$err" | grep -o '[0-9]*$')
  done
  printf '%-34s MB/s %s   peak RSS %s MB\n' "$name" \
    "$(printf '%s\n' "${rates[@]}" | sort -n | tr '\n' ' ')" "$((rss / 1024))"
}
largest=$(find "$dir" -name '*.htm*' -printf '%s\n' | sort -n | tail -1)
echo "$dir: $(find "$dir" -name '*.htm*' | wc -l) pages, largest $((largest / 1024)) KiB"
measure "extract-dir --jobs 1 (one core)" taskset -c 0 "$bin" extract-dir --jobs 1 "$dir"
measure "extract-dir --jobs $(nproc) (all cores)" "$bin" extract-dir --jobs "$(nproc)" "$dir"
mkdir -p /tmp/contact-extract-empty && echo '<p>x</p>' > /tmp/contact-extract-empty/a.html
measure "extract-dir, one tiny page" "$bin" extract-dir --jobs 1 /tmp/contact-extract-empty
# What the largest page costs on its own (its RSS less the tiny page's is the page's share).
rm -rf /tmp/contact-extract-largest && mkdir -p /tmp/contact-extract-largest
cp "$(find "$dir" -name '*.htm*' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)" \
  /tmp/contact-extract-largest/
measure "extract-dir, the largest page alone" "$bin" extract-dir --jobs 1 /tmp/contact-extract-largest
if python3 -c 'import lxml, phonenumbers' 2>/dev/null; then
  measure "python peer (one core)" taskset -c 0 python3 benches/peer/extract_dir.py "$dir"
else
  echo "python peer: skipped (pip install lxml phonenumbers)"
fi
