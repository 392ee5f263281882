//! The answer a person reads, written from the reading and the table the person is shown: the
//! insight first, in one sentence, with numbers formatted and the conditions stated plainly; the
//! table (and chart) sit underneath in the client.

use crate::format::{cell, count, grouped, literal, percent, quantity};
use crate::lexicon::{Class, ColumnInfo, Lexicon, plural};
use crate::reading::{
    Ask, Cond, GroupOrder, Lit, Measure, ROW_LIMIT, Reading, Tally, agg_word, count_alias, or_list, ratio_alias,
    value_alias,
};
use crate::text::singular;
use aware_domain::query_plan::FilterOp;
use aware_domain::value::{Table, Value};

/// Names of places: a value of these columns reads "in Gràcia".
const PLACE_WORDS: &[&str] = &[
    "neighborhood",
    "region",
    "city",
    "country",
    "district",
    "area",
    "zone",
    "state",
    "province",
    "location",
    "depot",
    "branch",
    "store",
    "site",
    "office",
    "town",
];

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
}

fn lit_text(l: &Lit, column: &ColumnInfo) -> String {
    match l {
        Lit::Text(s) => s.clone(),
        Lit::Num(n) => literal(*n, column),
        Lit::Bool(b) => b.to_string(),
        Lit::Date(d) => d.format("%Y-%m-%d").to_string(),
    }
}

/// A condition in words: "in Gràcia", "with a terrace", "that churned", "with price over €500,000".
pub fn condition(lex: &Lexicon, c: &Cond) -> String {
    let col = &lex.columns[c.column];
    // A name with digits ("readmitted within 30 days") is set as code: its number is a name,
    // not a claim.
    let shown =
        if col.label.chars().any(|c| c.is_ascii_digit()) { format!("`{}`", col.label) } else { col.label.clone() };
    let label = &shown;
    let place = crate::text::words_of(&col.name).iter().any(|w| PLACE_WORDS.contains(&w.as_str()));
    let values: Vec<String> = c.values.iter().map(|v| lit_text(v, col)).collect();
    if let Some(period) = &c.period {
        // "listed in 2024", "created last month (October 2026)", "with visit date in 2026".
        let first = crate::text::display_words(&col.name).into_iter().next().unwrap_or_default();
        return if first.ends_with("ed") { format!("{first} {period}") } else { format!("with {label} {period}") };
    }
    match (col.class, c.op, c.values.as_slice()) {
        (Class::Flag, _, [Lit::Bool(holds)]) => {
            let first = crate::text::words_of(&col.name).first().cloned().unwrap_or_default();
            // "with a terrace", "with parking", "with children".
            let article = if label.ends_with('s') || label.ends_with("ing") || label.contains(' ') {
                ""
            } else if label.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an "
            } else {
                "a "
            };
            match (first.as_str(), *holds) {
                ("has" | "have", true) => format!("with {article}{label}"),
                ("has" | "have", false) => format!("without {article}{label}"),
                ("is" | "was" | "are", true) => format!("that are {label}"),
                ("is" | "was" | "are", false) => format!("that are not {label}"),
                // "customers that churned": something the rows did.
                _ if did_it(label).is_some() && *holds => format!("that {label}"),
                _ if let Some(base) = did_it(label) => format!("that did not {base}"),
                // "orders that were returned": something done to them.
                _ if label.ends_with("ed") => format!("that were {}{label}", if *holds { "" } else { "not " }),
                // "readmitted within 30 days".
                _ if first.ends_with("ed") => format!("that were {}{label}", if *holds { "" } else { "not " }),
                _ => format!("where {label} is {}", if *holds { "true" } else { "false" }),
            }
        }
        (_, FilterOp::Eq, _) if place => format!("in {}", values.join("")),
        (_, FilterOp::In, _) if place => format!("in {}", or_list(&values)),
        (_, FilterOp::Ne, _) if place => format!("outside {}", values.join("")),
        (_, FilterOp::NotIn, _) if place => format!("outside {}", or_list(&values)),
        (Class::Count, FilterOp::Eq, [Lit::Num(n)]) => {
            let word = if (*n - 1.0).abs() < f64::EPSILON { singular(label) } else { label.clone() };
            format!("with {} {word}", grouped(*n, 2))
        }
        (_, FilterOp::Eq, _) => format!("where {label} is {}", values.join("")),
        (_, FilterOp::Ne, _) => format!("where {label} is not {}", values.join("")),
        (_, FilterOp::In, _) => format!("where {label} is {}", or_list(&values)),
        (_, FilterOp::NotIn, _) => format!("where {label} is neither {}", or_list(&values).replace(" or ", " nor ")),
        (_, FilterOp::Gt, _) => format!("with {label} over {}", values.join("")),
        (_, FilterOp::Ge, _) => format!("with {label} of at least {}", values.join("")),
        (_, FilterOp::Lt, _) => format!("with {label} under {}", values.join("")),
        (_, FilterOp::Le, _) => format!("with {label} of at most {}", values.join("")),
        (_, FilterOp::Between, [a, b]) => {
            format!("with {label} between {} and {}", lit_text(a, col), lit_text(b, col))
        }
        _ => format!("with a condition on {label}"),
    }
}

