//! Calendar periods as people name them: quarters ("Q3", "the third quarter of 2024", "last
//! quarter of 2023"), halves ("H1", "the first half of 2025"), months ("March 2024", "in March"
//! when the data holds one year), and ranges of months ("between May and July", "from March to
//! June 2024"). A period without a year takes the data's year when the data spans one year, and
//! says so; otherwise it is a question back.

use super::words::month_number;
use super::{Reader, Unread};
use aware_domain::query_plan::FilterOp;
use chrono::{Datelike, NaiveDate};

/// A period read from the question: tokens `start..end`, the dates `[from, to)`, how to say it.
pub(super) struct Period {
    pub start: usize,
    pub end: usize,
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// "in Q3 2025", "since March 2024".
    pub label: String,
    /// `Between` [from, to); `Ge` from (since) or to (after); `Lt` from (before).
    pub op: FilterOp,
}

fn first_of(y: i32, m: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, 1)
}

/// The first day after `months` months starting at `y-m`.
fn after_months(y: i32, m: u32, months: u32) -> Option<NaiveDate> {
    first_of(y, m)?.checked_add_months(chrono::Months::new(months))
}

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The ordinal a word says: "first" / "1st" → 1 … "fourth" / "4th" → 4; "last" / "final" → the
/// last of `of` parts.
fn ordinal(word: &str, of: u32) -> Option<u32> {
    Some(match word {
        "first" | "1st" => 1,
        "second" | "2nd" => 2,
        "third" | "3rd" => 3,
        "fourth" | "4th" => 4,
        "last" | "final" => of,
        _ => return None,
    })
    .filter(|n| *n <= of)
}

