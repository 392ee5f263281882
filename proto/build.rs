//! Compiles `aware/v1/*.proto` with protox (pure Rust: no protoc to install) into prost types and
//! tonic clients/servers, and writes the file descriptor set that server reflection serves.

use prost::Message as _;
use std::{env, fs, path::PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from("aware/v1");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "proto"))
        .collect();
    files.sort();
    let fds = protox::compile(&files, ["."])?;
    let out = PathBuf::from(env::var("OUT_DIR")?);
    // compile_fds does not write a descriptor set itself; reflection needs one.
    fs::write(out.join("aware_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        // Upload chunks stay `Bytes` from the socket to the staging file: no copies.
        .bytes(".")
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    println!("cargo:rerun-if-changed=aware");
    Ok(())
}
