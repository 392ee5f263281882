//! The file jail: listing and copying files beneath an approved folder, safe by construction.
//!
//! Every path is first checked as text (no `..`, no absolute paths, no hidden or key-file names, no
//! control, bidi or look-alike characters, no globs or schemes, bounded lengths), then opened
//! relative to a handle on the root with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//! RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)` — no string prefix checks and no check-then-open
//! race: a symlink anywhere in the path, or a mount crossing, fails the open itself. The opened
//! handle is then `fstat`ed: a listing needs a directory, a copy a regular file with one link.
//! Copies read the opened handle, never a path.
//!
//! The work happens in `aware-server worker files` ([`worker_main`]), a process confined with
//! Landlock to reading beneath the root (and writing beneath the staging folder, for copies), with
//! resource limits, started per request by [`FileJail`] and killed when its deadline passes.

use crate::priority::WorkerPriority;
use crate::spare::{Outcome, Workers};
use crate::supervisor::WorkerKind;
use async_trait::async_trait;
use aware_domain::files::EntryKind;
use aware_domain::ids::UserId;
use aware_domain::ports::files::{FileAccess, RawEntry};
use aware_domain::{Error, ErrorCode, Result};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags, Stat};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::time::Duration;
use unicode_normalization::UnicodeNormalization;

pub const MAX_PATH_BYTES: usize = 4096;
pub const MAX_COMPONENT_BYTES: usize = 255;

/// Which folder an approved root is: its device and inode, taken when the server started. A root
/// found at its path with another identity was swapped (for a symlink to `/etc`, say) and is
/// refused; everything the worker does goes through the one handle that passed this check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootId {
    pub dev: u64,
    pub ino: u64,
}

impl RootId {
    /// The identity of the folder at `path` now (the server calls this once, at startup).
    pub fn of(path: &Path) -> std::io::Result<Self> {
        let st = rustix::fs::stat(path)?;
        if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
            return Err(std::io::Error::other(format!("{} is not a folder", path.display())));
        }
        Ok(Self { dev: st.st_dev, ino: st.st_ino })
    }
}

/// What the parent asks a files worker to do.
#[derive(Debug, Serialize, Deserialize)]
pub enum FilesRequest {
    List {
        root: PathBuf,
        root_id: RootId,
        path: String,
        pattern: String,
        max_entries: usize,
    },
    /// Copies one file beneath `root` to `dest` (a new file the worker creates).
    Copy {
        root: PathBuf,
        root_id: RootId,
        path: String,
        dest: PathBuf,
        max_bytes: u64,
    },
}

/// What a files worker answers.
#[derive(Debug, Serialize, Deserialize)]
pub enum FilesResponse {
    Listing {
        entries: Vec<RawEntry>,
        truncated: bool,
    },
    Copied {
        bytes: u64,
    },
    /// The jail refused the path (PATH_REFUSED).
    Refused {
        message: String,
    },
    NotFound {
        message: String,
    },
    Invalid {
        message: String,
    },
    TooBig {
        message: String,
    },
}

type Answer<T> = std::result::Result<T, FilesResponse>;

fn refused<T>(message: impl Into<String>) -> Answer<T> {
    Err(FilesResponse::Refused { message: message.into() })
}

/// Names that hold secrets, whatever folder they are in.
fn sensitive(name: &str) -> bool {
    const NAMES: [&str; 9] = [
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "authorized_keys",
        "known_hosts",
        "credentials",
        "shadow",
        "master.key",
    ];
    const EXTENSIONS: [&str; 9] = ["pem", "key", "p12", "pfx", "jks", "keystore", "kdbx", "gpg", "ppk"];
    let lower = name.to_lowercase();
    let stem = lower.strip_suffix(".pub").unwrap_or(&lower);
    NAMES.contains(&stem)
        || lower.rsplit_once('.').is_some_and(|(_, ext)| EXTENSIONS.contains(&ext))
        || lower.starts_with("secret")
}

/// Zero-width, bidi and other invisible format characters that make a name read as another.
fn invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{00AD}')
}

