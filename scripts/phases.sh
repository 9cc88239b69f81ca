#!/usr/bin/env bash
# Runs named phases in order and prints how long each took, also when one fails (make test's
# summary). Usage: phases.sh NAME COMMAND [NAME COMMAND ...]; stops at the first phase that
# fails and exits with its status.
set -uo pipefail
names=() tenths=() status=0
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
  [ $status -eq 0 ] || break
done
show() { printf '  %-30s %6d.%d s\n' "$1" $(($2 / 10)) $(($2 % 10)); }
echo
echo "phase times:"
for i in "${!names[@]}"; do show "${names[$i]}" "${tenths[$i]}"; done
show "total" $(($(now) - total_start))
[ $status -eq 0 ] || echo "phase \"${names[-1]}\" failed (exit $status)"
exit $status
