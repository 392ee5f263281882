//! How much data a Parquet file holds, read from its metadata alone — so a file whose few hundred
//! compressed bytes expand to gigabytes is refused before an ingestion worker is started for it.
//!
//! The footer is a Thrift compact-protocol `FileMetaData`. This reader walks it without
//! allocating for anything it skips, bounded by the footer's bytes and a nesting depth, and keeps
//! only sizes: per column chunk its `total_uncompressed_size`, the unencoded byte-array size
//! (`SizeStatistics`) when the writer recorded one, and for dictionary-encoded text the number of
//! values times the dictionary's average entry, read from the dictionary page's header. That last
//! one is what a bomb hides: a dictionary page holds one 4 MiB string once, however many of the
//! 2,000 rows repeat it, so the uncompressed sizes say 4 MiB where decoding makes 8 GiB. Hostile
//! input can make the estimate wrong, never the reader unsafe or slow: what it cannot read is left
//! to DuckDB (in the confined worker) to reject.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Largest footer read (real ones are kilobytes; a few MiB for very wide files).
const MAX_FOOTER: u64 = 16 << 20;
/// Deepest nesting of Thrift structs and lists followed.
const MAX_DEPTH: u32 = 32;

/// What the footer says about the data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParquetSize {
    pub rows: u64,
    /// The data's size once decoded, estimated from the metadata (bytes).
    pub decoded_bytes: u64,
}

/// Dictionary page headers read at most per file (each is one small read).
const MAX_DICTIONARY_READS: usize = 4096;
/// Bytes read at a dictionary page's offset: its header is a few dozen.
const PAGE_HEADER_BYTES: usize = 1024;

/// Reads the metadata of the Parquet file at `path`. `None` when it has no readable footer.
pub fn parquet_size(path: &Path) -> Option<ParquetSize> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len < 12 {
        return None;
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::End(-8)).ok()?;
    file.read_exact(&mut tail).ok()?;
    if &tail[4..] != b"PAR1" {
        return None;
    }
    let footer_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer_len > MAX_FOOTER || footer_len + 8 > len {
        return None;
    }
    let mut footer = vec![0u8; usize::try_from(footer_len).ok()?];
    file.seek(SeekFrom::End(-8 - i64::try_from(footer_len).ok()?)).ok()?;
    file.read_exact(&mut footer).ok()?;
    let mut reads = 0;
    read_file_metadata(&footer, |offset| {
        reads += 1;
        if reads > MAX_DICTIONARY_READS || offset >= len {
            return None;
        }
        let mut header = vec![0u8; PAGE_HEADER_BYTES.min(usize::try_from(len - offset).ok()?)];
        file.seek(SeekFrom::Start(offset)).ok()?;
        file.read_exact(&mut header).ok()?;
        read_dictionary_header(&header)
    })
}

/// Parses `FileMetaData` (the footer without its length and magic). `dictionary` reads the
/// header of the dictionary page at a file offset: (uncompressed bytes, entries).
pub fn read_file_metadata(footer: &[u8], mut dictionary: impl FnMut(u64) -> Option<(u64, u64)>) -> Option<ParquetSize> {
    let mut r = Reader { buf: footer, pos: 0 };
    let mut size = ParquetSize::default();
    r.each_field(0, |r, id, ty| match (id, ty) {
        (3, I64) => {
            size.rows = u64::try_from(r.varint_i64()?).unwrap_or(0);
            Some(())
        }
        (4, LIST) => r.each_element(1, |r, ty| {
            if ty != STRUCT {
                return r.skip(ty, 2);
            }
            let group = read_row_group(r, &mut dictionary)?;
            size.decoded_bytes = size.decoded_bytes.saturating_add(group);
            Some(())
        }),
        _ => r.skip(ty, 1),
    })?;
    Some(size)
}

/// A row group's decoded size: the larger of its own total and the sum over its columns.
fn read_row_group(r: &mut Reader, dictionary: &mut impl FnMut(u64) -> Option<(u64, u64)>) -> Option<u64> {
    let (mut total, mut columns) = (0u64, 0u64);
    r.each_field(2, |r, id, ty| match (id, ty) {
        (1, LIST) => r.each_element(3, |r, ty| {
            if ty != STRUCT {
                return r.skip(ty, 4);
            }
            columns = columns.saturating_add(read_column_chunk(r, dictionary)?);
            Some(())
        }),
        (2, I64) => {
            total = u64::try_from(r.varint_i64()?).unwrap_or(0);
            Some(())
        }
        _ => r.skip(ty, 3),
    })?;
    Some(total.max(columns))
}