/// A flag's verb when its past tense is something the rows did themselves ("churned" → churn),
/// not something done to them ("returned", "refunded", "cancelled" orders): `None` then.
fn did_it(label: &str) -> Option<&'static str> {
    const DONE_BY_THEM: &[(&str, &str)] = &[
        ("churned", "churn"),
        ("defaulted", "default"),
        ("converted", "convert"),
        ("survived", "survive"),
        ("subscribed", "subscribe"),
        ("unsubscribed", "unsubscribe"),
        ("enrolled", "enrol"),
        ("graduated", "graduate"),
        ("resigned", "resign"),
        ("retired", "retire"),
        ("attended", "attend"),
        ("responded", "respond"),
        ("renewed", "renew"),
        ("upgraded", "upgrade"),
        ("downgraded", "downgrade"),
        ("voted", "vote"),
        ("participated", "participate"),
        ("relapsed", "relapse"),
        ("recovered", "recover"),
        ("failed", "fail"),
        ("passed", "pass"),
        ("succeeded", "succeed"),
        ("clicked", "click"),
        ("purchased", "purchase"),
        ("bounced", "bounce"),
    ];
    DONE_BY_THEM.iter().find(|(past, _)| *past == label).map(|(_, base)| *base)
}

/// A condition as what the rows do or have, for shares: "churned", "have a terrace", "are in
/// Gràcia", "have status open".
fn predicate(lex: &Lexicon, c: &Cond) -> String {
    let col = &lex.columns[c.column];
    let said = condition(lex, c);
    if col.class == Class::Flag {
        return said
            .strip_prefix("that did not ")
            .map(|v| format!("did not {v}"))
            .or_else(|| said.strip_prefix("that are ").map(|v| format!("are {v}")))
            .or_else(|| said.strip_prefix("that ").map(str::to_owned))
            .or_else(|| said.strip_prefix("with ").map(|v| format!("have {v}")))
            .or_else(|| said.strip_prefix("without ").map(|v| format!("have no {v}")))
            .unwrap_or(said);
    }
    if let Some(place) = said.strip_prefix("in ").or_else(|| said.strip_prefix("outside ")) {
        let not = if said.starts_with("outside") { "not " } else { "" };
        return format!("are {not}in {place}");
    }
    said.strip_prefix("where ").map_or_else(
        || format!("have {}", said.trim_start_matches("with ")),
        |w| format!("have {w}").replacen(" is ", " ", 1),
    )
}

fn conditions(lex: &Lexicon, conds: &[Cond]) -> String {
    let parts: Vec<String> = conds.iter().map(|c| condition(lex, c)).collect();
    if parts.is_empty() { String::new() } else { format!(" {}", parts.join(" and ")) }
}

fn measure_label(lex: &Lexicon, m: &Measure) -> String {
    match m.per {
        Some(p) => {
            let per = &lex.columns[p];
            let unit = match per.unit {
                Some(crate::lexicon::Unit::SquareMetres) => "m²".to_owned(),
                _ => per.label.clone(),
            };
            format!("{} per {unit}", lex.columns[m.column].label)
        }
        None => lex.columns[m.column].label.clone(),
    }
}

fn measure_value(lex: &Lexicon, m: &Measure, x: f64) -> String {
    quantity(x, &lex.columns[m.column], m.per.map(|p| &lex.columns[p]))
}

