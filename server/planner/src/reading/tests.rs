//! The reader over a dataset's lexicon: what it reads, and what it refuses to.

use super::{Ask, Tally, Unread, read};
use crate::lexicon::Lexicon;
use crate::lexicon::tests::dataset;

#[test]
fn unique_visitors_of_sessions_are_not_the_sessions_counted() {
    let d = dataset(
        "web_sessions",
        &[("session_id", "VARCHAR"), ("source", "VARCHAR"), ("pages_viewed", "BIGINT"), ("converted", "BOOLEAN")],
    );
    let lex = Lexicon::new(&d, &[]);
    let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 28).unwrap();
    let reading = |q: &str| read(q, &lex, today);
    assert!(
        matches!(reading("how many unique visitors did the site have?"), Err(Unread::Refuse(t)) if t.contains("no column that tells"))
    );
    // The sessions themselves, and a quantity the rows hold, are counted and totalled.
    assert!(reading("how many distinct sessions are there?").is_ok());
    let pages = reading("how many pages were viewed?").unwrap();
    assert!(matches!(pages.ask, Ask::Tally(Tally::Aggregate(aware_domain::query_plan::Aggregate::Sum, _))));
}
