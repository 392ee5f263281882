//! The general dictionary every lexicon starts from: how people name common measures, the other
//! words for a kind of row, words too general to name a column, the opposites of flags, and
//! plurals and their stems — never knowledge of particular datasets.

use crate::text::stem;

/// A word with only a plural ending removed ("categories" → "category", "buses" → "bus",
/// "vans" → "van").
pub fn plural_stem(word: &str) -> String {
    if word.len() <= 3 {
        return word.to_owned();
    }
    if let Some(base) = word.strip_suffix("ies") {
        return format!("{base}y");
    }
    for suffix in ["sses", "xes", "ches", "shes", "uses"] {
        if let Some(base) = word.strip_suffix(suffix) {
            return format!("{base}{}", &suffix[..suffix.len() - 2]);
        }
    }
    match word.strip_suffix('s') {
        Some(base) if !base.ends_with('s') && !base.ends_with('u') && !base.ends_with('i') => base.to_owned(),
        _ => word.to_owned(),
    }
}

pub(super) const UNIT_WORDS: &[&str] = &[
    "eur", "euro", "euros", "usd", "gbp", "dollars", "pct", "percent", "km", "kg", "hours", "hrs", "minutes", "mins",
    "days", "months", "years", "secs", "seconds", "kwh", "kw", "mwh",
];

/// Words too general to name a column on their own.
pub(super) const GENERIC: &[&str] = &[
    "id", "name", "value", "values", "count", "number", "num", "date", "at", "on", "of", "the", "and", "is", "has",
    "total", "code", "data", "info", "flag", "type", "time",
];

/// Words that never name a value on their own, even when one contains them.
pub(super) const GENERIC_PARTS: &[&str] = &[
    "data", "file", "files", "table", "rows", "records", "items", "list", "info", "type", "other", "none", "total",
    "day", "days", "week", "weeks", "month", "months", "year", "years", "quarter", "time", "hour", "hours",
    // Currencies: "in euros" is how an amount is said, not the carrier EuroHaul.
    "euro", "euros", "dollar", "dollars", "pound", "pounds",
];

/// Past participles that are values ("lost") and their other forms.
pub(super) const IRREGULAR: &[(&str, &[&str])] = &[
    ("lost", &["lose", "loses", "losing"]),
    ("sold", &["sell", "sells", "selling"]),
    ("sent", &["send", "sends", "sending"]),
];

/// Yes/no columns and the words that say they do not hold: (a word of the name, opposites).
pub(super) const ANTONYMS: &[(&str, &[&str])] = &[
    ("passed", &["failed", "fail", "fails", "failing"]),
    ("pass", &["failed", "fail", "fails", "failing"]),
    ("present", &["absent"]),
    ("delivered", &["undelivered"]),
    ("paid", &["unpaid", "outstanding"]),
    ("approved", &["rejected", "declined"]),
    ("completed", &["incomplete", "unfinished"]),
];

/// Words at the end of a table's name that are not what its rows are (`grades_spring_term`).
pub(super) const QUALIFIERS: &[&str] = &[
    "data", "export", "final", "clean", "cleaned", "raw", "latest", "new", "old", "copy", "table", "list", "dataset",
    "file", "fy", "spring", "summer", "autumn", "fall", "winter", "term", "semester", "q1", "q2", "q3", "q4", "h1",
    "h2", "v1", "v2", "v3", "ytd", "report", "sample", "full", "all", "master", "main", "log", "history",
];

/// Words of a column's description that do not name it.
pub(super) const DESCRIPTION_FILLER: &[&str] = &[
    "the", "and", "for", "with", "from", "that", "this", "per", "each", "its", "are", "was", "were", "which", "when",
    "where", "how", "what", "value", "values", "column", "number", "amount", "row", "rows", "record", "records", "in",
    "of", "on", "at", "by", "as", "is", "or", "not", "any", "all", "one",
];