/// The index of a column of the result by name.
fn output(table: &Table, name: &str) -> Option<usize> {
    table.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name))
}

/// The answer to `reading`, from the result `table`, with how each computed measure it used
/// was computed.
pub fn write(lex: &Lexicon, r: &Reading, table: &Table) -> String {
    let filters = conditions(lex, &r.filters);
    let answer = match (&r.ask, r.group) {
        (Ask::Rows(order), _) => rows_answer(lex, r, table, order.as_ref(), &filters),
        (Ask::Tally(tally), None) => scalar_answer(lex, tally, table, &filters),
        (Ask::Tally(tally), Some((g, bucket))) => grouped_answer(lex, r, tally, g, bucket, table, &filters),
    };
    let mut used: Vec<usize> = r.filters.iter().map(|f| f.column).collect();
    match &r.ask {
        Ask::Tally(Tally::Aggregate(_, m) | Tally::PerRow(m)) | Ask::Rows(Some((m, _))) => {
            used.extend([Some(m.column), m.per].into_iter().flatten())
        }
        Ask::Tally(_) | Ask::Rows(_) => {}
    }
    used.sort_unstable();
    used.dedup();
    // How a computed measure was computed ("days from … to …" says it already).
    let formula = |c: usize| {
        let f = lex.columns[c].formula.as_ref().filter(|f| !f.is_days_between())?;
        Some(f.describe(&lex.columns))
    };
    let mut said_formula: Vec<usize> = Vec::new();
    let links: Vec<String> = r
        .links
        .iter()
        .map(|(words, target)| {
            match lex.columns.iter().position(|c| c.name == *target).and_then(|c| Some((c, formula(c)?))) {
                Some((c, how)) => {
                    said_formula.push(c);
                    format!("“{words}” as {target} ({how})")
                }
                None => format!("“{words}” as {target}"),
            }
        })
        .collect();
    let mut notes: Vec<String> = Vec::new();
    if let Some((first, _)) = r.links.first() {
        // One word away from being corrected: the correction is kept as a memory.
        notes.push(format!("I read {} (if you meant another column, say “{first} means <column>”).", join_and(&links)));
    }
    for c in used.into_iter().filter(|c| !said_formula.contains(c)) {
        if let Some(how) = formula(c) {
            notes.push(format!("{} is {how}.", capitalised(&lex.columns[c].label)));
        }
    }
    if notes.is_empty() { answer } else { format!("{answer} {}", notes.join(" ")) }
}

/// "a", "a and b", "a, b and c".
fn join_and<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}

/// One number: a count, an aggregate or a share.
fn scalar_answer(lex: &Lexicon, tally: &Tally, table: &Table, filters: &str) -> String {
    let entity = &lex.entity;
    let first = table.rows.first();
    let at = |name: &str| first.and_then(|row| output(table, name).and_then(|i| row.get(i))).and_then(Value::number);
    let x = at(&value_alias(lex, tally));
    match tally {
        Tally::Count => match x {
            Some(1.0) => format!("There is 1 {}{filters}.", singular(entity)),
            Some(0.0) => format!("There are no {entity}{filters}."),
            Some(n) => format!("There are {} {entity}{filters}.", count(n)),
            None => "The count came back empty.".to_owned(),
        },
        Tally::Distinct(c) => {
            let label = plural(&lex.columns[*c].label);
            match x {
                Some(n) => format!("There are {} different {label} among the {entity}{filters}.", count(n)),
                None => format!("There are no {label} among the {entity}{filters}."),
            }
        }
        Tally::Aggregate(agg, m) => {
            let label = measure_label(lex, m);
            // Rows of unknown kind read by their table: "the total amount in sales_q1".
            // A table named with a qualifier ("sales_q1" beside "sales_q2") is named too.
            let qualified = lex.qualified_name();
            let of = match (entity == "rows", qualified) {
                (true, _) => format!("in {}", lex.dataset.table_name),
                (false, true) => format!("of {entity} in {}", lex.dataset.table_name),
                (false, false) => format!("of {entity}"),
            };
            let word =
                if lex.columns[m.column].formula.as_ref().is_some_and(|f| f.is_total()) { "" } else { agg_word(*agg) };
            let word = if word.is_empty() { String::new() } else { format!("{word} ") };
            match x {
                Some(v) => format!("The {word}{label} {of}{filters} is {}.", measure_value(lex, m, v)),
                None => format!("There is no {} {label}: no {entity}{filters} have a {label}.", agg_word(*agg)),
            }
        }
        Tally::PerRow(m) => {
            let label = measure_label(lex, m);
            let one = singular(entity);
            match x {
                Some(v) => format!("The {label} per {one}{filters} is {}.", measure_value(lex, m, v)),
                None => format!("There are no {entity}{filters}, so there is no {label} per {one}."),
            }
        }
        Tally::Share(pred) => {
            let total = at(&count_alias(lex));
            let said: Vec<String> = pred.iter().map(|c| predicate(lex, c)).collect();
            match (x, total) {
                (Some(share), Some(n)) if n > 0.0 => format!(
                    "{} of {entity}{filters} {} ({} of {}).",
                    percent(share),
                    said.join(" and "),
                    count((share * n).round()),
                    count(n)
                ),
                _ => format!("There are no {entity}{filters}, so there is no share to report."),
            }
        }
    }
}