/// Why a name may not be shown or used, if it may not.
fn name_refusal(name: &str) -> Option<String> {
    if name == "." || name == ".." {
        return Some("`.` and `..` are not allowed in paths: name the file inside the folder".into());
    }
    if name.starts_with('.') {
        return Some(format!("{name:?} is hidden; hidden files and folders are never read"));
    }
    if name.len() > MAX_COMPONENT_BYTES {
        return Some(format!("a name is longer than {MAX_COMPONENT_BYTES} bytes"));
    }
    if sensitive(name) {
        return Some(format!("{name:?} looks like a key or secret; such files are never read"));
    }
    None
}

/// The components of a path given by a person or a model, if the text itself is acceptable.
/// `allow_empty`: the empty path means the root (listing).
pub fn components(raw: &str, allow_empty: bool) -> Answer<Vec<&str>> {
    if raw.is_empty() {
        return if allow_empty { Ok(Vec::new()) } else { refused("a file path is required") };
    }
    if raw.len() > MAX_PATH_BYTES {
        return refused(format!("the path is longer than {MAX_PATH_BYTES} bytes"));
    }
    if raw.starts_with('/') {
        return refused("absolute paths are refused: give a path inside the approved folder");
    }
    if raw.starts_with('~') {
        return refused("`~` paths are refused: give a path inside the approved folder");
    }
    if let Some(c) = raw.chars().find(|&c| c.is_control() || invisible(c)) {
        return refused(format!("the path contains an invisible or control character (U+{:04X})", c as u32));
    }
    if let Some(c) = raw.chars().find(|c| matches!(c, '\\' | '*' | '?' | '[' | ']' | '{' | '}' | ':')) {
        return refused(format!("`{c}` is not allowed in paths (no globs, schemes or backslashes)"));
    }
    if raw.nfkc().ne(raw.chars()) || raw.nfc().ne(raw.chars()) {
        return refused("the path contains look-alike or unnormalised characters");
    }
    let trimmed = raw.strip_suffix('/').unwrap_or(raw);
    let mut out = Vec::new();
    for part in trimmed.split('/') {
        if part.is_empty() {
            return refused("empty path components (`//`) are not allowed");
        }
        if let Some(why) = name_refusal(part) {
            return refused(why);
        }
        out.push(part);
    }
    Ok(out)
}

/// Opens `comps` beneath `root` without following any symlink or leaving the root's file system.
/// `flags` is `PATH` (a handle that reads nothing, for inspecting what is there) or a read mode.
fn open_beneath(root: &OwnedFd, comps: &[&str], flags: OFlags) -> Answer<OwnedFd> {
    let rel = if comps.is_empty() { ".".to_owned() } else { comps.join("/") };
    // openat2 refuses any flag beside these with O_PATH.
    let flags = if flags.contains(OFlags::PATH) {
        flags | OFlags::CLOEXEC | OFlags::NOFOLLOW
    } else {
        flags | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY
    };
    let resolve =
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS | ResolveFlags::NO_XDEV;
    let mut attempts = 0;
    loop {
        match rustix::fs::openat2(root, rel.as_str(), flags, Mode::empty(), resolve) {
            Ok(fd) => return Ok(fd),
            // Another rename on the host; the kernel asks to retry.
            Err(rustix::io::Errno::AGAIN) if attempts < 4 => attempts += 1,
            Err(rustix::io::Errno::LOOP) => return refused("a symbolic link is in the path; links are never followed"),
            Err(rustix::io::Errno::XDEV) => {
                return refused("the path leaves the approved folder or crosses into another file system");
            }
            Err(rustix::io::Errno::NOENT) => {
                return Err(FilesResponse::NotFound { message: format!("{rel:?} does not exist in this folder") });
            }
            Err(rustix::io::Errno::NOTDIR) => {
                return Err(FilesResponse::NotFound {
                    message: format!("{rel:?}: a part of the path is not a folder"),
                });
            }
            Err(rustix::io::Errno::ACCESS | rustix::io::Errno::PERM) => {
                return refused(format!("{rel:?} may not be read"));
            }
            Err(rustix::io::Errno::NOSYS) => {
                return refused("this kernel cannot open files safely (openat2 is missing); file access is off");
            }
            Err(e) => return refused(format!("{rel:?} cannot be opened: {e}")),
        }
    }
}

