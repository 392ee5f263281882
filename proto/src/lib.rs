//! The `aware.v1` contract, generated from `proto/aware/v1/*.proto` by `proto/gen`
//! (`cargo run -p aware-proto-gen`) into `src/gen/`, committed; `scripts/test` fails when it is
//! stale. Everything that speaks the wire format depends on this crate. Domain code
//! (`aware-core`) never sees these types: the server converts at its boundary.

#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod v1 {
    include!("gen/aware.v1.rs");

    /// The encoded file descriptor set of every `aware.v1` file, for server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!("gen/aware_descriptor.bin");
}