/// A number per group: led by the top group when the question asks which one leads.
fn grouped_answer(
    lex: &Lexicon,
    r: &Reading,
    tally: &Tally,
    g: usize,
    bucket: Option<aware_domain::query_plan::TimeBucket>,
    table: &Table,
    filters: &str,
) -> String {
    let entity = &lex.entity;
    let bucket = bucket.map(|b| b.as_str());
    let key = bucket.map_or_else(|| lex.columns[g].name.clone(), str::to_owned);
    let group_label = bucket.map_or_else(|| lex.columns[g].label.clone(), str::to_owned);
    let (Some(ki), Some(vi)) = (output(table, &key), output(table, &value_alias(lex, tally))) else {
        return format!("Here is the result by {group_label}.");
    };
    let groups = group_values(lex, r, table, ki, vi, bucket);
    if groups.is_empty() {
        return format!("There are no {entity}{filters}, so there is nothing to group by {group_label}.");
    }
    let show = |x: f64| match tally {
        Tally::Count | Tally::Distinct(_) => count(x),
        Tally::Aggregate(_, m) | Tally::PerRow(m) => measure_value(lex, m, x),
        Tally::Share(_) => percent(x),
    };
    let what = tally_words(lex, tally);
    let truncated = if table.truncated { " (the result was cut at the row limit)" } else { "" };
    let n_groups = groups.len();
    let words = GroupWords { group_label: &group_label, what: &what, filters, truncated, n_groups };
    if let Some(trend) = r.trend {
        return trend_answer(trend, &capitalised(&what), &groups, &show, filters);
    }
    let valued: Vec<&(String, Option<f64>)> = groups.iter().filter(|(_, v)| v.is_some()).collect();
    if let GroupOrder::Value(desc) = r.order
        && (r.leader || r.limit.is_some())
    {
        return leading_answer(lex, r, tally, desc, &valued, &show, &words);
    }
    listing_answer(&groups, &valued, &show, &words)
}

/// How a grouped answer names its parts: the grouping, the number asked, the conditions, a note
/// when the result was cut, and how many groups there are.
#[derive(Clone, Copy)]
struct GroupWords<'a> {
    group_label: &'a str,
    what: &'a str,
    filters: &'a str,
    truncated: &'a str,
    n_groups: usize,
}

/// The groups of `table` in its order, each named by its key (with its name for an id) and with
/// its value.
fn group_values(
    lex: &Lexicon,
    r: &Reading,
    table: &Table,
    ki: usize,
    vi: usize,
    bucket: Option<&str>,
) -> Vec<(String, Option<f64>)> {
    // An id shown with its name: "Lucas Kowalski (ST0078)".
    let li = r.label.and_then(|l| output(table, &lex.columns[l].name));
    let groups: Vec<(String, Option<f64>)> = table
        .rows
        .iter()
        .map(|row| {
            let key = cell(&row[ki], bucket);
            let key = match li.and_then(|i| row.get(i)).filter(|v| !v.is_null()) {
                Some(name) => format!("{} ({key})", cell(name, None)),
                None => key,
            };
            (key, row.get(vi).and_then(Value::number))
        })
        .collect();
    groups
}

