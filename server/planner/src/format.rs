//! Numbers as people read them: thousands separators, rounding that fits the quantity, and the
//! unit the column's name gives (`price_eur` → €, `sqm` → m²).

use crate::lexicon::{Class, ColumnInfo, Unit};
use aware_domain::value::Value;
use chrono::{DateTime, NaiveDate};

/// `x` with `decimals` digits after the point (trailing zeros dropped) and `,` between thousands.
pub fn grouped(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "∞".to_owned() } else { "−∞".to_owned() };
    }
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(a, b)| (a, b));
    let frac = frac.trim_end_matches('0');
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if x < 0.0 && out.chars().any(|c| c.is_ascii_digit() && c != '0') {
        out.insert(0, '-');
    }
    out
}

/// Decimals that suit a magnitude: whole numbers from 1,000 up, two below.
fn decimals_for(x: f64) -> usize {
    let a = x.abs();
    if a >= 1000.0 {
        0
    } else if a >= 100.0 {
        1
    } else {
        2
    }
}

/// An amount of money as a table shows it: whole units from 1,000 up and for a whole amount
/// ($125), otherwise both digits of its cents ($584.74, $12.50) — never one decimal.
fn money(x: f64) -> String {
    if !x.is_finite() || x.abs() >= 1000.0 || x.fract() == 0.0 {
        return grouped(x, 0);
    }
    let cents = format!("{:.2}", x.abs());
    if x < 0.0 && cents != "0.00" { format!("-{cents}") } else { cents }
}

/// A value of `column` (or of a ratio of it to `per`) with its unit.
pub fn quantity(x: f64, column: &ColumnInfo, per: Option<&ColumnInfo>) -> String {
    let number = match column.unit {
        Some(Unit::Currency(_)) => money(x),
        Some(Unit::SquareMetres | Unit::Percent | Unit::Word(_)) | None => grouped(x, decimals_for(x)),
    };
    let with_unit = match column.unit {
        Some(Unit::Currency(sign)) => format!("{sign}{number}"),
        Some(Unit::SquareMetres) => format!("{number} m²"),
        Some(Unit::Percent) => format!("{number}%"),
        Some(Unit::Word(w)) => format!("{number} {w}"),
        None => number,
    };
    match per {
        Some(p) => match p.unit {
            Some(Unit::SquareMetres) => format!("{with_unit} per m²"),
            Some(Unit::Word(w)) => format!("{with_unit} per {}", w.trim_end_matches('s')),
            _ => format!("{with_unit} per {}", p.label),
        },
        None => with_unit,
    }
}

/// A whole count.
pub fn count(n: f64) -> String {
    grouped(n, 0)
}

/// A share (0 to 1) as a percentage.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    let decimals = if p != 0.0 && p.abs() < 1.0 { 2 } else { 1 };
    format!("{}%", grouped(p, decimals))
}

/// A cell as text for a sentence (a group's name, a date, a value).
pub fn cell(v: &Value, bucket: Option<&str>) -> String {
    match v {
        Value::Null => "(missing)".to_owned(),
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) => "no".to_owned(),
        Value::Int(i) => grouped(*i as f64, 0),
        Value::Double(d) => grouped(*d, decimals_for(*d)),
        Value::Decimal(s) => s.parse::<f64>().map_or_else(|_| s.clone(), |x| grouped(x, decimals_for(x))),
        Value::String(s) | Value::Text(s) => s.clone(),
        Value::Date(days) => aware_domain::value::day(*days).map_or_else(|| days.to_string(), |d| date(d, bucket)),
        Value::Timestamp(us) => {
            DateTime::from_timestamp_micros(*us).map_or_else(|| us.to_string(), |t| date(t.date_naive(), bucket))
        }
        Value::Time(us) => format!("{:02}:{:02}", us / 3_600_000_000, (us / 60_000_000) % 60),
        Value::Bytes(b) => format!("{} bytes", b.len()),
    }
}

fn date(d: NaiveDate, bucket: Option<&str>) -> String {
    use chrono::Datelike;
    match bucket {
        Some("year") => d.format("%Y").to_string(),
        Some("quarter") => format!("Q{} {}", (d.month() - 1) / 3 + 1, d.year()),
        Some("month") => d.format("%B %Y").to_string(),
        Some("week") => format!("the week of {}", d.format("%Y-%m-%d")),
        _ => d.format("%Y-%m-%d").to_string(),
    }
}

/// How a number of `column` reads with its unit, for a condition ("over €500,000").
pub fn literal(x: f64, column: &ColumnInfo) -> String {
    match column.class {
        Class::Count | Class::Number if column.unit.is_none() => grouped(x, 2),
        Class::Money
        | Class::Size
        | Class::Duration
        | Class::Age
        | Class::Rating
        | Class::Count
        | Class::Number
        | Class::Date
        | Class::Flag
        | Class::Category
        | Class::Id
        | Class::Text => quantity(x, column, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_keeps_its_cents_below_a_thousand() {
        assert_eq!(
            [money(584.74), money(12.5), money(-3.456), money(1234.56), money(0.0)],
            ["584.74", "12.50", "-3.46", "1,235", "0"]
        );
    }

    #[test]
    fn numbers_read_with_separators_and_sensible_rounding() {
        assert_eq!(grouped(625_222.222_2, 0), "625,222");
        assert_eq!(grouped(511_852.941_2, decimals_for(511_852.941_2)), "511,853");
        assert_eq!(grouped(2.6667, 2), "2.67");
        assert_eq!(grouped(3.0, 2), "3");
        assert_eq!(grouped(-1234.5, 1), "-1,234.5");
        assert_eq!(grouped(0.0, 2), "0");
        assert_eq!(percent(0.294), "29.4%");
        assert_eq!(percent(0.004), "0.4%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(grouped(f64::INFINITY, 0), "∞");
    }
}
