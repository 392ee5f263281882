# Sourced by the scripts: one shared target directory outside the checkout, so DuckDB's bundled
# C++ build (the slowest step, 25-40 min on 2 cores) happens once per machine and every later
# build, test and bench reuses it. Everything runs in the dev profile (dependencies optimised).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/aware-target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# DuckDB: the official 2.0.0 library from PyPI (scripts/fetch-duckdb, run by scripts/install-tools),
# linked from here and found by every binary through the rpath in .cargo/config.toml.
# DUCKDB_FROM_SOURCE=1 compiles it from the crate's bundled C++ instead (about an hour on 2 cores;
# the way on platforms other than Linux x86_64): cargo then needs $DUCKDB_CARGO_FEATURES.
if [ "${DUCKDB_FROM_SOURCE:-}" = 1 ]; then
  unset DUCKDB_LIB_DIR
  export DUCKDB_CARGO_FEATURES="--features aware-sandbox/bundled-duckdb"
else
  export DUCKDB_LIB_DIR="${DUCKDB_LIB_DIR:-$CARGO_TARGET_DIR/duckdb}"
  export DUCKDB_CARGO_FEATURES=""
fi
# With the bundled build, a change in the dependency graph can change the hash of DuckDB's build
# script and recompile it from scratch; ccache (when installed) turns that into cache hits.
if command -v ccache >/dev/null 2>&1; then
  export CC="${CC:-ccache cc}" CXX="${CXX:-ccache c++}"
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}" CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}" CCACHE_NOHASHDIR=1
fi
# The search model fetched by scripts/install-tools, for the e2e suites and benches (binaries in the
# shared target directory may have been built from another checkout).
E2E_MODEL_DIR="${E2E_MODEL_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools/models/all-minilm-l6-v2}"
export E2E_MODEL_DIR