/// The number a grouped answer gives for each group, in words ("average price", "share of
/// customers that churned").
fn tally_words(lex: &Lexicon, tally: &Tally) -> String {
    let entity = &lex.entity;
    match tally {
        Tally::Count => entity.clone(),
        Tally::Distinct(c) => format!("different {}", plural(&lex.columns[*c].label)),
        Tally::Aggregate(_, m) if lex.columns[m.column].formula.as_ref().is_some_and(|f| f.is_total()) => {
            measure_label(lex, m)
        }
        Tally::Aggregate(agg, m) => format!("{} {}", agg_word(*agg), measure_label(lex, m)),
        Tally::PerRow(m) => format!("{} per {}", measure_label(lex, m), singular(entity)),
        Tally::Share(pred) => {
            let said: Vec<String> = pred.iter().map(|c| predicate(lex, c)).collect();
            format!("share of {entity} that {}", said.join(" and "))
        }
    }
}

/// The answer led by the top group (or listing the top few), ranked `desc` or not.
fn leading_answer(
    lex: &Lexicon,
    r: &Reading,
    tally: &Tally,
    desc: bool,
    valued: &[&(String, Option<f64>)],
    show: &dyn Fn(f64) -> String,
    words: &GroupWords<'_>,
) -> String {
    let entity = &lex.entity;
    let GroupWords { group_label, what, filters, truncated, n_groups } = *words;
    let Some((top, Some(tv))) = valued.first().map(|g| (*g).clone()) else {
        return format!("No {group_label} has a value for the {what}.");
    };
    // "top 3 products by units": the three, each with its figure.
    if let Some(n) = r.limit.filter(|n| *n >= 2 && valued.len() >= 2) {
        let listed: Vec<String> = valued
            .iter()
            .take(n as usize)
            .map(|(k, v)| format!("{k} ({})", v.map_or_else(|| "none".to_owned(), show)))
            .collect();
        let way = match (tally, desc) {
            (Tally::Count, true) => format!("most {entity}"),
            (Tally::Count, false) => format!("fewest {entity}"),
            (_, true) => format!("highest {what}"),
            (_, false) => format!("lowest {what}"),
        };
        return format!(
            "The {} {} with the {way}{filters}: {}.{truncated}",
            listed.len(),
            plural(group_label),
            listed.join(", ")
        );
    }
    let lead = match tally {
        Tally::Count => {
            format!("{top} has the {} {entity}{filters}: {}", if desc { "most" } else { "fewest" }, show(tv))
        }
        Tally::Distinct(_) | Tally::Aggregate(..) | Tally::PerRow(_) | Tally::Share(_) => {
            format!("{top} has the {} {what}{filters}: {}", if desc { "highest" } else { "lowest" }, show(tv))
        }
    };
    let tie: Vec<&str> = valued.iter().skip(1).filter(|(_, v)| *v == Some(tv)).map(|(k, _)| k.as_str()).collect();
    let rest = if !tie.is_empty() {
        format!(", tied with {}", tie.join(", "))
    } else if let Some((second, Some(_))) = valued.get(1).map(|g| (*g).clone()) {
        // The runner-up by name: its figure is in the table.
        format!(", ahead of {second}")
    } else {
        String::new()
    };
    let more = match r.limit {
        Some(n) => format!(" The table shows the top {}.", n.min(n_groups as u32)),
        None if n_groups > 2 => " The table ranks them all.".to_owned(),
        None => String::new(),
    };
    format!("{lead}{rest}.{more}{truncated}")
}

