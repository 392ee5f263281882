//! Words as the planner compares them: lower case, accents folded ("Gràcia" reads "gracia"),
//! British and American spellings made one, numbers parsed ("500k", "€1.2m", "3-bedroom"), and
//! contractions opened ("didn't" → "did not"), so that the question and the data's names meet.

use std::iter::Peekable;
use std::str::CharIndices;
use unicode_normalization::UnicodeNormalization;

/// One word or number of a question.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// Folded: lower case, no accents, one spelling.
    pub text: String,
    /// As typed (for quoting back what was not understood).
    pub raw: String,
    pub number: Option<f64>,
    /// A currency sign written with the number (`€400k`).
    pub currency: Option<char>,
    /// Written with `%` or followed by "percent".
    pub percent: bool,
}

impl Token {
    fn word(text: String, raw: &str) -> Self {
        Self { text, raw: raw.to_owned(), number: None, currency: None, percent: false }
    }
}

/// British spellings (and a few variants) folded to one form, so `neighbourhood` meets
/// "neighborhood" and "square metre" meets `meters`.
const SPELLINGS: &[(&str, &str)] = &[
    ("neighbourhood", "neighborhood"),
    ("neighbourhoods", "neighborhoods"),
    ("neighbour", "neighbor"),
    ("metre", "meter"),
    ("metres", "meters"),
    ("centre", "center"),
    ("colour", "color"),
    ("litre", "liter"),
    ("litres", "liters"),
    ("favourite", "favorite"),
];

/// Lower case, accents removed (NFKD without combining marks), one spelling.
pub fn fold(s: &str) -> String {
    let lower: String = s.nfkd().filter(|c| !unicode_normalization::char::is_combining_mark(*c)).collect();
    let lower = lower.to_lowercase();
    match SPELLINGS.iter().find(|(from, _)| *from == lower) {
        Some((_, to)) => (*to).to_owned(),
        None => lower,
    }
}

/// The words of an identifier or value: `price_eur` → price, eur; `LoanDays` → loan, days;
/// `Sarrià-Sant Gervasi` → sarria, sant, gervasi.
pub fn words_of(name: &str) -> Vec<String> {
    split_words(name).into_iter().map(|w| fold(&w)).collect()
}

/// The words of an identifier as an answer writes them: lower case, spelling kept
/// (`neighbourhood`, `PatientAge` → patient, age).
pub fn display_words(name: &str) -> Vec<String> {
    split_words(name).into_iter().map(|w| w.to_lowercase()).collect()
}

fn split_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_alphanumeric() {
            // camelCase and PascalCase split at a lower-to-upper change.
            if c.is_uppercase() && prev_lower && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            current.push(c);
        } else {
            prev_lower = false;
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// A light stem for comparing words: plurals, verb endings and a final `e` removed
/// ("apartments" → "apartment", "churned" → "churn", "categories" → "category", "listings" →
/// "list", "prices" and "priced" → "pric"). Short words and words with digits are left alone.
pub fn stem(word: &str) -> String {
    if word.chars().count() <= 3 || word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_owned();
    }
    // "availability" meets "available"; "admissions" and "readmission" meet "admitted".
    let mut w =
        match (word.strip_suffix("ability"), word.strip_suffix("issions").or_else(|| word.strip_suffix("ission"))) {
            (Some(base), _) => format!("{base}able"),
            (None, Some(base)) if base.len() >= 2 => return format!("{base}it"),
            _ => word.to_owned(),
        };
    // Plurals first, so "listings" goes on to lose its "-ing".
    if let Some(base) = w.strip_suffix("ies") {
        w = format!("{base}y");
    } else if let Some(base) = ["sses", "ches", "shes", "xes"]
        .iter()
        .find_map(|suffix| w.strip_suffix(suffix).map(|b| format!("{b}{}", &suffix[..suffix.len() - 2])))
    {
        w = base;
    } else if !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is"))
        && let Some(base) = w.strip_suffix('s')
    {
        w = base.to_owned();
    }
    if let Some(base) = w.strip_suffix("ing").filter(|b| b.len() >= 3) {
        w = undouble(base);
    } else if let Some(base) = w.strip_suffix("ed").filter(|b| b.len() >= 3) {
        w = undouble(base);
    }
    if w.len() > 3
        && let Some(base) = w.strip_suffix('e')
    {
        w = base.to_owned();
    }
    w
}

