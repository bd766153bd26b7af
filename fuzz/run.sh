#!/usr/bin/env bash
# Runs every fuzz target for a short, fixed time from its committed seeds
# (`.ci/run` calls this after the tests). cargo-fuzz needs a nightly
# toolchain: without one this says so and skips, visibly.
#
#   bash fuzz/run.sh                 # every target, FUZZ_SECONDS (25) each
#   FUZZ_SECONDS=300 bash fuzz/run.sh dataset
#
# New inputs go to a scratch folder, never into fuzz/corpus. A crash, a
# panic or an input that takes over 10 s stops the run with exit code 1
# and leaves the input under fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
each=${FUZZ_SECONDS:-25}

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz: SKIPPED: no nightly toolchain here (rustup toolchain install nightly); the targets were only checked to build" >&2
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version 0.13.2
fi

# The fuzzed library needs no page engine (and nightly lacks its target).
export TOKENCAST_NO_WEB_ENGINE=1
cargo +nightly fuzz build
host=$(rustc +nightly -vV | sed -n 's/^host: //p')
bin="target/$host/release"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
  rm -rf "artifacts/$t"
  mkdir -p "$scratch/$t" "artifacts/$t"
  echo "fuzz: $t for ${each} s"
  "$bin/$t" "$scratch/$t" "corpus/$t" -max_total_time="$each" -seed=1 -timeout=10 \
    -rss_limit_mb=4096 -artifact_prefix="artifacts/$t/" -print_final_stats=1 2>&1 \
    | grep -E "^(stat::number_of_executed_units|stat::new_units_added)|panicked|ERROR|SUMMARY|Test unit written" \
    | sed "s/^/  /" || true
  if ls "artifacts/$t" | grep -q .; then
    echo "fuzz: $t found an input that fails: $(ls -d artifacts/$t/*)" >&2
    exit 1
  fi
done
echo "fuzz: ${#targets[@]} target(s), ${each} s each, nothing found"
