#!/usr/bin/env bash
# soak.sh: a long evolve job on a small map, sampled while it runs, to show
# that it holds: resident memory and open files flat after warm-up, the
# worker cache on disk within its bound, the store growing linearly with
# the episodes, the time spent storing flat per iteration.
#
# usage: scripts/soak.sh [ITERATIONS (200)] [DIR (a new temporary folder)] [SECONDS between samples (30)]
#
# Columns of samples.tsv: seconds since the start; the last iteration
# done and the run's episodes then; the job's resident memory (MiB) and
# open files; its policy worker processes and their resident memory; the
# worker cache on disk (MiB, files) and the worker files deleted from it
# that the job's processes still hold open (MiB); the store's pages in use
# (MiB: the high-water mark of its meta page — the file itself grows by
# doubling) and its file size (MiB).
#
# The job: evolve --game gathering --map small --agents 4 --steps 200
# --candidates 2 --local-rounds 0, with the offline planner, its store and
# its own worker cache (XDG_CACHE_HOME) in DIR, so that nothing else shares
# them. Written to DIR: samples.tsv (one line per sample), events.jsonl
# (the job's --json events), iterations.tsv (per iteration: seconds,
# storing seconds, episodes), stderr.log. Needs Go, bash and the Linux
# /proc file system.
set -euo pipefail
iters=${1:-200}
dir=${2:-$(mktemp -d -t policyevolve-soak-XXXXXX)}
every=${3:-30}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
(cd "$repo" && go build -o "$dir/policyevolve" ./cmd/policyevolve)
# The job's own worker cache; Go's build cache stays where it is.
export GOCACHE=${GOCACHE:-$(go env GOCACHE)}
export XDG_CACHE_HOME=$dir/cache
cache=$XDG_CACHE_HOME/policyevolve/workers

"$dir/policyevolve" evolve --game gathering --map small --agents 4 --steps 200 \
  --candidates 2 --local-rounds 0 --iterations "$iters" --store "$dir/soak.db" --json \
  >"$dir/events.jsonl" 2>"$dir/stderr.log" &
job=$!
trap 'kill $job 2>/dev/null || true' EXIT
start=$(date +%s)

# kib PID: resident memory of a process in KiB (0 once it is gone).
kib() { awk '/^VmRSS:/ {print $2; f=1} END {if (!f) print 0}' "/proc/$1/status" 2>/dev/null || echo 0; }

# held: bytes of worker files deleted from the cache that processes of the
# job (the job and its policy workers) still hold open, counted once each.
held() {
  local pids="$job $(pgrep -P "$job" | tr '\n' ' ' || true)"
  for p in $pids; do
    for fd in /proc/"$p"/fd/* /proc/"$p"/map_files/*; do
      local l
      l=$(readlink "$fd" 2>/dev/null) || continue
      case $l in
        "$cache"/*" (deleted)") stat -L -c '%i %s' "$fd" 2>/dev/null || true ;;
      esac
    done
  done | sort -u | awk '{s += $2} END {print s + 0}'
}

# inuse FILE: the bytes of a bbolt file's pages in use: high-water mark
# times page size, from the meta page (0 or 1) with the larger
# transaction id (native byte order: little-endian here).
inuse() {
  local f=$1 ps m0 m1
  [ -s "$f" ] || { echo 0; return; }
  ps=$(od -An -t u4 -j 24 -N 4 "$f" | tr -d ' ')
  m0=$(od -An -t u8 -j 56 -N 16 "$f" | awk '{print $2, $1}')
  m1=$(od -An -t u8 -j $((ps + 56)) -N 16 "$f" | awk '{print $2, $1}')
  printf '%s\n%s\n' "$m0" "$m1" | sort -n | tail -1 | awk -v ps="$ps" '{print $2 * ps}'
}

printf 'seconds\titeration\tepisodes\tjob_rss_mib\tjob_fds\tworkers\tworkers_rss_mib\tcache_mib\tcache_files\tcache_held_mib\tstore_used_mib\tstore_file_mib\n' >"$dir/samples.tsv"
sample() {
  local last it eps rss fds kids krss=0 csize cfiles
  last=$( (grep '"kind":"iteration-done"' "$dir/events.jsonl" || true) | tail -1)
  # The first "iteration" and "episodes" of the event: the iteration and
  # the run's usage (the profile's episodes come after).
  it=$(awk 'match($0, /"iteration":[0-9]+/) {print substr($0, RSTART + 12, RLENGTH - 12)}' <<<"$last")
  eps=$(awk 'match($0, /"episodes":[0-9]+/) {print substr($0, RSTART + 11, RLENGTH - 11)}' <<<"$last")
  rss=$(kib "$job")
  fds=$( (ls "/proc/$job/fd" 2>/dev/null || true) | wc -l)
  kids=$( (pgrep -P "$job" || true) | wc -l)
  for k in $(pgrep -P "$job" || true); do krss=$((krss + $(kib "$k"))); done
  csize=$( (du -sb "$cache" 2>/dev/null || echo 0) | cut -f1)
  cfiles=$( (find "$cache" -type f 2>/dev/null || true) | wc -l)
  awk -v t=$(($(date +%s) - start)) -v it="${it:--}" -v eps="${eps:--}" -v rss="$rss" -v fds="$fds" -v kids="$kids" \
    -v krss="$krss" -v csize="${csize:-0}" -v cfiles="$cfiles" -v held="$(held)" -v used="$(inuse "$dir/soak.db")" \
    -v store="$(stat -c %s "$dir/soak.db" 2>/dev/null || echo 0)" 'BEGIN {
      printf "%d\t%s\t%s\t%.1f\t%d\t%d\t%.1f\t%.1f\t%d\t%.1f\t%.2f\t%.2f\n", t, it, eps, rss / 1024, fds, kids,
        krss / 1024, csize / 1048576, cfiles, held / 1048576, used / 1048576, store / 1048576 }' | tee -a "$dir/samples.tsv"
}
while kill -0 "$job" 2>/dev/null; do
  sample
  sleep "$every"
done
wait "$job" || { echo "the job failed: see $dir/stderr.log" >&2; exit 1; }
trap - EXIT

# Per iteration: its wall time (from the previous iteration-done event),
# its storing time and the episodes so far.
grep '"kind":"iteration-done"' "$dir/events.jsonl" | awk '
  BEGIN { print "iteration\tseconds\tstoring_s\tepisodes" }
  {
    match($0, /"iteration":[0-9]+/); it = substr($0, RSTART + 12, RLENGTH - 12)
    match($0, /"storing_s":[0-9.e+-]+/); st = substr($0, RSTART + 12, RLENGTH - 12)
    match($0, /"episodes":[0-9]+/); ep = substr($0, RSTART + 11, RLENGTH - 11)
    match($0, /"time":"[^"]*"/); t = substr($0, RSTART + 8, RLENGTH - 9)
    cmd = "date -d \"" t "\" +%s.%N"; cmd | getline now; close(cmd)
    printf "%d\t%.2f\t%.3f\t%d\n", it, (prev ? now - prev : 0), st, ep
    prev = now
  }' >"$dir/iterations.tsv"
echo "done: $dir (samples.tsv, iterations.tsv)"