/// Looks at what `comps` names through an `O_PATH` handle, which opens nothing: a device or
/// FIFO is inspected without its driver ever seeing an open. A symbolic link as the last part
/// is refused here (one earlier in the path already failed the walk).
fn inspect(root: &OwnedFd, comps: &[&str]) -> Answer<Stat> {
    let probe = open_beneath(root, comps, OFlags::PATH)?;
    let st = rustix::fs::fstat(&probe).or_else(|e| refused(format!("cannot inspect {:?}: {e}", comps.join("/"))))?;
    if FileType::from_raw_mode(st.st_mode) == FileType::Symlink {
        return refused(format!("{:?} is a symbolic link; links are never followed", comps.join("/")));
    }
    Ok(st)
}

/// Opens for reading what [`inspect`] saw — the same walk again — and checks that it is still
/// the very same file, or something was swapped in between.
fn reopen(root: &OwnedFd, comps: &[&str], flags: OFlags, seen: &Stat) -> Answer<OwnedFd> {
    let fd = open_beneath(root, comps, flags)?;
    let now = rustix::fs::fstat(&fd).or_else(|e| refused(format!("cannot inspect {:?}: {e}", comps.join("/"))))?;
    // A file's link count too (a hard link added meanwhile); a folder's changes with its subfolders.
    let links_matter = FileType::from_raw_mode(seen.st_mode) != FileType::Directory;
    if (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino) || (links_matter && now.st_nlink != seen.st_nlink) {
        return refused(format!("{:?} changed while it was being opened; try again", comps.join("/")));
    }
    Ok(fd)
}

/// Opens the approved folder once, as a handle: not through a symlink at its last component, and
/// — when `expected` is given — only if it is still the folder approved at startup. Every later
/// open is relative to this handle.
pub fn open_root(root: &Path, expected: Option<RootId>) -> Answer<OwnedFd> {
    const REPLACED: &str = "the approved folder is no longer the folder that was approved when the server started \
                            (it was moved or replaced); restart the server to approve what is there now";
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = match rustix::fs::open(root, flags, Mode::empty()) {
        Ok(fd) => fd,
        // A symlink or a file where the folder was.
        Err(rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP) => return refused(REPLACED),
        Err(e) => return refused(format!("the approved folder cannot be opened: {e}")),
    };
    let st = rustix::fs::fstat(&fd).or_else(|e| refused(format!("the approved folder cannot be inspected: {e}")))?;
    if expected.is_some_and(|id| id != RootId { dev: st.st_dev, ino: st.st_ino }) {
        return refused(REPLACED);
    }
    Ok(fd)
}

/// Longest pattern [`glob_match`] takes, in characters.
pub const MAX_PATTERN_CHARS: usize = aware_domain::files::MAX_PATTERN_CHARS;

