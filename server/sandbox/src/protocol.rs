//! The wire protocol between the server and its SQL worker processes: length-prefixed JSON frames
//! (a 4-byte big-endian length, then the document) over the worker's stdin and stdout. One request,
//! one response, strictly alternating. Everything about the protocol lives in this module.

use aware_domain::ErrorCode;
use aware_domain::value::Value;
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};
use std::path::PathBuf;

/// Largest frame either side accepts (a 10,000-row result is far below this; the byte cap on
/// results is enforced before a frame is built).
pub const MAX_FRAME: usize = 256 * 1024 * 1024;

/// One of the caller's tables: its SQL name and the DuckDB file holding it (table `data`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TableFile {
    pub name: String,
    pub path: PathBuf,
    /// The content's version hash: a refreshed dataset is the same file with new content, which
    /// a session must attach again.
    pub version: String,
    /// Its rows: what one scan of it reads.
    pub rows: u64,
}

/// A validated query to run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QueryRequest {
    /// The caller's dataset folder; the first request binds the worker to it for good.
    pub user_dir: PathBuf,
    pub tables: Vec<TableFile>,
    /// The validator's canonical SQL.
    pub sql: String,
    pub max_rows: u64,
    pub max_bytes: u64,
    pub timeout_ms: u64,
    /// Not run, answered with [`Response::Estimated`], when the plan's scans read more rows
    /// than this.
    pub ask_above: Option<u64>,
    /// Checked and planned, never run: answered with [`Response::Estimated`].
    pub estimate_only: bool,
}

/// Test-only probes that bypass the validator and DuckDB's own settings on purpose, to show that
/// the OS limits hold by themselves. A worker honours them only when started with
/// `AWARE_SANDBOX_TEST_HOOKS=1`; the server never sets it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Probe {
    /// Runs SQL on an unlocked in-memory DuckDB (external access on, no memory limit).
    RawSql { user_dir: PathBuf, sql: String },
    /// Opens a TCP connection from the worker.
    Connect { user_dir: PathBuf, addr: String },
    /// Reads a file from the worker.
    ReadFile { user_dir: PathBuf, path: PathBuf },
    /// Arms the CPU limit as for a query with this deadline on one thread, then spins without a
    /// watchdog: only the kernel can stop it.
    CpuSpin { user_dir: PathBuf, timeout_ms: u64 },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Request {
    Query(QueryRequest),
    Probe(Probe),
}

/// A result table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResultTable {
    /// (name, DuckDB type)
    pub columns: Vec<(String, String)>,
    pub rows: Vec<Vec<Value>>,
    pub truncated: bool,
    pub exec_ms: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Response {
    Table(ResultTable),
    /// What the query's plan reads from each of the request's tables (rows, over every scan of
    /// it), when it was not run: an estimate was asked for, or it reads more than the request's
    /// `ask_above` in all.
    Estimated {
        per_table: Vec<u64>,
    },
    Failed {
        code: ErrorCode,
        message: String,
    },
    /// A probe's outcome (test hooks only).
    Probed {
        ok: bool,
        detail: String,
    },
}

/// Writes one frame.
pub fn write_frame<T: Serialize>(out: &mut impl Write, message: &T) -> io::Result<()> {
    let body = serde_json::to_vec(message).map_err(io::Error::other)?;
    let len = u32::try_from(body.len()).map_err(|_| io::Error::other("frame too large"))?;
    out.write_all(&len.to_be_bytes())?;
    out.write_all(&body)?;
    out.flush()
}

/// Reads one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame<T: for<'de> Deserialize<'de>>(input: &mut impl Read) -> io::Result<Option<T>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::other(format!("frame of {len} bytes exceeds the limit")));
    }
    let mut body = vec![0u8; len];
    input.read_exact(&mut body)?;
    serde_json::from_slice(&body).map(Some).map_err(io::Error::other)
}

/// Async twins for the parent side.
pub mod nonblocking {
    use super::MAX_FRAME;
    use serde::{Deserialize, Serialize};
    use std::io;
    use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

    pub async fn write_frame<T: Serialize>(out: &mut (impl AsyncWrite + Unpin), message: &T) -> io::Result<()> {
        let body = serde_json::to_vec(message).map_err(io::Error::other)?;
        let len = u32::try_from(body.len()).map_err(|_| io::Error::other("frame too large"))?;
        out.write_all(&len.to_be_bytes()).await?;
        out.write_all(&body).await?;
        out.flush().await
    }

    pub async fn read_frame<T: for<'de> Deserialize<'de>>(input: &mut (impl AsyncRead + Unpin)) -> io::Result<T> {
        let mut len = [0u8; 4];
        input.read_exact(&mut len).await?;
        let len = u32::from_be_bytes(len) as usize;
        if len > MAX_FRAME {
            return Err(io::Error::other(format!("frame of {len} bytes exceeds the limit")));
        }
        let mut body = vec![0u8; len];
        input.read_exact(&mut body).await?;
        serde_json::from_slice(&body).map_err(io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_end_cleanly() {
        let mut buf = Vec::new();
        let resp = Response::Failed { code: ErrorCode::RunnerTimeout, message: "slow".into() };
        write_frame(&mut buf, &resp).unwrap();
        let mut input = buf.as_slice();
        assert_eq!(read_frame::<Response>(&mut input).unwrap(), Some(resp));
        assert_eq!(read_frame::<Response>(&mut input).unwrap(), None);
        let mut huge = (MAX_FRAME as u32 + 1).to_be_bytes().to_vec();
        huge.extend([0; 8]);
        assert!(read_frame::<Response>(&mut huge.as_slice()).is_err());
    }
}
