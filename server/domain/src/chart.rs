//! Charts in the protocol: the server picks a chart for a table from its shape — a bar for one
//! category × a measure, a line for a time column, a scatter for two numerics, none otherwise — and
//! writes it as a Vega-Lite v5 spec with the rows inline, so every client draws the same chart and
//! a table no chart suits gets none rather than a misleading one.

use crate::value::{Table, Value, ValueKind};
use serde_json::{Map, Value as Json, json};

/// Bars past this many categories are unreadable; such a table stays a table.
const MAX_BARS: usize = 50;
/// Points drawn for a line or scatter; more means the result was not meant as a chart.
const MAX_POINTS: usize = 5_000;
/// Series a line chart colours apart (by a category column, or one line per measure).
const MAX_SERIES: usize = 8;

/// Which chart fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartKind {
    Bar,
    Line,
    Scatter,
}

/// A chart of a table: its kind, the columns it plots (for clients that draw without Vega-Lite)
/// and the Vega-Lite v5 spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub kind: ChartKind,
    /// The column on the x axis.
    pub x: String,
    /// The measures on the y axis (one, or several lines over time).
    pub y: Vec<String>,
    /// The column whose values are separate series, if any.
    pub color: Option<String>,
    pub spec: Json,
}

/// The chart a table's shape calls for, if any. A truncated table gets none: a chart of the rows
/// that happened to fit would look like the whole answer.
pub fn chart_for(table: &Table) -> Option<Chart> {
    if table.truncated || table.rows.len() < 2 {
        return None;
    }
    let kinds: Vec<ValueKind> = table.columns.iter().map(|c| c.kind).collect();
    let numeric: Vec<usize> = (0..kinds.len()).filter(|&i| kinds[i].is_numeric()).collect();
    let temporal: Vec<usize> =
        (0..kinds.len()).filter(|&i| matches!(kinds[i], ValueKind::Date | ValueKind::Timestamp)).collect();
    let categorical: Vec<usize> =
        (0..kinds.len()).filter(|&i| matches!(kinds[i], ValueKind::String | ValueKind::Bool)).collect();
    let other = kinds.len() - numeric.len() - temporal.len() - categorical.len();
    if other > 0 || numeric.is_empty() {
        return None;
    }
    let name = |i: usize| table.columns[i].name.clone();
    match (temporal.as_slice(), categorical.as_slice(), numeric.as_slice()) {
        ([t], [], measures) if measures.len() <= MAX_SERIES && table.rows.len() <= MAX_POINTS => {
            line(table, *t, measures, None)
        }
        ([t], [c], [m]) if table.rows.len() <= MAX_POINTS && distinct(table, *c, MAX_SERIES) <= MAX_SERIES => {
            line(table, *t, &[*m], Some(*c))
        }
        ([], [c], [m]) if table.rows.len() <= MAX_BARS && distinct(table, *c, MAX_BARS) == table.rows.len() => {
            let spec = base(
                table,
                &[*c, *m],
                "bar",
                json!({
                    "x": {"field": field(&name(*c)), "type": "nominal", "sort": "-y", "title": name(*c)},
                    "y": {"field": field(&name(*m)), "type": "quantitative", "title": axis_title(&name(*m))},
                    "tooltip": [
                        {"field": field(&name(*c)), "type": "nominal"},
                        {"field": field(&name(*m)), "type": "quantitative"},
                    ],
                }),
            );
            Some(Chart { kind: ChartKind::Bar, x: name(*c), y: vec![name(*m)], color: None, spec })
        }
        ([], [], [a, b]) if table.rows.len() >= 3 && table.rows.len() <= MAX_POINTS => {
            let spec = base(
                table,
                &[*a, *b],
                "point",
                json!({
                    "x": {"field": field(&name(*a)), "type": "quantitative", "title": axis_title(&name(*a)), "scale": {"zero": false}},
                    "y": {"field": field(&name(*b)), "type": "quantitative", "title": axis_title(&name(*b)), "scale": {"zero": false}},
                    "tooltip": [
                        {"field": field(&name(*a)), "type": "quantitative"},
                        {"field": field(&name(*b)), "type": "quantitative"},
                    ],
                }),
            );
            Some(Chart { kind: ChartKind::Scatter, x: name(*a), y: vec![name(*b)], color: None, spec })
        }
        _ => None,
    }
}