/// A glob (`*` any run of characters, `?` one character), case-insensitive, over one name. No
/// backtracking beyond the last `*`: a mismatch after a star only moves where that star's run
/// ends, so the work is at most pattern × name steps (a star settles what the stars before it
/// matched), whatever the pattern.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let n: Vec<char> = name.to_lowercase().chars().collect();
    let (mut pi, mut ni) = (0, 0);
    // The last star seen, and where in the name its run currently ends.
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == n[ni])) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some((sp, sn)) = star {
            // Let the star take one more character and retry the rest of the pattern after it.
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

pub fn list(root_fd: &OwnedFd, path: &str, pattern: &str, max_entries: usize) -> Answer<(Vec<RawEntry>, bool)> {
    let comps = components(path, true)?;
    if pattern.chars().count() > MAX_PATTERN_CHARS || pattern.contains('/') || pattern.chars().any(|c| c.is_control()) {
        return Err(FilesResponse::Invalid {
            message: format!(
                "the pattern must be a file-name glob such as *.csv, at most {MAX_PATTERN_CHARS} characters"
            ),
        });
    }
    let not_a_folder = |message| FilesResponse::Invalid { message };
    let st = inspect(root_fd, &comps).map_err(|e| match e {
        FilesResponse::NotFound { message } if message.contains("not a folder") => not_a_folder(message),
        other @ (FilesResponse::Listing { .. }
        | FilesResponse::Copied { .. }
        | FilesResponse::Refused { .. }
        | FilesResponse::NotFound { .. }
        | FilesResponse::Invalid { .. }
        | FilesResponse::TooBig { .. }) => other,
    })?;
    if FileType::from_raw_mode(st.st_mode) != FileType::Directory {
        return Err(not_a_folder(format!("{path:?} is not a folder")));
    }
    let dir = reopen(root_fd, &comps, OFlags::RDONLY | OFlags::DIRECTORY, &st)?;
    let prefix = comps.join("/");
    let mut entries = Vec::new();
    let mut truncated = false;
    let mut reader = rustix::fs::Dir::read_from(&dir).or_else(|e| refused(format!("cannot read the folder: {e}")))?;
    while let Some(item) = reader.read() {
        let Ok(item) = item else { break };
        let Ok(name) = item.file_name().to_str() else { continue }; // not UTF-8: never shown
        if name == "."
            || name == ".."
            || name_refusal(name).is_some()
            || name.chars().any(|c| c.is_control() || invisible(c))
        {
            continue;
        }
        if !pattern.is_empty() && !glob_match(pattern, name) {
            continue;
        }
        if entries.len() >= max_entries {
            truncated = true;
            break;
        }
        let Ok(st) = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) else { continue };
        let kind = match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => EntryKind::File,
            FileType::Directory => EntryKind::Directory,
            FileType::Symlink
            | FileType::Fifo
            | FileType::Socket
            | FileType::CharacterDevice
            | FileType::BlockDevice
            | FileType::Unknown => EntryKind::Other,
        };
        entries.push(RawEntry {
            name: name.to_owned(),
            path: if prefix.is_empty() { name.to_owned() } else { format!("{prefix}/{name}") },
            kind,
            size_bytes: if kind == EntryKind::File { st.st_size as u64 } else { 0 },
            modified_unix: st.st_mtime,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((entries, truncated))
}

pub fn copy(root_fd: &OwnedFd, path: &str, dest: &Path, max_bytes: u64) -> Answer<u64> {
    let comps = components(path, false)?;
    let st = inspect(root_fd, &comps)?;
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => {}
        FileType::Directory => return refused(format!("{path:?} is a folder, not a file")),
        other @ (FileType::Symlink
        | FileType::Fifo
        | FileType::Socket
        | FileType::CharacterDevice
        | FileType::BlockDevice
        | FileType::Unknown) => {
            return refused(format!("{path:?} is not a regular file ({other:?}); only plain files are imported"));
        }
    }
    if st.st_nlink != 1 {
        return refused(format!("{path:?} has other hard links; such files are never read"));
    }
    if st.st_size as u64 > max_bytes {
        return Err(FilesResponse::TooBig {
            message: format!("{path:?} is larger than the {} MiB import limit", max_bytes >> 20),
        });
    }
    let fd = reopen(root_fd, &comps, OFlags::RDONLY, &st)?;
    let mut source = std::fs::File::from(fd).take(max_bytes + 1);
    let mut target = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dest)
        .or_else(|e| refused(format!("cannot create the staging copy: {e}")))?;
    let copied = std::io::copy(&mut source, &mut target).or_else(|e| refused(format!("copy failed: {e}")))?;
    if copied > max_bytes {
        let _ = std::fs::remove_file(dest);
        return Err(FilesResponse::TooBig { message: format!("{path:?} grew past the import limit while copying") });
    }
    Ok(copied)
}

