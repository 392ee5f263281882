//! Compiles `proto/aware/v1/*.proto` with protox (pure Rust: no protoc to install) into prost types
//! and tonic clients/servers in `proto/src/gen/aware.v1.rs`, and writes the file descriptor set that
//! server reflection serves beside it. The output is committed, so building the server compiles
//! no code generator (a minute of a fresh build); `scripts/test` runs this and fails if anything
//! changed. Usage: `cargo run -p aware-proto-gen`.

use prost::Message as _;
use std::{fs, path::PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // protox resolves imports from `proto/`, as the contract's own paths say. `cargo run` names
    // the package's folder at run time; the path compiled in may be another checkout's when
    // several share one target directory.
    let package =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), PathBuf::from);
    std::env::set_current_dir(package.join(".."))?;
    let mut files: Vec<PathBuf> = fs::read_dir("aware/v1")?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "proto"))
        .collect();
    files.sort();
    let fds = protox::compile(&files, ["."])?;
    let out = PathBuf::from("src/gen");
    fs::create_dir_all(&out)?;
    // compile_fds does not write a descriptor set itself; reflection needs one.
    fs::write(out.join("aware_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        .out_dir(&out)
        // Upload chunks stay `Bytes` from the socket to the staging file: no copies.
        .bytes(".")
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
}
