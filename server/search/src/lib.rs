//! Search indexes for aware: [`DiskStore`] implements aware-core's `SearchStore` port (a tantivy
//! BM25 index and a vector index per dataset, under `<data dir>/search/`), and [`MiniLm`]
//! implements its `Embedder` port with all-MiniLM-L6-v2 run in-process: its tokenizer
//! ([`wordpiece`]) and encoder ([`bert`]) written here in plain Rust on `ndarray` (CPU, nothing
//! downloaded at run time).
//!
//! The rules — which columns are text, when to index, how rankings are fused — live in
//! `aware_domain::search`; this crate only stores and computes. It must not depend on tonic, sqlx
//! or duckdb.

pub mod bert;
mod lexical;
mod minilm;
mod store;
mod vectors;
pub mod wordpiece;

pub use minilm::MiniLm;
pub use store::DiskStore;
pub use vectors::Vectors;
