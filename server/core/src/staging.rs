//! The upload staging folder: bytes being received, before ingestion. Every staged file is owned
//! by a guard that deletes it when dropped, so an interrupted or failed upload leaves nothing.

use aware_domain::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How many leading bytes are kept for format sniffing.
pub const HEAD_BYTES: usize = 8 * 1024;

/// The staging folder.
#[derive(Clone, Debug)]
pub struct Staging {
    dir: PathBuf,
}

impl Staging {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    fn path_for(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.part"))
    }

    /// Starts a new staged file that is written in one go (a streaming upload).
    pub async fn create(&self, key: &str, max_bytes: u64) -> Result<StagedWriter> {
        tokio::fs::create_dir_all(&self.dir).await?;
        let path = self.path_for(key);
        let file = tokio::fs::File::create(&path).await?;
        Ok(StagedWriter {
            guard: StagedFile { path },
            file: tokio::io::BufWriter::with_capacity(1 << 20, file),
            hasher: Sha256::new(),
            len: 0,
            head: Vec::with_capacity(HEAD_BYTES),
            max_bytes,
        })
    }

    /// Creates an empty staged file that later requests append to (a browser upload). It is not
    /// guarded: it must outlive this request; [`Staging::discard`] removes it.
    pub async fn create_persistent(&self, key: &str) -> Result<()> {
        tokio::fs::create_dir_all(&self.dir).await?;
        tokio::fs::File::create(self.path_for(key)).await?;
        Ok(())
    }

    /// Appends one chunk to a persistent staged file and returns its new length. `offset` must
    /// equal the current length (checked by the caller against its bookkeeping, and here against
    /// the file itself, which is the truth after a crash).
    pub async fn append(&self, key: &str, offset: u64, chunk: &[u8]) -> Result<u64> {
        let path = self.path_for(key);
        let mut file = tokio::fs::OpenOptions::new().write(true).open(&path).await?;
        let len = file.metadata().await?.len();
        if len != offset {
            return Err(Error::validation(
                "offset",
                format!("the upload has {len} bytes; the next chunk must start at offset {len}, not {offset}"),
            ));
        }
        file.set_len(len).await?;
        tokio::io::AsyncSeekExt::seek(&mut file, std::io::SeekFrom::Start(len)).await?;
        file.write_all(chunk).await?;
        file.flush().await?;
        Ok(len + chunk.len() as u64)
    }

    /// Takes over a persistent staged file for ingestion: hashes it and guards it.
    pub async fn finish_persistent(&self, key: &str) -> Result<FinishedUpload> {
        let guard = StagedFile { path: self.path_for(key) };
        let mut file = tokio::fs::File::open(&guard.path).await?;
        let mut hasher = Sha256::new();
        let mut head = Vec::with_capacity(HEAD_BYTES);
        let mut len = 0u64;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = file.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            keep_head(&mut head, &buf[..n]);
            hasher.update(&buf[..n]);
            len += n as u64;
        }
        Ok(FinishedUpload { guard, size_bytes: len, sha256: hex::encode(hasher.finalize()), head })
    }

    /// Removes a persistent staged file (an abandoned or expired browser upload).
    pub async fn discard(&self, key: &str) {
        let _ = tokio::fs::remove_file(self.path_for(key)).await;
    }

    /// Removes every staged file: at startup nothing in here belongs to a live request except
    /// browser uploads, which `keep` names.
    pub async fn clean(&self, keep: &dyn Fn(&str) -> bool) -> Result<usize> {
        let mut removed = 0;
        let Ok(mut entries) = tokio::fs::read_dir(&self.dir).await else { return Ok(0) };
        while let Some(entry) = entries.next_entry().await? {
            let name = entry.file_name().to_string_lossy().into_owned();
            let key = name.strip_suffix(".part").unwrap_or(&name);
            if !keep(key) {
                tokio::fs::remove_file(entry.path()).await.ok();
                removed += 1;
            }
        }
        Ok(removed)
    }
}

fn keep_head(head: &mut Vec<u8>, chunk: &[u8]) {
    let room = HEAD_BYTES.saturating_sub(head.len());
    head.extend_from_slice(&chunk[..room.min(chunk.len())]);
}

/// Deletes its file when dropped.
#[derive(Debug)]
struct StagedFile {
    path: PathBuf,
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        // Best effort: a leftover is also removed by `Staging::clean` at the next start.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A staged file being written by a streaming upload.
pub struct StagedWriter {
    guard: StagedFile,
    file: tokio::io::BufWriter<tokio::fs::File>,
    hasher: Sha256,
    len: u64,
    head: Vec<u8>,
    max_bytes: u64,
}

impl StagedWriter {
    /// Appends a chunk, enforcing the size cap.
    pub async fn write(&mut self, chunk: &[u8]) -> Result<()> {
        let len = self.len + chunk.len() as u64;
        if len > self.max_bytes {
            return Err(too_large(self.max_bytes));
        }
        keep_head(&mut self.head, chunk);
        self.hasher.update(chunk);
        self.file.write_all(chunk).await?;
        self.len = len;
        Ok(())
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.len
    }

    pub async fn finish(mut self) -> Result<FinishedUpload> {
        self.file.flush().await?;
        Ok(FinishedUpload {
            guard: self.guard,
            size_bytes: self.len,
            sha256: hex::encode(self.hasher.finalize()),
            head: self.head,
        })
    }
}

/// The error for an upload over the size cap.
pub fn too_large(max_bytes: u64) -> Error {
    Error::resource_exhausted(format!("the file is larger than the upload limit of {} MiB", max_bytes / (1024 * 1024)))
}

/// A complete staged upload, deleted when dropped.
#[derive(Debug)]
pub struct FinishedUpload {
    guard: StagedFile,
    pub size_bytes: u64,
    /// Lower-case hex sha256 of the content.
    pub sha256: String,
    /// The first bytes, for format sniffing.
    pub head: Vec<u8>,
}

impl FinishedUpload {
    pub fn path(&self) -> &Path {
        &self.guard.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn staged_files_hash_content_and_vanish_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let staging = Staging::new(dir.path());
        let mut w = staging.create("a", 100).await.unwrap();
        w.write(b"hello ").await.unwrap();
        w.write(b"world").await.unwrap();
        let done = w.finish().await.unwrap();
        assert_eq!(done.size_bytes, 11);
        assert_eq!(done.sha256, "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9");
        assert_eq!(std::fs::read(done.path()).unwrap(), b"hello world");
        let path = done.path().to_owned();
        drop(done);
        assert!(!path.exists());

        let mut w = staging.create("b", 4).await.unwrap();
        assert_eq!(w.write(b"12345").await.unwrap_err().code, crate::ErrorCode::ResourceExhausted);
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "an aborted upload leaves nothing");
    }

    #[tokio::test]
    async fn persistent_uploads_append_at_the_right_offset_only() {
        let dir = tempfile::tempdir().unwrap();
        let staging = Staging::new(dir.path());
        staging.create_persistent("u").await.unwrap();
        assert_eq!(staging.append("u", 0, b"abc").await.unwrap(), 3);
        let err = staging.append("u", 1, b"zz").await.unwrap_err();
        assert_eq!(err.field.as_deref(), Some("offset"));
        assert_eq!(staging.append("u", 3, b"def").await.unwrap(), 6);
        let done = staging.finish_persistent("u").await.unwrap();
        assert_eq!(done.size_bytes, 6);
        assert_eq!(done.head, b"abcdef");
        drop(done);
        assert_eq!(staging.clean(&|_| false).await.unwrap(), 0);
    }
}