fn read_column_chunk(r: &mut Reader, dictionary: &mut impl FnMut(u64) -> Option<(u64, u64)>) -> Option<u64> {
    let mut size = 0;
    r.each_field(4, |r, id, ty| match (id, ty) {
        (3, STRUCT) => {
            size = read_column_meta(r, dictionary)?;
            Some(())
        }
        _ => r.skip(ty, 5),
    })?;
    Some(size)
}

/// Parquet's physical type BYTE_ARRAY (strings and blobs).
const BYTE_ARRAY: i64 = 6;

fn read_column_meta(r: &mut Reader, dictionary: &mut impl FnMut(u64) -> Option<(u64, u64)>) -> Option<u64> {
    let (mut physical, mut values, mut uncompressed, mut unencoded) = (0i64, 0u64, 0u64, 0u64);
    let mut dictionary_at = None;
    r.each_field(6, |r, id, ty| match (id, ty) {
        (1, I32) => {
            physical = r.varint_i64()?;
            Some(())
        }
        (5, I64) => {
            values = u64::try_from(r.varint_i64()?).unwrap_or(0);
            Some(())
        }
        (6, I64) => {
            uncompressed = u64::try_from(r.varint_i64()?).unwrap_or(0);
            Some(())
        }
        (11, I64) => {
            dictionary_at = u64::try_from(r.varint_i64()?).ok();
            Some(())
        }
        (16, STRUCT) => r.each_field(7, |r, id, ty| match (id, ty) {
            (1, I64) => {
                unencoded = u64::try_from(r.varint_i64()?).unwrap_or(0);
                Some(())
            }
            _ => r.skip(ty, 8),
        }),
        _ => r.skip(ty, 7),
    })?;
    // Each dictionary entry of text is a 4-byte length and its bytes; every value refers to one.
    let repeated = match dictionary_at.filter(|_| physical == BYTE_ARRAY).and_then(&mut *dictionary) {
        Some((bytes, entries)) if entries > 0 => values.saturating_mul(bytes.saturating_sub(4 * entries) / entries),
        _ => 0,
    };
    Some(uncompressed.max(unencoded).max(repeated))
}

/// A dictionary page's `PageHeader`: (uncompressed bytes, entries).
pub fn read_dictionary_header(header: &[u8]) -> Option<(u64, u64)> {
    const DICTIONARY_PAGE: i64 = 2;
    let mut r = Reader { buf: header, pos: 0 };
    let (mut kind, mut bytes, mut entries) = (-1i64, 0u64, 0u64);
    r.each_field(0, |r, id, ty| match (id, ty) {
        (1, I32) => {
            kind = r.varint_i64()?;
            Some(())
        }
        (2, I32) => {
            bytes = u64::try_from(r.varint_i64()?).unwrap_or(0);
            Some(())
        }
        (7, STRUCT) => r.each_field(1, |r, id, ty| match (id, ty) {
            (1, I32) => {
                entries = u64::try_from(r.varint_i64()?).unwrap_or(0);
                Some(())
            }
            _ => r.skip(ty, 2),
        }),
        _ => r.skip(ty, 1),
    })?;
    (kind == DICTIONARY_PAGE).then_some((bytes, entries))
}