impl Reader<'_> {
    /// A year written at `i` (a whole number 1900–2100 with no currency), or "fy24"-style.
    fn year_at(&self, i: usize) -> Option<i32> {
        let t = self.tokens.get(i)?;
        let y = t.number.filter(|y| y.fract() == 0.0 && (1900.0..=2100.0).contains(y) && t.currency.is_none())?;
        Some(y as i32)
    }

    /// A year right after `end` ("2024", "of 2024", "in 2024"), or right before `start` ("2024
    /// Q3"): the year and the new bounds of the phrase.
    fn year_near(&self, start: usize, end: usize) -> Option<(i32, usize, usize)> {
        if let Some(y) = self.year_at(end) {
            return Some((y, start, end + 1));
        }
        // "the first half of the year": the data's one year.
        if matches!(self.word(end), "of" | "in") && self.word(end + 1) == "the" && self.word(end + 2) == "year" {
            return self.data_year().map(|y| (y, start, end + 3));
        }
        if matches!(self.word(end), "of" | "in" | "for")
            && let Some(y) = self.year_at(end + 1)
        {
            return Some((y, start, end + 2));
        }
        if start > 0
            && let Some(y) = self.year_at(start - 1)
        {
            return Some((y, start - 1, end));
        }
        None
    }

    /// The one calendar year every date column's data falls in, if there is one.
    fn data_year(&self) -> Option<i32> {
        let spans: Vec<(NaiveDate, NaiveDate)> =
            self.lex.dates().iter().filter_map(|&c| self.lex.columns[c].span).collect();
        let (first, _) = spans.first()?;
        let y = first.year();
        spans.iter().all(|(a, b)| a.year() == y && b.year() == y).then_some(y)
    }

    /// The year of a period written without one: the data's only year (said in the label), else
    /// a question back. (The question back names no years: every number aware states comes
    /// from a result the person can see.)
    fn implied_year(&self, said: &str) -> Result<(i32, String), Unread> {
        match self.data_year() {
            Some(y) => Ok((y, format!(" (the data's only year, {y})"))),
            None => {
                Err(Unread::Ask(format!("{said} of which year? The data spans more than one year: say the year too.")))
            }
        }
    }

    /// A named period starting at token `i`, if one is written there.
    pub(super) fn period_at(&self, i: usize) -> Result<Option<Period>, Unread> {
        let w = self.word(i);
        // Quarters: "q3", "Q3 2024", "2024 Q3", "the third quarter (of 2024)", "last quarter of 2023".
        let quarter = match w.strip_prefix('q').and_then(|d| d.parse::<u32>().ok()) {
            Some(q) if (1..=4).contains(&q) && w.len() == 2 => Some((q, i, i + 1)),
            _ => match (ordinal(w, 4), self.word(i + 1)) {
                (Some(q), "quarter") => Some((q, i, i + 2)),
                _ => None,
            },
        };
        // Halves: "h1", "H2 2024", "the first half (of 2025)", "second half".
        let half = match w {
            "h1" => Some((1, i, i + 1)),
            "h2" => Some((2, i, i + 1)),
            _ => match (ordinal(w, 2), self.word(i + 1)) {
                (Some(h), "half") => Some((h, i, i + 2)),
                _ => None,
            },
        };
        let part = quarter.map(|(q, s, e)| (q, s, e, 3u32, "Q")).or(half.map(|(h, s, e)| (h, s, e, 6u32, "H")));
        if let Some((n, s, e, months, letter)) = part {
            // "last quarter" with no year is the calendar's last quarter, read elsewhere.
            let said = self.tokens[s..e].iter().map(|t| t.raw.as_str()).collect::<Vec<_>>().join(" ");
            let (year, start, end, note) = match self.year_near(s, e) {
                Some((y, a, b)) => (y, a, b, String::new()),
                None if w == "last" => return Ok(None),
                None => {
                    let (y, note) = self.implied_year(&said)?;
                    (y, s, e, note)
                }
            };
            let first_month = (n - 1) * months + 1;
            let (Some(from), Some(to)) = (first_of(year, first_month), after_months(year, first_month, months)) else {
                return Ok(None);
            };
            let name = format!("{letter}{n} {year}");
            return Ok(Some(self.led(start, end, from, to, format!("{name}{note}"))));
        }
        // Seasons, in the data's year: "over the summer".
        let season = match w {
            "spring" => Some((3, 5)),
            "summer" => Some((6, 8)),
            "autumn" | "fall" => Some((9, 11)),
            _ => None,
        };
        if let Some((m1, m2)) = season {
            let said = self.tokens[i].raw.clone();
            let (year, start, end, note) = match self.year_near(i, i + 1) {
                Some((y, a, b)) => (y, a, b, String::new()),
                None => {
                    let (y, note) = self.implied_year(&said)?;
                    (y, i, i + 1, note)
                }
            };
            let (Some(from), Some(to)) = (first_of(year, m1), after_months(year, m2, 1)) else { return Ok(None) };
            let label =
                format!("{said} {year} ({} to {}){note}", MONTH_NAMES[m1 as usize - 1], MONTH_NAMES[m2 as usize - 1]);
            return Ok(Some(self.led(start, end, from, to, label)));
        }
        // Days: "20 May", "May 20th", "between 20 May and 31 May".
        if let Some(day) = self.day_period(i)? {
            return Ok(Some(day));
        }
        // Months: "March 2024", "in March", "between May and July", "from March to June 2024",
        // "May-July".
        self.month_period(i)
    }

    /// A month or a range of months starting at token `i`, if one is written there.
    fn month_period(&self, i: usize) -> Result<Option<Period>, Unread> {
        let w = self.word(i);
        let Some(m1) = month_number(w) else { return Ok(None) };
        let before = i.checked_sub(1).map_or("", |p| self.word(p));
        // "may" and "march" are months only after a time word or next to a year or a month.
        let m2_at = {
            let k = if matches!(self.word(i + 1), "to" | "through" | "thru" | "until" | "till" | "and") {
                i + 2
            } else {
                i + 1
            };
            month_number(self.word(k)).map(|m| (m, k))
        };
        let range_lead = matches!(before, "between" | "from");
        if matches!(w, "may" | "march")
            && !matches!(
                before,
                "in" | "during"
                    | "since"
                    | "from"
                    | "before"
                    | "after"
                    | "between"
                    | "of"
                    | "for"
                    | "to"
                    | "than"
                    | "with"
                    | "vs"
                    | "versus"
                    | "and"
            )
            && self.year_at(i + 1).is_none()
            && m2_at.is_none()
        {
            return Ok(None);
        }
        let (m2, last_month_at) = match m2_at {
            Some((m2, k)) if m2 >= m1 && (range_lead || k == i + 1 || self.word(i + 1) != "and") => (m2, k),
            _ => (m1, i),
        };
        let start = if range_lead && m2_at.is_some() { i - 1 } else { i };
        let said = self.tokens[i..=last_month_at].iter().map(|t| t.raw.as_str()).collect::<Vec<_>>().join(" ");
        let (year, end, note) = match self.year_near(last_month_at + 1, last_month_at + 1) {
            Some((y, _, b)) if b > last_month_at + 1 => (y, b, String::new()),
            _ => {
                let (y, note) = self.implied_year(&said)?;
                (y, last_month_at + 1, note)
            }
        };
        let (Some(from), Some(to)) = (first_of(year, m1), after_months(year, m2, 1)) else { return Ok(None) };
        let name = |m: u32| MONTH_NAMES[(m - 1) as usize];
        if m1 != m2 {
            let label = format!("from {} to {} {year}{note}", name(m1), name(m2));
            return Ok(Some(Period { start, end, from, to, label, op: FilterOp::Between }));
        }
        Ok(Some(self.led(start, end, from, to, format!("{} {year}{note}", name(m1)))))
    }

    /// A day of a month written around the month at `m`: "20 May", "May 20", "May 20th" →
    /// (month, day, first token, end).
    fn day_at(&self, m: usize) -> Option<(u32, u32, usize, usize)> {
        let month = month_number(self.word(m))?;
        let day = |k: usize| {
            let t = self.tokens.get(k)?;
            t.number.filter(|d| d.fract() == 0.0 && (1.0..=31.0).contains(d) && t.currency.is_none()).map(|d| d as u32)
        };
        if let Some(d) = m.checked_sub(1).and_then(day) {
            return Some((month, d, m - 1, m + 1));
        }
        let d = day(m + 1)?;
        let end = if matches!(self.word(m + 2), "th" | "st" | "nd" | "rd") { m + 3 } else { m + 2 };
        Some((month, d, m, end))
    }

    /// A day, or a range of days, at `i` (the month's token): [from, to) with the data's year
    /// when none is written.
    fn day_period(&self, i: usize) -> Result<Option<Period>, Unread> {
        let Some((m1, d1, start, end1)) = self.day_at(i) else { return Ok(None) };
        // A second day after "and", "to", "until", "through".
        let second = matches!(self.word(end1), "and" | "to" | "until" | "through" | "thru" | "till")
            .then(|| {
                let k = end1 + 1;
                if month_number(self.word(k)).is_some() {
                    self.day_at(k)
                } else {
                    // "20 and 31 May": the month is the next word.
                    self.day_at(k + 1).filter(|(_, _, s, _)| *s == k)
                }
            })
            .flatten();
        let (m2, d2, last_end) = match second {
            Some((m2, d2, _, e)) => (m2, d2, e),
            None => (m1, d1, end1),
        };
        let said = self.tokens[start..last_end].iter().map(|t| t.raw.as_str()).collect::<Vec<_>>().join(" ");
        let (year, end, note) = match self.year_near(last_end, last_end) {
            Some((y, _, b)) => (y, b, String::new()),
            None => {
                let (y, note) = self.implied_year(&said)?;
                (y, last_end, note)
            }
        };
        let (Some(from), Some(last)) = (NaiveDate::from_ymd_opt(year, m1, d1), NaiveDate::from_ymd_opt(year, m2, d2))
        else {
            return Ok(None);
        };
        if last < from {
            return Ok(None);
        }
        let to = last + chrono::Duration::days(1);
        if second.is_some() {
            let lead = start.checked_sub(1).map_or("", |p| self.word(p));
            let start = if matches!(lead, "between" | "from") { start - 1 } else { start };
            let label = format!("from {} to {}{note}", from.format("%-d %B %Y"), last.format("%-d %B %Y"));
            return Ok(Some(Period { start, end, from, to, label, op: FilterOp::Between }));
        }
        Ok(Some(self.led(start, end, from, to, format!("{}{note}", from.format("%-d %B %Y")))))
    }

    /// A single period with the word that leads it: "in", "since", "after", "before".
    fn led(&self, start: usize, end: usize, from: NaiveDate, to: NaiveDate, name: String) -> Period {
        // "over the summer": the article between the lead word and the period.
        let start = if start > 1 && self.word(start - 1) == "the" { start - 1 } else { start };
        let lead = start.checked_sub(1).map_or("", |p| self.word(p));
        let (op, label, from) = match lead {
            "since" | "from" => (FilterOp::Ge, format!("since {name}"), from),
            "after" => (FilterOp::Ge, format!("after {name}"), to),
            "before" | "until" | "till" | "prior" => (FilterOp::Lt, format!("before {name}"), from),
            _ => (FilterOp::Between, format!("in {name}"), from),
        };
        let start = if matches!(
            lead,
            "since"
                | "from"
                | "after"
                | "before"
                | "until"
                | "till"
                | "prior"
                | "in"
                | "during"
                | "for"
                | "over"
                | "throughout"
                | "of"
                | "on"
        ) {
            start - 1
        } else {
            start
        };
        Period { start, end, from, to, label, op }
    }
}
