#!/usr/bin/env bash
# `make fuzz`: builds the coverage-guided fuzz targets in fuzz/ with cargo-afl (AFL++, stable
# toolchain) and runs each for FUZZ_SECS seconds (default 60) from its seed corpus
# fuzz/corpus/<target>/, one at a time. Prints each target's executions per second, corpus
# size (paths) and crashes, and fails when any target crashed, listing the crashing inputs.
#   FUZZ_SECS=300 make fuzz                 longer runs
#   FUZZ_TARGETS="script multipart" make fuzz   some targets only
# Findings stay in fuzz/out/<target>/default/{crashes,hangs,queue} (ignored by git); a crash
# that is fixed gets its input copied to fuzz/regressions/<target>/, replayed by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CARGO_AFL_VERSION=0.18.2
TOOLS=$ROOT/.tools
export PATH=$TOOLS/bin:$PATH
FUZZ_SECS=${FUZZ_SECS:-60}
ALL_TARGETS="svg2spec script multipart request_body overlay_spec typography presign_token"
FUZZ_TARGETS=${FUZZ_TARGETS:-$ALL_TARGETS}

# cargo-afl, pinned, in a local root (not ~/.cargo).
if ! cargo afl --version 2>/dev/null | grep -q "^cargo-afl $CARGO_AFL_VERSION "; then
  cargo install --locked --root "$TOOLS" "cargo-afl@$CARGO_AFL_VERSION"
fi
# AFL++ itself, built once per toolchain ("already built" is fine).
if ! log=$(cargo afl config --build 2>&1); then
  grep -q "already built" <<<"$log" || { echo "$log"; exit 1; }
fi

cd fuzz
# The fuzz crate has its own target dir (fuzz/target), whatever CARGO_TARGET_DIR says.
CARGO_TARGET_DIR=$ROOT/fuzz/target cargo afl build --release --locked

# A shared machine: no CPU pinning, no frequency checks; no UI, bounded time per target.
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
  AFL_NO_UI=1 AFL_QUIET=1
found=0
printf '\n%-15s %10s %8s %8s %8s\n' target execs/s paths crashes hangs
for t in $FUZZ_TARGETS; do
  out=out/$t
  rm -rf "$out" "$out.log"
  mkdir -p out
  # -t: ms per input (svg2spec renders), -m none: Rust binaries map more than AFL's default.
  cargo afl fuzz -V "$FUZZ_SECS" -t 5000 -m none -i "corpus/$t" -o "$out" \
    "target/release/$t" >"$out.log" 2>&1 || { echo "afl-fuzz failed on $t:"; tail -20 "$out.log"; exit 1; }
  stats=$out/default/fuzzer_stats
  get() { awk -F' *: *' -v k="$1" '$1==k {print $2}' "$stats"; }
  execs=$(get execs_done); secs=$(( $(get last_update) - $(get start_time) ))
  rate=$(( execs / (secs > 0 ? secs : 1) ))
  line=$(printf '%-15s %10s %8s %8s %8s' "$t" "$rate" "$(get corpus_count)" "$(get saved_crashes)" "$(get saved_hangs)")
  echo "$line"
  if [ "$(get saved_crashes)" != 0 ]; then
    found=1
  fi
done
if [ "$found" = 1 ]; then
  echo
  echo "crashes found (replay one with: fuzz/target/release/<target> < FILE):"
  ls -1 out/*/default/crashes/id:* 2>/dev/null
  exit 1
fi