// Thrift compact-protocol types.
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn advance(&mut self, n: u64) -> Option<()> {
        let n = usize::try_from(n).ok()?;
        if n > self.buf.len() - self.pos {
            return None;
        }
        self.pos += n;
        Some(())
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn varint_i64(&mut self) -> Option<i64> {
        let v = self.varint()?;
        Some((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// Skips a binary value, returning its length.
    fn binary_len(&mut self) -> Option<u64> {
        let n = self.varint()?;
        self.advance(n)?;
        Some(n)
    }

    /// Calls `f` with each field's id and type until the struct's stop byte; `f` consumes the
    /// value.
    fn each_field(&mut self, depth: u32, mut f: impl FnMut(&mut Self, i16, u8) -> Option<()>) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut last = 0i16;
        loop {
            let header = self.byte()?;
            if header == 0 {
                return Some(());
            }
            let ty = header & 0x0f;
            let delta = header >> 4;
            let id =
                if delta == 0 { i16::try_from(self.varint_i64()?).ok()? } else { last.checked_add(i16::from(delta))? };
            last = id;
            f(self, id, ty)?;
        }
    }

    /// Calls `f` with the element type for each element of a list or set; `f` consumes it.
    fn each_element(&mut self, depth: u32, mut f: impl FnMut(&mut Self, u8) -> Option<()>) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let header = self.byte()?;
        let ty = header & 0x0f;
        let count = match header >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        // Every element takes at least one byte (booleans in lists do too), so a count beyond the
        // bytes left is a lie.
        if count > (self.buf.len() - self.pos) as u64 {
            return None;
        }
        for _ in 0..count {
            f(self, ty)?;
        }
        Some(())
    }

    /// Skips one value of type `ty` (a boolean field carries its value in its type).
    fn skip(&mut self, ty: u8, depth: u32) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match ty {
            TRUE | FALSE => Some(()),
            BYTE => self.advance(1),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.advance(8),
            BINARY => self.binary_len().map(drop),
            LIST | SET => self.each_element(depth + 1, |r, ty| match ty {
                // Inside a list, a boolean is one byte of its own.
                TRUE | FALSE => r.advance(1),
                ty => r.skip(ty, depth + 1),
            }),
            MAP => {
                let count = self.varint()?;
                if count == 0 {
                    return Some(());
                }
                let types = self.byte()?;
                if count > (self.buf.len() - self.pos) as u64 {
                    return None;
                }
                for _ in 0..count {
                    for ty in [types >> 4, types & 0x0f] {
                        match ty {
                            TRUE | FALSE => self.advance(1)?,
                            ty => self.skip(ty, depth + 1)?,
                        }
                    }
                }
                Some(())
            }
            STRUCT => self.each_field(depth + 1, |r, _, ty| r.skip(ty, depth + 1)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_lies_read_as_nothing_not_as_a_crash() {
        let none = |_| None;
        assert_eq!(read_file_metadata(&[], none), None);
        assert_eq!(read_file_metadata(&[0x19, 0xfc], none), None, "a list whose size never arrives");
        assert_eq!(read_file_metadata(&[0x19, 0xf5, 0x7f], none), None, "a list claiming more elements than bytes");
        let deep: Vec<u8> = std::iter::repeat_n(0x1c, 10_000).collect();
        assert_eq!(read_file_metadata(&deep, none), None, "nesting beyond the bound");
        assert_eq!(read_file_metadata(&[0x00], none), Some(ParquetSize::default()));
        for seed in 0..2000u32 {
            let bytes: Vec<u8> = (0..64u32).map(|i| (seed.wrapping_mul(2_654_435_761) >> (i % 24)) as u8).collect();
            let _ = read_file_metadata(&bytes, |_| Some((u64::MAX, 1)));
            let _ = read_dictionary_header(&bytes);
        }
    }

    /// A footer with one row group of one dictionary-encoded text column: 2,000 values, 4 MiB
    /// uncompressed, the dictionary page at offset 4.
    fn bomb_footer() -> Vec<u8> {
        let zigzag = |n: i64| ((n << 1) ^ (n >> 63)) as u64;
        let varint = |mut v: u64, out: &mut Vec<u8>| loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        };
        let mut meta = Vec::new();
        for (header, value) in [(0x15, BYTE_ARRAY), (0x46, 2000), (0x16, 4 << 20), (0x56, 4)] {
            meta.push(header); // field 1 (i32), 5, 6 and 11 (i64), as deltas
            varint(zigzag(value), &mut meta);
        }
        meta.push(0);
        let mut f = vec![0x36];
        varint(zigzag(2000), &mut f); // num_rows, field 3
        f.extend([0x19, 0x1c]); // row_groups: a list of one struct
        f.extend([0x19, 0x1c]); // columns: a list of one struct
        f.push(0x3c); // meta_data, field 3
        f.extend(meta);
        f.push(0); // end of the column chunk
        f.push(0); // end of the row group
        f.push(0); // end of the file metadata
        f
    }

    #[test]
    fn a_dictionary_repeated_on_every_row_counts_for_every_row() {
        let footer = bomb_footer();
        let without = read_file_metadata(&footer, |_| None).unwrap();
        assert_eq!(without, ParquetSize { rows: 2000, decoded_bytes: 4 << 20 });
        let with = read_file_metadata(&footer, |at| (at == 4).then_some(((4 << 20) + 4, 1))).unwrap();
        assert_eq!(with.decoded_bytes, 2000 * (4 << 20), "one 4 MiB entry used by 2,000 rows");
        let many = read_file_metadata(&footer, |_| Some((4 * 1000 + 20_000, 1000))).unwrap();
        assert_eq!(many.decoded_bytes, 4 << 20, "1,000 entries of 20 bytes: the uncompressed size stands");
        // type DICTIONARY_PAGE, 4 MiB + 4 uncompressed, 200 compressed, 1 entry.
        let mut header = vec![0x15, 0x04, 0x15];
        header.extend([0x88, 0x80, 0x80, 0x04]); // zigzag(4 MiB + 4) as a varint
        header.extend([0x15, 0x90, 0x03, 0x4c, 0x15, 0x02, 0x00, 0x00]);
        assert_eq!(read_dictionary_header(&header), Some(((4 << 20) + 4, 1)));
        header[1] = 0x00; // a data page
        assert_eq!(read_dictionary_header(&header), None);
    }
}