/// "stopp" → "stop": the doubled final consonant of an -ing or -ed form.
fn undouble(base: &str) -> String {
    let b = base.as_bytes();
    if b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2] && !matches!(b[b.len() - 1], b's' | b'l' | b'e') {
        base[..base.len() - 1].to_owned()
    } else {
        base.to_owned()
    }
}

/// Contractions opened into words ("what's" → "what is").
fn open_contractions(text: &str) -> String {
    let mut s = text.replace(['’', '‘'], "'");
    for (from, to) in [
        ("won't", "will not"),
        ("can't", "can not"),
        ("cannot", "can not"),
        ("n't", " not"),
        ("'re", " are"),
        ("'ve", " have"),
        ("'ll", " will"),
        ("'d", " would"),
        ("what's", "what is"),
        ("where's", "where is"),
        ("how's", "how is"),
        ("who's", "who is"),
        ("that's", "that is"),
        ("there's", "there is"),
        ("it's", "it is"),
        ("'s", ""),
    ] {
        s = replace_ignore_case(&s, from, to);
    }
    s
}

fn replace_ignore_case(s: &str, from: &str, to: &str) -> String {
    let lower = s.to_lowercase();
    if lower.len() != s.len() {
        // Case folding changed byte lengths (rare scripts): fall back to an exact replace.
        return s.replace(from, to);
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (i, _) in lower.match_indices(from) {
        out.push_str(&s[last..i]);
        out.push_str(to);
        last = i + from.len();
    }
    out.push_str(&s[last..]);
    out
}

/// Comparison symbols as words the reader knows.
fn spell_symbols(text: &str) -> String {
    text.replace(">=", " ge ")
        .replace("=>", " ge ")
        .replace("≥", " ge ")
        .replace("<=", " le ")
        .replace("=<", " le ")
        .replace("≤", " le ")
        .replace("!=", " ne ")
        .replace("<>", " ne ")
        .replace('>', " gt ")
        .replace('<', " lt ")
        .replace("==", " eq ")
        .replace('=', " eq ")
}

const NUMBER_WORDS: &[(&str, f64)] = &[
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("twenty", 20.0),
];

/// A number as people write it: `500000`, `500,000`, `1.5`, `500k`, `1.2m`, `3bn`.
fn parse_number(s: &str) -> Option<f64> {
    let (body, scale) = match s {
        _ if s.ends_with("bn") => (&s[..s.len() - 2], 1e9),
        _ if s.ends_with('k') => (&s[..s.len() - 1], 1e3),
        _ if s.ends_with('m') => (&s[..s.len() - 1], 1e6),
        _ => (s, 1.0),
    };
    if body.is_empty() || !body.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    // Thousands separators: "500,000" (groups of three after the first comma).
    let plain = if body.contains(',') {
        let mut parts = body.split(',');
        let head = parts.next()?;
        let tail: Vec<&str> = parts.collect();
        if head.is_empty()
            || head.len() > 3
            || tail.iter().any(|p| p.len() < 3 || !p[..3].chars().all(|c| c.is_ascii_digit()))
        {
            return None;
        }
        body.replace(',', "")
    } else {
        body.to_owned()
    };
    let n: f64 = plain.parse().ok()?;
    n.is_finite().then_some(n * scale)
}

/// Splits a question into tokens.
pub fn tokenize(question: &str) -> Vec<Token> {
    let mut tokens = split(question);
    // "more than a week", "under half an hour": one unit, half of one.
    let mut i = 0;
    while i + 1 < tokens.len() {
        let unit = |t: &Token| {
            matches!(
                t.text.as_str(),
                "second" | "minute" | "hour" | "day" | "week" | "month" | "year" | "kilo" | "kilometre" | "kilometer"
            )
        };
        if tokens[i].text == "half"
            && matches!(tokens[i + 1].text.as_str(), "a" | "an")
            && tokens.get(i + 2).is_some_and(unit)
        {
            tokens[i] = Token { number: Some(0.5), text: "0.5".into(), ..tokens[i].clone() };
            tokens.remove(i + 1);
        } else if matches!(tokens[i].text.as_str(), "a" | "an")
            && unit(&tokens[i + 1])
            && i > 0
            && matches!(
                tokens[i - 1].text.as_str(),
                "than" | "over" | "under" | "within" | "least" | "most" | "above" | "below"
            )
        {
            tokens[i] = Token { number: Some(1.0), text: "1".into(), ..tokens[i].clone() };
        }
        i += 1;
    }
    tokens
}

fn split(question: &str) -> Vec<Token> {
    let text = spell_symbols(&open_contractions(question));
    let mut tokens: Vec<Token> = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if matches!(c, '€' | '$' | '£') {
            currency_sign(&text, start, c, &mut chars, &mut tokens);
            continue;
        }
        if c == '%' {
            if let Some(last) = tokens.last_mut().filter(|t| t.number.is_some()) {
                last.percent = true;
            } else {
                tokens.push(Token::word("percent".into(), "%"));
            }
            continue;
        }
        if !c.is_alphanumeric() {
            continue;
        }
        let mut end = start + c.len_utf8();
        let starts_with_digit = c.is_ascii_digit();
        while let Some(&(i, n)) = chars.peek() {
            let joins_number =
                starts_with_digit && (n == '.' || n == ',') && text[i + 1..].starts_with(|d: char| d.is_ascii_digit());
            if n.is_alphanumeric() || joins_number {
                end = i + n.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let raw = &text[start..end];
        let lower = raw.to_lowercase();
        if starts_with_digit {
            if let Some(n) = parse_number(&lower) {
                tokens.push(Token {
                    text: lower,
                    raw: raw.to_owned(),
                    number: Some(n),
                    currency: None,
                    percent: false,
                });
                continue;
            }
            // "3bedroom", "2024q1": a number glued to a word.
            let split = lower.find(|ch: char| !(ch.is_ascii_digit() || ch == '.')).unwrap_or(lower.len());
            if let Some(n) = parse_number(&lower[..split]) {
                tokens.push(Token {
                    text: lower[..split].to_owned(),
                    raw: raw[..split].to_owned(),
                    number: Some(n),
                    currency: None,
                    percent: false,
                });
                tokens.push(Token::word(fold(&lower[split..]), &raw[split..]));
                continue;
            }
        }
        push_word(&mut tokens, raw);
    }
    tokens
}

/// Reads the currency sign `c` at `start` of `text`: onto the number before it, else as the
/// currency of the number after it (read from `chars`).
fn currency_sign(text: &str, start: usize, c: char, chars: &mut Peekable<CharIndices<'_>>, tokens: &mut Vec<Token>) {
    // A currency sign belongs to the number after it (or before it: "400k€").
    if let Some(last) = tokens.last_mut().filter(|t| t.number.is_some() && t.currency.is_none())
        && chars.peek().is_none_or(|(_, n)| !n.is_ascii_digit())
    {
        last.currency = Some(c);
        return;
    }
    let mut end = start + c.len_utf8();
    while let Some(&(i, n)) = chars.peek() {
        if n.is_alphanumeric() || ((n == '.' || n == ',') && text[i + 1..].starts_with(|d: char| d.is_ascii_digit())) {
            end = i + n.len_utf8();
            chars.next();
        } else {
            break;
        }
    }
    let body = &text[start + c.len_utf8()..end];
    match parse_number(&body.to_lowercase()) {
        Some(n) => tokens.push(Token {
            text: body.to_lowercase(),
            raw: text[start..end].to_owned(),
            number: Some(n),
            currency: Some(c),
            percent: false,
        }),
        None if body.is_empty() => {}
        None => tokens.push(Token::word(fold(body), body)),
    }
}

/// Pushes the word `raw` onto `tokens`: a number word as its number, a unit or scale word onto
/// the number before it, "AOV" as what it stands for.
fn push_word(tokens: &mut Vec<Token>, raw: &str) {
    let folded = fold(raw);
    match folded.as_str() {
        "percent" | "pct" | "percentage" if tokens.last().is_some_and(|t| t.number.is_some() && !t.percent) => {
            if let Some(last) = tokens.last_mut() {
                last.percent = true;
            }
        }
        "thousand" | "million" | "billion" if tokens.last().is_some_and(|t| t.number.is_some() && !t.percent) => {
            let scale = match folded.as_str() {
                "thousand" => 1e3,
                "million" => 1e6,
                _ => 1e9,
            };
            if let Some(last) = tokens.last_mut() {
                last.number = last.number.map(|n| n * scale);
                last.raw.push(' ');
                last.raw.push_str(raw);
            }
        }
        "euro" | "euros" | "eur" if tokens.last().is_some_and(|t| t.number.is_some() && t.currency.is_none()) => {
            if let Some(last) = tokens.last_mut() {
                last.currency = Some('€');
            }
        }
        "dollar" | "dollars" | "usd" if tokens.last().is_some_and(|t| t.number.is_some() && t.currency.is_none()) => {
            if let Some(last) = tokens.last_mut() {
                last.currency = Some('$');
            }
        }
        "pound" | "pounds" | "gbp" if tokens.last().is_some_and(|t| t.number.is_some() && t.currency.is_none()) => {
            if let Some(last) = tokens.last_mut() {
                last.currency = Some('£');
            }
        }
        // "AOV": what it stands for.
        "aov" => {
            for w in ["average", "order", "value"] {
                tokens.push(Token::word(w.to_owned(), raw));
            }
        }
        word => match NUMBER_WORDS.iter().find(|(w, _)| *w == word) {
            Some((_, n)) => tokens.push(Token {
                text: word.to_owned(),
                raw: raw.to_owned(),
                number: Some(*n),
                currency: None,
                percent: false,
            }),
            None => tokens.push(Token::word(folded.clone(), raw)),
        },
    }
}

/// A plural noun in the singular: "cities" → "city", "branches" → "branch", "orders" → "order"; a
/// word ending in "ss" stays as it is.
pub(crate) fn singular(entity: &str) -> String {
    if let Some(base) = entity.strip_suffix("ies") {
        format!("{base}y")
    } else if entity.ends_with("ss") {
        entity.to_owned()
    } else if let Some(base) = entity.strip_suffix("ches").or_else(|| entity.strip_suffix("shes")) {
        format!("{base}{}", &entity[base.len()..base.len() + 2])
    } else {
        entity.strip_suffix('s').unwrap_or(entity).to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(q: &str) -> Vec<String> {
        tokenize(q).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn words_fold_case_accents_spelling_and_contractions() {
        assert_eq!(texts("How many apartments in Gràcia?"), ["how", "many", "apartments", "in", "gracia"]);
        assert_eq!(texts("what's the neighbourhood"), ["what", "is", "the", "neighborhood"]);
        assert_eq!(texts("customers who didn't churn"), ["customers", "who", "did", "not", "churn"]);
        assert_eq!(texts("price >= 500000"), ["price", "ge", "500000"]);
        assert_eq!(words_of("Sarrià-Sant Gervasi"), ["sarria", "sant", "gervasi"]);
        assert_eq!(words_of("LoanDays"), ["loan", "days"]);
        assert_eq!(words_of("price_eur"), ["price", "eur"]);
        assert_eq!(words_of("Branch Name"), ["branch", "name"]);
    }

    #[test]
    fn numbers_are_read_as_people_write_them() {
        let n = |q: &str| tokenize(q).into_iter().find_map(|t| t.number.map(|n| (n, t.currency, t.percent)));
        assert_eq!(n("over 500,000"), Some((500_000.0, None, false)));
        assert_eq!(n("under €400k"), Some((400_000.0, Some('€'), false)));
        assert_eq!(n("1.5 million euros"), Some((1_500_000.0, Some('€'), false)));
        assert_eq!(n("more than 20%"), Some((20.0, None, true)));
        assert_eq!(n("the 5 cheapest"), Some((5.0, None, false)));
        assert_eq!(n("top five"), Some((5.0, None, false)));
        assert_eq!(texts("3-bedroom flats"), ["3", "bedroom", "flats"]);
        assert_eq!(texts("3bedroom"), ["3", "bedroom"]);
        assert_eq!(n("in 2024"), Some((2024.0, None, false)));
    }

    #[test]
    fn stems_meet_across_plurals_and_verb_forms() {
        for (a, b) in [
            ("apartments", "apartment"),
            ("churned", "churn"),
            ("categories", "category"),
            ("listed", "list"),
            ("priced", "price"),
            ("costs", "cost"),
            ("bedrooms", "bedroom"),
            ("charges", "charge"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} ~ {b}");
        }
        assert_eq!(stem("listings"), stem("listed"));
        assert_eq!(stem("readmissions"), stem("readmitted"));
        assert_eq!(stem("admission"), stem("admitted"));
        assert_eq!(stem("availability"), stem("available"));
        assert_eq!(stem("statuses"), stem("status"));
        assert_ne!(stem("status"), stem("stat"));
        assert_eq!(stem("bus"), "bus");
    }
}