fn line(table: &Table, t: usize, measures: &[usize], series: Option<usize>) -> Option<Chart> {
    let name = |i: usize| table.columns[i].name.clone();
    let time_type = "temporal";
    let x = json!({"field": field(&name(t)), "type": time_type, "title": name(t)});
    let mut columns = vec![t];
    columns.extend_from_slice(measures);
    columns.extend(series);
    let (spec, color) = match (measures, series) {
        ([m], None) => (
            base(
                table,
                &columns,
                "line",
                json!({
                    "x": x,
                    "y": {"field": field(&name(*m)), "type": "quantitative", "title": axis_title(&name(*m))},
                    "tooltip": [{"field": field(&name(t)), "type": time_type}, {"field": field(&name(*m)), "type": "quantitative"}],
                }),
            ),
            None,
        ),
        ([m], Some(c)) => (
            base(
                table,
                &columns,
                "line",
                json!({
                    "x": x,
                    "y": {"field": field(&name(*m)), "type": "quantitative", "title": axis_title(&name(*m))},
                    "color": {"field": field(&name(c)), "type": "nominal", "title": name(c)},
                    "tooltip": [
                        {"field": field(&name(t)), "type": time_type},
                        {"field": field(&name(c)), "type": "nominal"},
                        {"field": field(&name(*m)), "type": "quantitative"},
                    ],
                }),
            ),
            Some(name(c)),
        ),
        (several, _) => {
            // One line per measure: the measures folded into (measure, value) pairs.
            let mut spec = base(
                table,
                &columns,
                "line",
                json!({
                    "x": x,
                    "y": {"field": "value", "type": "quantitative", "title": "value"},
                    "color": {"field": "measure", "type": "nominal", "title": "measure"},
                    "tooltip": [
                        {"field": field(&name(t)), "type": time_type},
                        {"field": "measure", "type": "nominal"},
                        {"field": "value", "type": "quantitative"},
                    ],
                }),
            );
            let folded: Vec<String> = several.iter().map(|&m| field(&name(m))).collect();
            spec["transform"] = json!([{"fold": folded, "as": ["measure", "value"]}]);
            (spec, None)
        }
    };
    Some(Chart { kind: ChartKind::Line, x: name(t), y: measures.iter().map(|&m| name(m)).collect(), color, spec })
}

/// The spec's frame: schema, data (only the plotted columns), mark and encoding.
fn base(table: &Table, columns: &[usize], mark: &str, encoding: Json) -> Json {
    let values: Vec<Json> = table
        .rows
        .iter()
        .map(|row| {
            let mut o = Map::new();
            for &i in columns {
                o.insert(table.columns[i].name.clone(), cell(&row[i]));
            }
            Json::Object(o)
        })
        .collect();
    json!({
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "width": "container",
        "height": 260,
        "data": {"values": values},
        "mark": {"type": mark, "tooltip": true},
        "encoding": encoding,
    })
}

/// A cell as Vega-Lite data: numbers as numbers (a non-finite double as null — a gap, not a point),
/// dates as ISO text, everything else as text.
fn cell(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b.to_string()),
        Value::Int(i) => json!(i),
        Value::Double(d) if d.is_finite() => json!(d),
        Value::Double(_) => Json::Null,
        Value::Decimal(s) => s.parse::<f64>().ok().filter(|d| d.is_finite()).map_or(Json::Null, |d| json!(d)),
        Value::String(s) | Value::Text(s) => json!(s),
        Value::Date(days) => crate::value::day(*days).map_or(Json::Null, |d| json!(d.format("%Y-%m-%d").to_string())),
        Value::Timestamp(us) => chrono::DateTime::from_timestamp_micros(*us)
            .map_or(Json::Null, |t| json!(t.format("%Y-%m-%dT%H:%M:%S%.fZ").to_string())),
        Value::Time(_) | Value::Bytes(_) => Json::Null,
    }
}

/// A measure's axis title: its name, with the unit its name ends in spelled out
/// (`avg_price_eur` → `avg_price_eur (EUR)`).
fn axis_title(name: &str) -> String {
    let last = name.rsplit(['_', ' ']).next().unwrap_or_default().to_ascii_lowercase();
    let unit = match last.as_str() {
        "eur" => "EUR",
        "usd" => "USD",
        "gbp" => "GBP",
        "pct" | "percent" => "%",
        "sqm" | "m2" => "m²",
        "km" => "km",
        "kg" => "kg",
        _ => return name.to_owned(),
    };
    format!("{name} ({unit})")
}