/// The answer listing the groups in order, led by the highest and the lowest when they differ.
fn listing_answer(
    groups: &[(String, Option<f64>)],
    valued: &[&(String, Option<f64>)],
    show: &dyn Fn(f64) -> String,
    words: &GroupWords<'_>,
) -> String {
    let GroupWords { group_label, what, filters, truncated, n_groups } = *words;
    // Every group when there are few ("which wards are there": all of them), else the first six.
    let shown = if n_groups <= 12 { n_groups } else { 6 };
    let listed: Vec<String> = groups
        .iter()
        .take(shown)
        .map(|(k, v)| format!("{k} {}", v.map_or_else(|| "(none)".to_owned(), show)))
        .collect();
    let more = if n_groups > shown { format!(" … (all {n_groups} are in the table)") } else { String::new() };
    let values: Vec<f64> = valued.iter().filter_map(|(_, v)| *v).collect();
    // With three groups or more that differ, the highest and the lowest lead.
    let extremes = match (values.iter().copied().reduce(f64::max), values.iter().copied().reduce(f64::min)) {
        (Some(high), Some(low)) if valued.len() > 2 && high != low => Some((high, low)),
        _ => None,
    };
    let Some((high, low)) = extremes else {
        return format!("{} by {group_label}{filters}: {}{more}.{truncated}", capitalised(what), listed.join(", "));
    };
    // The finding first — the highest and the lowest, every group that ties for either — then
    // the groups in their order.
    // Every group tied, up to three by name (a number of its own would be one no result holds).
    let at = |x: f64| -> String {
        let keys: Vec<&str> = valued.iter().filter(|(_, v)| *v == Some(x)).map(|(k, _)| k.as_str()).collect();
        let named = match keys.as_slice() {
            [a, b, c, _, ..] => format!("{a}, {b}, {c} and others"),
            few => join_and(few),
        };
        format!("{named} ({})", show(x))
    };
    // No count of its own here: every number of an answer must be one a result holds.
    let all = if n_groups > shown { "In order" } else { "In full" };
    format!(
        "{} by {group_label}{filters}: highest {}, lowest {}. {all}: {}{more}.{truncated}",
        capitalised(what),
        at(high),
        at(low),
        listed.join(", ")
    )
}

/// A trend over periods in order: from one to the next when two, else the periods where it went
/// the way asked.
fn trend_answer(
    trend: crate::reading::Trend,
    what: &str,
    groups: &[(String, Option<f64>)],
    show: &dyn Fn(f64) -> String,
    filters: &str,
) -> String {
    use crate::reading::Trend;
    let moved = |a: f64, b: f64| {
        if b < a {
            "fell"
        } else if b > a {
            "rose"
        } else {
            "stayed the same"
        }
    };
    match groups {
        [(ka, Some(a)), (kb, Some(b))] => {
            let verdict = match (trend, b.partial_cmp(a)) {
                (Trend::Down, Some(std::cmp::Ordering::Less)) | (Trend::Up, Some(std::cmp::Ordering::Greater)) => {
                    "Yes: "
                }
                (Trend::Down | Trend::Up, _) => "No: ",
                (Trend::Change, _) => "",
            };
            format!("{verdict}{what}{filters} {} from {} in {ka} to {} in {kb}.", moved(*a, *b), show(*a), show(*b))
        }
        _ => {
            let mut changes = Vec::new();
            for pair in groups.windows(2) {
                if let [(_, Some(a)), (k, Some(b))] = pair
                    && match trend {
                        Trend::Down => b < a,
                        Trend::Up => b > a,
                        Trend::Change => b != a,
                    }
                {
                    changes.push(format!("{k} ({} after {})", show(*b), show(*a)));
                }
            }
            let way = match trend {
                Trend::Down => "fell",
                Trend::Up => "rose",
                Trend::Change => "changed",
            };
            if changes.is_empty() {
                format!("{what}{filters} never {way} from one period to the next.")
            } else {
                format!("{what}{filters} {way} in {}.", or_list(&changes).replace(" or ", " and "))
            }
        }
    }
}

