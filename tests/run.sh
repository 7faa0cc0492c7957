#!/usr/bin/env bash
# The README's test command: `cargo test --workspace` (arguments are passed on to it), then
#  - the check that no process the tests started still runs (tests/leftovers.py: the run
#    under a child subreaper; a process left behind is named and killed, and fails the run);
#  - one line per suite (test binary) that skipped because something it needs is missing here:
#    each skip is a line in $CONTACT_SKIP_LOG (`contact_benches::skip`).
# Exit status: cargo's, or 1 when a process was left running.
set -uo pipefail
cd "$(dirname "$0")/.."

skips="$(mktemp "${TMPDIR:-/tmp}/contact-skips.XXXXXX")"
export CONTACT_SKIP_LOG="$skips"
trap 'rm -f "$skips"' EXIT

python3 tests/leftovers.py cargo test --workspace "$@"
status=$?

if [ -s "$skips" ]; then
  echo
  echo "skipped suites (something they need is missing here; with CI=true they fail instead):"
  sort -u "$skips" | awk -F'\t' '
    !($1 in why) { order[++n] = $1; why[$1] = $3; next }
    index("; " why[$1] "; ", "; " $3 "; ") == 0 { why[$1] = why[$1] "; " $3 }
    END { for (i = 1; i <= n; i++) printf "  %s: %s\n", order[i], why[order[i]] }'
fi
exit "$status"
