# Sourced by the load scripts (from the repository root): a scratch directory $WORK, and the
# background processes whose pids the script appends to PIDS; all are stopped and removed
# when the script exits.
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