/// The worker process's `main`: one request in, one response out. Returns the exit code.
pub fn worker_main() -> i32 {
    let mut input = String::new();
    if std::io::stdin().take(1 << 20).read_to_string(&mut input).is_err() {
        return 2;
    }
    let Ok(request) = serde_json::from_str::<FilesRequest>(&input) else { return 2 };
    let (FilesRequest::List { root, root_id, .. } | FilesRequest::Copy { root, root_id, .. }) = &request;
    let response = match open_root(root, Some(*root_id)) {
        Err(refusal) => refusal,
        Ok(root_fd) => {
            if let Err(e) = confine(&request, &root_fd) {
                eprintln!("files worker: cannot confine itself: {e}");
                return 3;
            }
            let outcome = match &request {
                FilesRequest::List { path, pattern, max_entries, .. } => list(&root_fd, path, pattern, *max_entries)
                    .map(|(entries, truncated)| FilesResponse::Listing { entries, truncated }),
                FilesRequest::Copy { path, dest, max_bytes, .. } => {
                    copy(&root_fd, path, dest, *max_bytes).map(|bytes| FilesResponse::Copied { bytes })
                }
            };
            outcome.unwrap_or_else(|refusal| refusal)
        }
    };
    let Ok(json) = serde_json::to_string(&response) else { return 4 };
    let mut out = std::io::stdout().lock();
    if out.write_all(json.as_bytes()).and_then(|()| out.flush()).is_err() {
        return 5;
    }
    0
}

/// Limits and Landlock: read beneath the root (the verified handle, not its path); for a copy,
/// also create the one staging file.
fn confine(request: &FilesRequest, root_fd: &OwnedFd) -> std::result::Result<(), String> {
    use landlock::{ABI, Access, AccessFs, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr};
    use rustix::process::{Resource, Rlimit, setrlimit};
    let set = |resource, limit: u64| setrlimit(resource, Rlimit { current: Some(limit), maximum: Some(limit) });
    let (write_dir, fsize) = match request {
        FilesRequest::List { .. } => (None, 0),
        FilesRequest::Copy { dest, max_bytes, .. } => (dest.parent(), max_bytes + 1),
    };
    set(Resource::Core, 0).map_err(|e| e.to_string())?;
    set(Resource::Cpu, 120).map_err(|e| e.to_string())?;
    set(Resource::Fsize, fsize).map_err(|e| e.to_string())?;
    set(Resource::Nofile, 32).map_err(|e| e.to_string())?;
    let abi = ABI::V5;
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .and_then(|r| r.create())
        .and_then(|r| r.add_rule(PathBeneath::new(root_fd, AccessFs::from_read(abi))))
        .map_err(|e| format!("landlock: {e}"))?;
    if let Some(dir) = write_dir {
        let access = AccessFs::MakeReg | AccessFs::WriteFile | AccessFs::RemoveFile;
        ruleset = ruleset
            .add_rule(PathBeneath::new(PathFd::new(dir).map_err(|e| format!("landlock: {e}"))?, access))
            .map_err(|e| format!("landlock: {e}"))?;
    }
    ruleset.restrict_self().map_err(|e| format!("landlock: {e}"))?;
    Ok(())
}

/// Runs files workers for the server: one process per request (see [`crate::spare`]), killed at
/// its deadline.
#[derive(Clone, Debug)]
pub struct FileJail {
    workers: Workers,
    timeout: Duration,
    /// Each approved root's identity when the server started.
    roots: HashMap<PathBuf, RootId>,
}

impl FileJail {
    /// A jail for these approved roots, whose identities are taken now.
    pub fn new(
        worker_exe: PathBuf,
        timeout: Duration,
        priority: WorkerPriority,
        roots: &[PathBuf],
    ) -> std::io::Result<Self> {
        let roots = roots.iter().map(|r| Ok((r.clone(), RootId::of(r)?))).collect::<std::io::Result<_>>()?;
        Ok(Self { workers: Workers::new(worker_exe, WorkerKind::Files, priority), timeout, roots })
    }

    fn root_id(&self, root: &Path) -> Result<RootId> {
        self.roots.get(root).copied().ok_or_else(|| {
            Error::new(ErrorCode::PathRefused, "that folder is not an approved folder").with_field("root")
        })
    }

