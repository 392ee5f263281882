//! A thread's title from its first message, as the engine names a new thread and a listing
//! names one that has no title yet.

/// A title made from a message keeps about this many characters of it.
const TITLE_FROM_MESSAGE: usize = 60;

/// The title a thread gets from its first message: its first line, whitespace collapsed, cut at
/// a word boundary with an ellipsis when long.
pub(crate) fn title_from(message: &str) -> String {
    let line = message.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= TITLE_FROM_MESSAGE {
        return line;
    }
    let cut: String = line.chars().take(TITLE_FROM_MESSAGE).collect();
    let cut = match cut.rfind(' ') {
        Some(at) if at > TITLE_FROM_MESSAGE / 2 => cut[..at].to_owned(),
        _ => cut,
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', '.', ' ']))
}