/// How people name common measures: (a word of a column name, other words for it).
pub(super) const SYNONYMS: &[(&str, &[&str])] = &[
    ("price", &["cost", "costs", "costing", "priced", "pricing", "asking price"]),
    ("sqm", &["square meter", "square meters", "sq m", "m2", "size", "area", "surface", "floor area"]),
    ("m2", &["square meter", "square meters", "sqm", "size", "area", "surface"]),
    ("area", &["size", "surface"]),
    ("bedrooms", &["beds", "bedroom"]),
    ("bathrooms", &["baths", "bathroom"]),
    ("neighborhood", &["district", "barrio", "neighborhoods"]),
    ("category", &["categories", "topic", "topics"]),
    ("status", &["state"]),
    ("priority", &["urgency"]),
    ("created", &["opened", "submitted", "filed", "raised", "logged", "creation"]),
    ("customer", &["client", "clients"]),
    ("tenure", &["tenure length"]),
    ("charges", &["charge", "bill", "bills"]),
    ("resolution", &["resolve", "resolved", "resolving"]),
    ("listed", &["listing date", "published"]),
    ("salary", &["pay", "wage", "wages"]),
    ("revenue", &["sales", "income"]),
    ("quantity", &["qty", "units"]),
    ("rating", &["score", "stars"]),
    ("duration", &["length"]),
    ("contract", &["contract type"]),
    ("channel", &["source", "sales channel"]),
    // Everyday verbs and nouns for a quantity ("how many laptops did we sell", "units sold").
    ("units", &["sold", "sell", "sales volume", "volume", "pieces", "quantity", "qty"]),
    ("qty", &["sold", "sell", "sales volume", "volume", "pieces"]),
    ("salary", &["earn", "earning", "earnings", "income", "compensation", "paid"]),
    ("age", &["aged"]),
    ("cost", &["bill", "bills", "spend", "spent", "expense", "expenses"]),
    ("source", &["traffic source", "referrer", "referral source"]),
    ("pay", &["earn", "earning", "earnings", "salary", "wage", "wages", "paid"]),
    ("wage", &["earn", "earning", "earnings", "pay", "salary", "paid"]),
    ("consumption", &["usage", "use", "used", "consumed", "consume", "electricity", "energy", "power"]),
    ("kwh", &["electricity", "energy", "power", "usage", "consumption"]),
    ("weight", &["weigh", "heavy", "mass", "kilos"]),
    ("distance", &["far", "route length", "kilometres", "kilometers", "mileage"]),
    ("freight", &["shipping cost", "shipping costs", "freight cost", "shipping price", "postage"]),
    ("attendance", &["attended", "turnout", "presence"]),
    ("carrier", &["courier", "shipper", "haulier", "logistics company", "logistics provider"]),
    ("ward", &["department", "unit"]),
    ("adjuster", &["handler", "claims handler", "assessor"]),
    ("teacher", &["instructor", "tutor"]),
    ("subject", &["course", "courses", "class", "classes"]),
    ("device", &["platform", "device type"]),
    ("country", &["nation"]),
    ("medium", &["channel", "traffic medium"]),
    ("tariff", &["rate plan", "price plan", "energy plan"]),
    ("solar", &["solar power", "solar generation", "solar output", "generated", "generation", "pv"]),
    ("insurance", &["insurer", "payer", "coverage", "cover"]),
    ("segment", &["customer type", "customer segment"]),
    ("region", &["area", "territory", "zone"]),
    ("returned", &["refunded", "return", "returns"]),
    ("discount", &["markdown", "reduction"]),
    ("destination", &["going to", "headed to"]),
    ("origin", &["hub", "shipped from", "sent from"]),
    ("pageviews", &["page views", "pages viewed", "views"]),
    ("converted", &["conversion", "conversions", "convert", "bought", "purchased"]),
    ("bounced", &["bounce", "bounces"]),
    // The verbs of a date column's event ("shipments sent in May", "claims filed in Q1").
    ("ship", &["sent", "send", "dispatched", "shipped", "went out"]),
    ("delivery", &["delivered", "arrived"]),
    ("exam", &["examined", "examination", "examinations"]),
    ("incident", &["happened", "occurred", "occurring"]),
];

/// Entity words people use for the things in a dataset, by a word of its name.
pub(super) const ENTITY_SYNONYMS: &[(&str, &[&str])] = &[
    ("apartment", &["flat", "home", "property", "unit", "listing"]),
    ("ticket", &["request", "case", "issue"]),
    ("customer", &["client", "subscriber", "account"]),
    ("employee", &["staff", "worker", "person", "people"]),
    ("vehicle", &["car", "van", "truck"]),
    ("order", &["purchase", "sale", "transaction", "deal"]),
    ("shipment", &["delivery", "parcel", "package", "consignment", "load"]),
    ("reading", &["measurement", "meter reading"]),
    ("stay", &["admission", "hospitalisation", "hospitalization"]),
    ("student", &["pupil", "kid", "child", "children", "learner"]),
    ("session", &["visit", "visitor", "traffic"]),
    ("claim", &["case"]),
];

/// The other words for a kind of row ("student" → pupil, kid, child …).
pub fn entity_synonyms(word: &str) -> &'static [&'static str] {
    ENTITY_SYNONYMS.iter().find(|(k, _)| stem(k) == stem(word)).map_or(&[], |(_, alternatives)| *alternatives)
}

/// "apartment" → "apartments", "category" → "categories".
pub fn plural(word: &str) -> String {
    if word.ends_with('s') {
        word.to_owned()
    } else if let Some(base) = word.strip_suffix('y').filter(|b| !b.ends_with(['a', 'e', 'i', 'o', 'u'])) {
        format!("{base}ies")
    } else if word.ends_with("ch") || word.ends_with("sh") || word.ends_with('x') {
        format!("{word}es")
    } else {
        format!("{word}s")
    }
}
