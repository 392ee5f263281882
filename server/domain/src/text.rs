//! Plain text as the services read it: its words. A leaf: it names no other module.

/// Lower-case words of a text (letters and digits).
pub fn words(s: &str) -> Vec<String> {
    s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}
