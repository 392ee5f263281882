# Sourced by the scripts: one shared target directory outside the checkout, so DuckDB's bundled
# C++ build (the slowest step, 25-40 min on 2 cores) happens once per machine and every later
# build, test and bench reuses it. Everything runs in the dev profile (dependencies optimised).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/aware-target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# A change in the dependency graph can change the hash of DuckDB's build script and recompile it
# from scratch; ccache (when installed, see scripts/install-tools) turns that into cache hits.
if command -v ccache >/dev/null 2>&1; then
  export CC="${CC:-ccache cc}" CXX="${CXX:-ccache c++}"
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}" CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}" CCACHE_NOHASHDIR=1
fi
# The search model fetched by scripts/install-tools, for the e2e suites and benches (binaries in the
# shared target directory may have been built from another checkout).
E2E_MODEL_DIR="${E2E_MODEL_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools/models/all-minilm-l6-v2}"
export E2E_MODEL_DIR
