#!/usr/bin/env bash
# Runs named phases in order and prints how long each took, also when one fails (make test's
# summary). Usage: phases.sh NAME COMMAND [NAME COMMAND ...]; stops at the first phase that
# fails and exits with its status. Each phase line also gives the space left on the disk after it
# (CI machines have little), and the end the size of target/.
#
# A COMMAND that starts with `&` runs beside the next phase: started first, in the background,
# and waited for when that phase ends (both must pass). It is for work that leaves the other
# phase's idle cores to fill, such as a second `cargo` build beside the tests' build.
set -uo pipefail
names=() tenths=() free=() status=0 failed=
now() { echo $(($(date +%s%N) / 100000000)); }
record() {
  names+=("$1")
  tenths+=("$2")
  free+=("$(df -h --output=avail . | tail -1 | tr -d ' ') free")
}
beside_name='' beside_pid='' beside_time=$(mktemp)
# Waits for the phase running beside, if any, and records it; its failure fails the run.
join_beside() {
  [ -n "$beside_pid" ] || return 0
  wait "$beside_pid"
  local beside_status=$?
  record "$beside_name (beside)" "$(cat "$beside_time")"
  [ $beside_status -eq 0 ] || { status=$beside_status; failed=$beside_name; }
  beside_pid=''
}
trap 'rm -f "$beside_time"' EXIT
total_start=$(now)
while [ $# -ge 2 ]; do
  name=$1 cmd=$2
  shift 2
  start=$(now)
  if [[ $cmd == '&'* ]]; then
    beside_name=$name
    (bash -c "${cmd#&}"; s=$?; echo $(($(now) - start)) > "$beside_time"; exit $s) &
    beside_pid=$!
    continue
  fi
  bash -c "$cmd"
  status=$?
  record "$name" $(($(now) - start))
  [ $status -eq 0 ] || failed=$name
  join_beside
  [ $status -eq 0 ] || break
done
join_beside
show() { printf '  %-30s %6d.%d s  %s\n' "$1" $(($2 / 10)) $(($2 % 10)) "${3:-}"; }
echo
echo "phase times:"
for i in "${!names[@]}"; do show "${names[$i]}" "${tenths[$i]}" "${free[$i]}"; done
show "total" $(($(now) - total_start)) "target/ $(du -sh target 2>/dev/null | cut -f1)"
[ $status -eq 0 ] || echo "phase \"$failed\" failed (exit $status)"
exit $status
