//! Linking DuckDB: unless it is compiled from source (`bundled-duckdb`), the `duckdb` crate links
//! the official library in `$DUCKDB_LIB_DIR` (scripts/fetch-duckdb), which loads the stub beside it
//! that gives its unused Python symbols a definition. This says what to do when either is missing,
//! instead of the linker's or the loader's error.

fn main() {
    println!("cargo:rerun-if-env-changed=DUCKDB_LIB_DIR");
    let linked = std::env::var_os("CARGO_FEATURE_DUCKDB").is_some();
    let bundled = std::env::var_os("CARGO_FEATURE_BUNDLED_DUCKDB").is_some();
    if !linked || bundled {
        return;
    }
    let Some(dir) = std::env::var_os("DUCKDB_LIB_DIR") else {
        panic!(
            "DUCKDB_LIB_DIR is not set: run scripts/install-tools (it fetches DuckDB) and build through \
             the scripts (they source scripts/env.sh), or build with --features aware-sandbox/bundled-duckdb"
        );
    };
    let dir = std::path::PathBuf::from(dir);
    assert!(
        dir.join("libduckdb_pystub.so").exists(),
        "{} has no libduckdb_pystub.so: run scripts/fetch-duckdb",
        dir.display()
    );
}