/// A column name as a Vega-Lite field: `.` and `[` ]` would otherwise read as nested access.
fn field(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for ch in name.chars() {
        if matches!(ch, '.' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// Distinct values of a column, counted up to `cap + 1` (enough to tell "more than `cap`"): a
/// 5,000-row result with a value per row is not compared with itself 12 million times on every
/// event conversion.
fn distinct(table: &Table, column: usize, cap: usize) -> usize {
    let mut seen: Vec<&Value> = Vec::new();
    for row in &table.rows {
        if seen.len() > cap {
            break;
        }
        if !seen.contains(&&row[column]) {
            seen.push(&row[column]);
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Column;

    fn table(columns: &[(&str, ValueKind)], rows: Vec<Vec<Value>>) -> Table {
        Table {
            columns: columns
                .iter()
                .map(|(n, k)| Column { name: n.to_string(), sql_type: String::new(), kind: *k, nullable: true })
                .collect(),
            rows,
            truncated: false,
            exec_time_ms: 0,
        }
    }

    fn s(x: &str) -> Value {
        Value::String(x.into())
    }

    #[test]
    fn a_group_by_is_a_bar_chart_of_its_measure_by_category() {
        let t = table(
            &[("region", ValueKind::String), ("total", ValueKind::Double)],
            vec![vec![s("north"), Value::Double(10.5)], vec![s("south"), Value::Double(3.0)]],
        );
        let c = chart_for(&t).expect("a chart");
        assert_eq!(c.kind, ChartKind::Bar);
        assert_eq!((c.x.as_str(), c.y.clone()), ("region", vec!["total".to_string()]));
        assert_eq!(c.spec["mark"]["type"], "bar");
        assert_eq!(c.spec["data"]["values"][0], json!({"region": "north", "total": 10.5}));
        assert_eq!(c.spec["encoding"]["x"]["sort"], "-y");
        assert_eq!(c.spec["encoding"]["y"]["title"], "total");
        assert_eq!(axis_title("avg_price_eur"), "avg_price_eur (EUR)");
        assert_eq!(axis_title("share_pct"), "share_pct (%)");
    }

    #[test]
    fn a_time_column_is_a_line_and_several_measures_are_folded() {
        let t = table(
            &[("day", ValueKind::Date), ("sales", ValueKind::Int), ("refunds", ValueKind::Int)],
            vec![
                vec![Value::Date(19_723), Value::Int(5), Value::Int(1)],
                vec![Value::Date(19_724), Value::Int(7), Value::Int(0)],
            ],
        );
        let c = chart_for(&t).expect("a chart");
        assert_eq!(c.kind, ChartKind::Line);
        assert_eq!(c.spec["data"]["values"][0]["day"], "2024-01-01");
        assert_eq!(c.spec["transform"][0]["fold"], json!(["sales", "refunds"]));
    }

    #[test]
    fn two_numerics_are_a_scatter() {
        let t = table(
            &[("price", ValueKind::Double), ("qty", ValueKind::Int)],
            (0..5).map(|i| vec![Value::Double(i as f64), Value::Int(i * 2)]).collect(),
        );
        assert_eq!(chart_for(&t).map(|c| c.kind), Some(ChartKind::Scatter));
    }

    #[test]
    fn shapes_no_chart_suits_get_none() {
        let one_row = table(&[("region", ValueKind::String), ("n", ValueKind::Int)], vec![vec![s("a"), Value::Int(1)]]);
        let repeated = table(
            &[("region", ValueKind::String), ("n", ValueKind::Int)],
            vec![vec![s("a"), Value::Int(1)], vec![s("a"), Value::Int(2)]],
        );
        let text_only = table(&[("a", ValueKind::String), ("b", ValueKind::String)], vec![vec![s("x"), s("y")]; 3]);
        let mut truncated = table(
            &[("region", ValueKind::String), ("n", ValueKind::Int)],
            vec![vec![s("a"), Value::Int(1)], vec![s("b"), Value::Int(2)]],
        );
        truncated.truncated = true;
        for t in [one_row, repeated, text_only, truncated] {
            assert_eq!(chart_for(&t), None, "{:?}", t.columns);
        }
    }

    #[test]
    fn dotted_column_names_are_escaped_as_fields() {
        let t = table(
            &[("a.b", ValueKind::String), ("n", ValueKind::Int)],
            vec![vec![s("x"), Value::Int(1)], vec![s("y"), Value::Int(2)]],
        );
        let c = chart_for(&t).unwrap();
        assert_eq!(c.spec["encoding"]["x"]["field"], "a\\.b");
        assert!(c.spec["data"]["values"][0].get("a.b").is_some());
    }
}
