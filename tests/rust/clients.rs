#![allow(clippy::unwrap_used)]
//! The generated clients outside Rust, driven against the real binary: the Python example (stubs
//! from `clients/python/generate`, grpcio from `.tools/python`) lists datasets and streams a run.
//! (The TypeScript client has its own Node suite: `clients/ts/test`.)

use aware_e2e::TestServer;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

/// The README's Python example works as written: it prints the user's real datasets, the tool the
/// assistant ran, the streamed answer and the run's final status.
#[test]
fn the_python_example_lists_datasets_and_streams_a_run() {
    let python = root().join(".tools/python/bin/python");
    assert!(python.exists(), "{} is missing: run scripts/install-tools", python.display());
    let server = TestServer::start(&[]);
    let out = Command::new(&python)
        .arg(root().join("clients/python/example.py"))
        .arg(server.addr.to_string())
        .arg("what are my files?")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("dataset barcelona_apartments: 240 rows"), "{stdout}");
    assert!(stdout.contains("[List datasets]"), "{stdout}");
    assert!(stdout.contains("customer_churn.csv (table `customer_churn`"), "the streamed answer: {stdout}");
    assert!(stdout.trim_end().ends_with("RUN_STATUS_SUCCEEDED"), "{stdout}");
}