    /// Runs one request in a worker process for `user`.
    async fn run(&self, user: &UserId, request: &FilesRequest) -> Result<FilesResponse> {
        match self.workers.call(user.as_str(), request, self.timeout).await? {
            Outcome::Answered(response) => Ok(response),
            Outcome::TimedOut => Err(Error::new(
                ErrorCode::RunnerTimeout,
                format!("The file operation took longer than {} s.", self.timeout.as_secs()),
            )),
            Outcome::Failed => {
                Err(Error::new(ErrorCode::RunnerInternalError, "The file operation stopped unexpectedly."))
            }
        }
    }
}

/// A worker's refusal as the error the caller sees.
fn answer_error(r: FilesResponse) -> Error {
    match r {
        FilesResponse::Refused { message } => Error::new(ErrorCode::PathRefused, message).with_field("path"),
        FilesResponse::NotFound { message } => Error::new(ErrorCode::NotFound, message).with_field("path"),
        FilesResponse::Invalid { message } => Error::validation("path", message),
        FilesResponse::TooBig { message } => Error::new(ErrorCode::ResourceExhausted, message),
        FilesResponse::Listing { .. } | FilesResponse::Copied { .. } => {
            Error::internal("the files worker answered a different question")
        }
    }
}

#[async_trait]
impl FileAccess for FileJail {
    async fn list(
        &self,
        user: &UserId,
        root: &Path,
        path: &str,
        pattern: &str,
        max_entries: usize,
    ) -> Result<(Vec<RawEntry>, bool)> {
        let request = FilesRequest::List {
            root: root.to_owned(),
            root_id: self.root_id(root)?,
            path: path.to_owned(),
            pattern: pattern.to_owned(),
            max_entries,
        };
        match self.run(user, &request).await? {
            FilesResponse::Listing { entries, truncated } => Ok((entries, truncated)),
            other @ (FilesResponse::Copied { .. }
            | FilesResponse::Refused { .. }
            | FilesResponse::NotFound { .. }
            | FilesResponse::Invalid { .. }
            | FilesResponse::TooBig { .. }) => Err(answer_error(other)),
        }
    }

