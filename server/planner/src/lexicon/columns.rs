//! How a column's name reads: the class of what it holds (money, a size, a date, a flag …) and
//! its unit, from the words of the name and the column's type.

use super::{Class, Unit};
use aware_domain::value::ValueKind;

/// Words in a column name that mark its class.
pub(super) fn class_of(words: &[String], kind: ValueKind, categorical: bool) -> Class {
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    let last_is_id = words.last().is_some_and(|w| w == "id" || w == "uuid" || w == "key" || w == "code")
        // `ClaimNumber`, `order_no`, `booking_ref`: text that numbers the rows.
        || (kind == ValueKind::String && words.last().is_some_and(|w| matches!(w.as_str(), "number" | "no" | "ref" | "reference")));
    match kind {
        ValueKind::Bool => Class::Flag,
        ValueKind::Date | ValueKind::Timestamp => Class::Date,
        _ if last_is_id => Class::Id,
        ValueKind::Int | ValueKind::Double | ValueKind::Decimal => {
            if has(&[
                "price", "cost", "amount", "charge", "charges", "fee", "fees", "revenue", "income", "salary", "spend",
                "sales", "payment", "paid", "eur", "usd", "gbp", "euro", "dollars", "wage", "budget", "rent",
            ]) {
                Class::Money
            } else if has(&["sqm", "m2", "area", "size", "surface", "sqft", "weight", "kg", "lbs", "tonnes", "tons"]) {
                Class::Size
            } else if has(&["age"]) {
                Class::Age
            } else if has(&["rating", "score", "stars", "grade"]) {
                Class::Rating
            } else if has(&[
                "hours", "hrs", "minutes", "mins", "days", "months", "years", "seconds", "secs", "duration", "tenure",
                "wait", "time", "length",
            ]) {
                Class::Duration
            } else if matches!(kind, ValueKind::Int)
                && words.last().is_some_and(|w| w.ends_with('s') || w.starts_with("num"))
            {
                Class::Count
            } else {
                Class::Number
            }
        }
        ValueKind::String if categorical => Class::Category,
        ValueKind::String | ValueKind::Time | ValueKind::Interval | ValueKind::Bytes | ValueKind::Nested => Class::Text,
    }
}

pub(super) fn unit_of(words: &[String]) -> Option<Unit> {
    words.iter().rev().find_map(|w| {
        Some(match w.as_str() {
            "eur" | "euro" | "euros" => Unit::Currency('€'),
            "usd" | "dollars" => Unit::Currency('$'),
            "gbp" => Unit::Currency('£'),
            "pct" | "percent" => Unit::Percent,
            "sqm" | "m2" => Unit::SquareMetres,
            "km" => Unit::Word("km"),
            "kg" => Unit::Word("kg"),
            "hours" | "hrs" => Unit::Word("hours"),
            "minutes" | "mins" => Unit::Word("minutes"),
            "seconds" | "secs" | "sec" => Unit::Word("seconds"),
            "kwh" => Unit::Word("kWh"),
            "kw" => Unit::Word("kW"),
            "mwh" => Unit::Word("MWh"),
            "days" => Unit::Word("days"),
            "months" => Unit::Word("months"),
            "years" => Unit::Word("years"),
            _ => return None,
        })
    })
}