/// Rows: a ranked few ("the 5 cheapest apartments cost €185,000 to €199,000") or a filtered list.
fn rows_answer(lex: &Lexicon, r: &Reading, table: &Table, order: Option<&(Measure, bool)>, filters: &str) -> String {
    let entity = &lex.entity;
    let n = table.rows.len();
    match order {
        Some((m, desc)) => {
            let label = measure_label(lex, m);
            // Ranked by a stored column, the rows hold it by its own name.
            let name = if m.per.is_none() && lex.columns[m.column].formula.is_none() {
                lex.columns[m.column].name.clone()
            } else {
                ratio_alias(lex, m)
            };
            let Some(vi) = output(table, &name) else {
                return format!("Here are the {entity}{filters}, ranked by {label}.");
            };
            // Dates read as dates, earliest or latest.
            if lex.columns[m.column].is_date() && m.per.is_none() {
                let dates: Vec<String> =
                    table.rows.iter().filter_map(|row| row.get(vi)).map(|v| cell(v, None)).collect();
                let way = if *desc { "latest" } else { "earliest" };
                let first =
                    crate::text::display_words(&lex.columns[m.column].name).into_iter().next().unwrap_or_default();
                let which = if first.ends_with("ed") {
                    format!("{entity} {first} {way}")
                } else {
                    format!("{entity} with the {way} {label}")
                };
                return match (n, dates.first(), dates.last()) {
                    (0, _, _) => format!("There are no {entity}{filters}."),
                    (1, Some(d), _) => {
                        format!("The {}{filters} is {} ({d}).", singular(&which), identify(lex, table, 0))
                    }
                    (_, Some(a), Some(b)) => format!(
                        "The {n} {which}{filters} run from {a} to {b}; the table lists them in order, starting with {}.",
                        identify(lex, table, 0)
                    ),
                    _ => format!("Here are the {entity}{filters}, by {label}."),
                };
            }
            let values: Vec<f64> = table.rows.iter().filter_map(|row| row.get(vi).and_then(Value::number)).collect();
            let way = if *desc { "highest" } else { "lowest" };
            match (n, values.first(), values.last()) {
                (0, _, _) => format!("There are no {entity}{filters}."),
                (1, Some(v), _) => {
                    let id = identify(lex, table, 0);
                    format!(
                        "The {} with the {way} {label}{filters} is {id}: {}.",
                        singular(entity),
                        measure_value(lex, m, *v)
                    )
                }
                // A few: each, with its figure.
                (2..=5, _, _) if values.len() == n => {
                    let each: Vec<String> = (0..n)
                        .map(|i| format!("{}: {}", identify(lex, table, i), measure_value(lex, m, values[i])))
                        .collect();
                    format!("The {n} {entity} with the {way} {label}{filters}: {}.", each.join("; "))
                }
                (_, Some(a), Some(b)) => format!(
                    "The {n} {entity} with the {way} {label}{filters} range from {} to {}; the table lists them in order, starting with {}.",
                    measure_value(lex, m, *a),
                    measure_value(lex, m, *b),
                    identify(lex, table, 0)
                ),
                _ => format!("Here are the {entity}{filters}, ranked by {label}."),
            }
        }
        None => {
            let limit = r.limit.unwrap_or(ROW_LIMIT) as usize;
            match n {
                0 => format!("There are no {entity}{filters}."),
                1 => format!("There is one {}{filters}: {}.", singular(entity), identify(lex, table, 0)),
                _ if n >= limit || table.truncated => format!(
                    "There are at least {} {entity}{filters}; the table shows the first {}. Ask “how many …” for the exact count.",
                    count(n as f64),
                    count(n as f64)
                ),
                _ => format!("There are {} {entity}{filters}; the table lists them.", count(n as f64)),
            }
        }
    }
}

/// A row named by its id column and first category ("listing 17 in Gràcia").
fn identify(lex: &Lexicon, table: &Table, row: usize) -> String {
    let Some(cells) = table.rows.get(row) else { return String::new() };
    let at = |name: &str| output(table, name).and_then(|i| cells.get(i));
    // (With the name an id stands for: "student ST0078 Lucas Kowalski".)
    let id = lex.columns.iter().position(|c| c.class == Class::Id).and_then(|k| {
        let c = &lex.columns[k];
        let id = at(&c.name).filter(|v| !v.is_null()).map(|v| format!("{} {}", c.label, cell(v, None)))?;
        let name = crate::reading::name_of(lex, k).and_then(|n| at(&lex.columns[n].name)).filter(|v| !v.is_null());
        Some(match name {
            Some(v) => format!("{id} {}", cell(v, None)),
            None => id,
        })
    });
    let place = lex
        .columns
        .iter()
        .find(|c| c.class == Class::Category)
        .and_then(|c| at(&c.name).map(|v| (c, v.clone())))
        .filter(|(_, v)| !matches!(v, Value::Null));
    match (id, place) {
        (Some(id), Some((c, v))) => format!("{} ({} {})", id, c.label, cell(&v, None)),
        (Some(id), None) => id,
        (None, Some((c, v))) => format!("the one with {} {}", c.label, cell(&v, None)),
        (None, None) => format!("row {}", row + 1),
    }
}