    async fn copy(&self, user: &UserId, root: &Path, path: &str, dest: &Path, max_bytes: u64) -> Result<u64> {
        let request = FilesRequest::Copy {
            root: root.to_owned(),
            root_id: self.root_id(root)?,
            path: path.to_owned(),
            dest: dest.to_owned(),
            max_bytes,
        };
        match self.run(user, &request).await? {
            FilesResponse::Copied { bytes } => Ok(bytes),
            other @ (FilesResponse::Listing { .. }
            | FilesResponse::Refused { .. }
            | FilesResponse::NotFound { .. }
            | FilesResponse::Invalid { .. }
            | FilesResponse::TooBig { .. }) => Err(answer_error(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn path_text_rules() {
        assert_eq!(components("sub/data.csv", false).unwrap(), ["sub", "data.csv"]);
        assert_eq!(components("café.csv", false).unwrap(), ["café.csv"]);
        assert_eq!(components("sub/", true).unwrap(), ["sub"]);
        assert!(components("", true).unwrap().is_empty());
        for bad in [
            "",
            "../x",
            "sub/../x",
            "./x",
            "/etc/passwd",
            "~/x",
            "a\\b",
            "*.csv",
            "file:x",
            "a\u{0}b",
            "a\nb",
            "a\u{202E}b",
            "a\u{200B}b",
            "..\u{FF0F}etc",
            "\u{2025}/x",
            ".env",
            "x/.git/config",
            "id_rsa",
            "server.pem",
            "a//b",
        ] {
            assert!(components(bad, false).is_err(), "{bad:?} must be refused");
        }
        assert!(components(&"a".repeat(256), false).is_err());
        assert!(components(&"a/".repeat(2100), false).is_err());
    }

    #[test]
    fn globs_match_names_case_insensitively() {
        assert!(glob_match("*.csv", "Sales.CSV"));
        assert!(glob_match("data_??.csv", "data_01.csv"));
        assert!(!glob_match("*.csv", "sales.parquet"));
        for (p, n, m) in [
            ("", "", true),
            ("", "a", false),
            ("*", "", true),
            ("**", "abc", true),
            ("a*", "a", true),
            ("*a", "ba", true),
            ("*a", "ab", false),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("*ab*", "aab", true),
            ("?", "", false),
            ("a?c", "abc", true),
            ("*?*", "x", true),
            ("é*", "ÉTÉ.csv", true),
            ("*x*y", "xaxby", true),
            ("*x*y", "xaxbyz", false),
        ] {
            assert_eq!(glob_match(p, n), m, "{p:?} vs {n:?}");
        }
    }

    /// The pattern of the attack pass: with backtracking into every star this took minutes on one
    /// 64-character name; here it is a few thousand steps.
    #[test]
    fn star_heavy_patterns_stay_fast_and_correct() {
        let name = "a".repeat(64);
        let bomb = format!("{}*b", "*a".repeat(40));
        let started = std::time::Instant::now();
        assert!(!glob_match(&bomb, &name));
        assert!(glob_match(&bomb, &format!("{name}b")));
        assert!(glob_match(&"*a".repeat(40), &name));
        assert!(!glob_match(&"*a".repeat(65), &name));
        assert!(started.elapsed() < std::time::Duration::from_secs(1), "{:?}", started.elapsed());
    }

    #[test]
    fn the_jail_lists_and_copies_beneath_the_root_and_refuses_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("a.csv"), "x\n1\n").unwrap();
        std::fs::write(root.join(".env"), "SECRET=1").unwrap();
        std::fs::write(dir.path().join("outside.csv"), "TOP SECRET").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.csv"), root.join("link.csv")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("sub/up")).unwrap();
        std::fs::hard_link(dir.path().join("outside.csv"), root.join("hard.csv")).unwrap();
        let root_fd = open_root(&root, Some(RootId::of(&root).unwrap())).unwrap();
        let (entries, truncated) = list(&root_fd, "", "", 1000).unwrap();
        let names: Vec<(&str, EntryKind)> = entries.iter().map(|e| (e.name.as_str(), e.kind)).collect();
        assert_eq!(
            names,
            [
                ("a.csv", EntryKind::File),
                ("hard.csv", EntryKind::File),
                ("link.csv", EntryKind::Other),
                ("sub", EntryKind::Directory)
            ]
        );
        assert!(!truncated);
        let dest = dir.path().join("copy");
        assert_eq!(copy(&root_fd, "a.csv", &dest, 1 << 20).unwrap(), 4);
        for bad in ["link.csv", "hard.csv", "sub/up/outside.csv", "sub"] {
            let d = dir.path().join(format!("copy-{}", bad.replace('/', "_")));
            assert!(matches!(copy(&root_fd, bad, &d, 1 << 20), Err(FilesResponse::Refused { .. })), "{bad}");
            assert!(!d.exists());
        }
        assert!(matches!(
            copy(&root_fd, "nope.csv", &dir.path().join("n"), 1 << 20),
            Err(FilesResponse::NotFound { .. })
        ));
        assert!(matches!(list(&root_fd, "a.csv", "", 10), Err(FilesResponse::Invalid { .. })));
    }

    #[test]
    fn a_root_swapped_after_approval_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("passwd"), "root:x:0:0\n").unwrap();
        let approved = RootId::of(&root).unwrap();
        assert!(open_root(&root, Some(approved)).is_ok());
        std::fs::rename(&root, dir.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &root).unwrap();
        assert!(
            matches!(open_root(&root, Some(approved)), Err(FilesResponse::Refused { .. })),
            "a symlink in its place"
        );
        std::fs::remove_file(&root).unwrap();
        std::fs::create_dir(&root).unwrap();
        assert!(
            matches!(open_root(&root, Some(approved)), Err(FilesResponse::Refused { .. })),
            "a new folder in its place"
        );
    }
}
