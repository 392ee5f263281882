//! The `aware.v1` contract, generated from `proto/aware/v1/*.proto`. This is the only crate that
//! runs protobuf codegen; everything that speaks the wire format depends on it. Domain code
//! (`aware-core`) never sees these types: the server converts at its boundary.

#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod v1 {
    tonic::include_proto!("aware.v1");

    /// The encoded file descriptor set of every `aware.v1` file, for server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("aware_descriptor");
}
