#!/usr/bin/env bash
# make test's run phase: the black-box binary (tests/, the real daemon over HTTP) in the
# foreground and, beside it, every other test binary of the workspace: the unit tests and the
# crates' integration tests, then the doc tests. The black-box tests leave a tenth of the CPU
# idle while they wait on their daemons, which the crates' tests (about 45 s when they ran after
# it) fill. The crates' output is printed whole after the black-box run's; the exit status is
# the black-box run's failure, else the crates'.
set -uo pipefail
mkdir -p target/test-output
crates_log=target/test-output/crate-tests.log
crate_tests() {
  cargo test --workspace --locked --lib --bins --test integration
  local status=$?
  cargo test --workspace --locked --doc || status=$?
  return "$status"
}
crate_tests > "$crates_log" 2>&1 &
crates=$!
cargo test --workspace --locked --test blackbox
blackbox=$?
wait "$crates"
crates_status=$?
echo
echo "---- the crates' unit, integration and doc tests (run beside the black-box tests) ----"
cat "$crates_log"
[ "$blackbox" -ne 0 ] && exit "$blackbox"
exit "$crates_status"
