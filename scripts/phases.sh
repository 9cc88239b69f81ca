#!/usr/bin/env bash
# Runs named phases in order and prints how long each took, also when one fails (make test's
# summary). Usage: phases.sh NAME COMMAND [NAME COMMAND ...]; stops at the first phase that
# fails and exits with its status. Each phase line also gives the space left on the disk after it
# (CI machines have little), and the end the size of target/.
set -uo pipefail
names=() tenths=() free=() status=0
now() { echo $(($(date +%s%N) / 100000000)); }
total_start=$(now)
while [ $# -ge 2 ]; do
  name=$1 cmd=$2
  shift 2
  start=$(now)
  bash -c "$cmd"
  status=$?
  names+=("$name")
  tenths+=($(($(now) - start)))
  free+=("$(df -h --output=avail . | tail -1 | tr -d ' ') free")
  [ $status -eq 0 ] || break
done
show() { printf '  %-30s %6d.%d s  %s\n' "$1" $(($2 / 10)) $(($2 % 10)) "${3:-}"; }
echo
echo "phase times:"
for i in "${!names[@]}"; do show "${names[$i]}" "${tenths[$i]}" "${free[$i]}"; done
show "total" $(($(now) - total_start)) "target/ $(du -sh target 2>/dev/null | cut -f1)"
[ $status -eq 0 ] || echo "phase \"${names[-1]}\" failed (exit $status)"
exit $status
