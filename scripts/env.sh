# Sourced by the scripts: one shared target directory outside the checkout, so DuckDB's bundled
# C++ build (the slowest step, ~25 min on 2 cores) happens once per machine and every later build,
# test and bench reuses it. Everything runs in the dev profile (dependencies optimised).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/aware-target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
