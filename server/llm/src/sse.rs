//! A server-sent-events decoder: bytes in (split anywhere), whole events out. Handles `\n`, `\r\n`
//! and `\r` line ends, comments, multi-line `data`, and caps how much one event may buffer.

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, empty when the stream sent none.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The largest event (or line) the decoder keeps before giving up on the stream.
pub const MAX_EVENT_BYTES: usize = 8 << 20;

#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a `\n` starting the next one belongs to that line end.
    after_cr: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    /// Feeds bytes; returns the events they completed. An error means the stream is unusable.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, String> {
        let mut out = Vec::new();
        for &b in bytes {
            if std::mem::take(&mut self.after_cr) && b == b'\n' {
                continue;
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line(&line, &mut out)?;
                }
                _ => {
                    self.line.push(b);
                    if self.line.len() + self.data.len() > MAX_EVENT_BYTES {
                        return Err(format!("an event in the stream is larger than {MAX_EVENT_BYTES} bytes"));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The stream ended: an event not yet terminated by a blank line is dispatched (servers that
    /// close right after the last `data:` line are common).
    pub fn finish(&mut self) -> Result<Option<SseEvent>, String> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line(&line, &mut out)?;
        }
        self.line(b"", &mut out)?;
        Ok(out.pop())
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), String> {
        if line.is_empty() {
            if self.has_data || !self.event.is_empty() {
                out.push(SseEvent { event: std::mem::take(&mut self.event), data: std::mem::take(&mut self.data) });
                self.has_data = false;
            }
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let line = std::str::from_utf8(line).map_err(|_| "the stream is not valid UTF-8".to_owned())?;
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {} // id, retry and unknown fields do not matter for a one-shot stream
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut d = SseDecoder::default();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(d.push(c).unwrap());
        }
        out.extend(d.finish().unwrap());
        out
    }

    #[test]
    fn events_survive_any_split_and_any_line_end() {
        let text = b"event: ping\ndata: {}\n\n: comment\r\nevent: message_delta\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata: [DONE]\r\r";
        let whole = all(&[text]);
        assert_eq!(
            whole,
            [
                SseEvent { event: "ping".into(), data: "{}".into() },
                SseEvent { event: "message_delta".into(), data: "{\"a\":\n1}".into() },
                SseEvent { event: String::new(), data: "[DONE]".into() },
            ]
        );
        for split in 1..text.len() {
            let (a, b) = text.split_at(split);
            assert_eq!(all(&[a, b]), whole, "split at {split}");
        }
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(all(&bytes), whole);
    }

    #[test]
    fn a_last_event_without_a_blank_line_is_kept_and_giant_events_are_refused() {
        assert_eq!(all(&[b"data: x"]), [SseEvent { event: String::new(), data: "x".into() }]);
        let mut d = SseDecoder::default();
        let big = vec![b'a'; MAX_EVENT_BYTES + 1];
        assert!(d.push(&big).is_err());
    }
}
