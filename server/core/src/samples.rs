//! Sample datasets seeded into a new data dir, so a fresh `serve` shows a working product. They
//! are generated here, deterministically (a fixed-seed SplitMix64), so every install and every
//! test sees the same rows and the same numbers.

/// One sample file.
pub struct SampleFile {
    pub filename: &'static str,
    pub content: String,
}

/// The three samples: apartments (with missing values), customer churn, support tickets (free
/// text).
pub fn sample_files() -> Vec<SampleFile> {
    vec![
        SampleFile { filename: "barcelona_apartments.csv", content: apartments() },
        SampleFile { filename: "customer_churn.csv", content: customer_churn() },
        SampleFile { filename: "support_tickets.csv", content: support_tickets() },
    ]
}

/// SplitMix64: tiny, fast, and stable forever (unlike a library RNG whose stream may change). Also
/// the generator of the evaluation's datasets, so they too are the same on every run.
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// Quotes a CSV field when it needs it.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

/// A date `days` after 2024-01-01, as YYYY-MM-DD (no calendar library needed for 2024–2025).
fn date_after_2024(days: i64) -> String {
    let months = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut d = days;
    for (i, len) in months.iter().enumerate() {
        if d < *len {
            return format!("{}-{:02}-{:02}", 2024 + i / 12, i % 12 + 1, d + 1);
        }
        d -= len;
    }
    "2025-12-31".to_owned()
}

fn apartments() -> String {
    // (neighbourhood, € per m² around which prices vary)
    let hoods = [
        ("Eixample", 5200.0),
        ("Gràcia", 4800.0),
        ("Sarrià-Sant Gervasi", 6100.0),
        ("Les Corts", 5000.0),
        ("Sant Martí", 4300.0),
        ("Ciutat Vella", 4400.0),
        ("Sants-Montjuïc", 3600.0),
        ("Horta-Guinardó", 3300.0),
    ];
    let ratings = ["A", "B", "C", "D", "E", "F", "G"];
    let mut rng = Rng(0xA9A2_7E57);
    let mut out =
        String::from("listing_id,neighbourhood,bedrooms,bathrooms,sqm,price_eur,energy_rating,has_terrace,listed_on\n");
    for i in 1..=240 {
        let (hood, per_sqm) = *rng.pick(&hoods);
        let bedrooms = rng.range(1, 5);
        let sqm = 30 + bedrooms * 18 + rng.range(0, 40);
        let price = ((sqm as f64 * per_sqm * (0.85 + 0.3 * rng.unit())) / 1000.0).round() as i64 * 1000;
        let price = price.clamp(185_000, 890_000);
        let bathrooms = 1 + i64::from(bedrooms >= 3) + i64::from(bedrooms >= 5 && rng.chance(0.5));
        // Some listings lack an energy certificate or a measured size.
        let rating = if rng.chance(0.1) { String::new() } else { (*rng.pick(&ratings)).to_owned() };
        let sqm_field = if rng.chance(0.03) { String::new() } else { sqm.to_string() };
        let terrace = rng.chance(0.35);
        let listed = date_after_2024(rng.range(0, 600));
        out.push_str(&format!(
            "{i},{},{bedrooms},{bathrooms},{sqm_field},{price},{rating},{terrace},{listed}\n",
            csv_field(hood)
        ));
    }
    out
}

fn customer_churn() -> String {
    let plans = [("basic", 19.0), ("standard", 39.0), ("premium", 79.0)];
    let contracts = ["month-to-month", "one_year", "two_year"];
    let regions = ["north", "south", "east", "west"];
    let mut rng = Rng(0xC40C_40C4);
    let mut out = String::from(
        "customer_id,region,plan,contract,tenure_months,monthly_charges,total_charges,support_calls,churned\n",
    );
    for i in 1..=500 {
        let (plan, base) = *rng.pick(&plans);
        let contract = *rng.pick(&contracts);
        let tenure = rng.range(1, 72);
        let monthly = ((base * (0.9 + 0.25 * rng.unit())) * 100.0).round() / 100.0;
        let total = ((monthly * tenure as f64) * 100.0).round() / 100.0;
        let calls = rng.range(0, 9);
        let risk = 0.08 + if contract == "month-to-month" { 0.25 } else { 0.0 } + calls as f64 * 0.04
            - (tenure as f64 / 72.0) * 0.15;
        let churned = rng.chance(risk.clamp(0.02, 0.9));
        out.push_str(&format!(
            "C{i:05},{},{plan},{contract},{tenure},{monthly:.2},{total:.2},{calls},{churned}\n",
            rng.pick(&regions)
        ));
    }
    out
}

fn support_tickets() -> String {
    // (category, subjects, bodies): varied wording so search has something to find by meaning.
    let topics: [(&str, &[&str], &[&str]); 6] = [
        (
            "login",
            &[
                "Cannot sign in",
                "Password reset link not working",
                "Locked out of my account",
                "Two-factor code rejected",
            ],
            &[
                "I cannot sign in to my account since yesterday, it keeps saying my credentials are wrong.",
                "The password reset email arrives but the link says it has expired.",
                "After three attempts the account got locked and I still have no access.",
                "The authentication code from my phone is refused every time I try to log in.",
            ],
        ),
        (
            "billing",
            &["Charged twice", "Invoice missing VAT number", "Refund request", "Card declined at renewal"],
            &[
                "My card was charged twice for the same monthly subscription.",
                "The invoice for March does not show our company VAT number.",
                "I cancelled within the trial period and would like my money back.",
                "The renewal failed because the payment was declined, but the card works elsewhere.",
            ],
        ),
        (
            "performance",
            &["Dashboard very slow", "Reports time out", "Page takes ages to load"],
            &[
                "The dashboard takes more than thirty seconds to load every morning.",
                "Large reports time out before they finish generating.",
                "Everything became sluggish after the last update, especially charts.",
            ],
        ),
        (
            "data_export",
            &["Export to CSV fails", "Missing columns in export", "Scheduled export did not run"],
            &[
                "Exporting the customer table to CSV stops halfway with an error.",
                "The exported file is missing the region and plan columns.",
                "The nightly scheduled export did not produce a file last night.",
            ],
        ),
        (
            "security",
            &["Suspicious login alert", "Please delete my personal data", "Phishing email pretending to be you"],
            &[
                "I received an alert about a login from another country that was not me.",
                "Please erase everything you store about me under data protection law.",
                "Someone sent an email that looks like your invoice asking for my password.",
            ],
        ),
        (
            "feature_request",
            &["Dark mode please", "API for bulk uploads", "Share dashboards with guests"],
            &[
                "It would be great to have a dark theme for working late.",
                "We need an API endpoint to upload many files at once.",
                "Could external guests view a dashboard without a full account?",
            ],
        ),
    ];
    let channels = ["email", "chat", "phone", "web_form"];
    let priorities = ["low", "medium", "high", "urgent"];
    let statuses = ["open", "pending", "closed", "closed", "closed"];
    let mut rng = Rng(0x071C_CE75);
    let mut out = String::from(
        "ticket_id,created_at,customer_id,channel,priority,category,subject,body,status,resolution_hours\n",
    );
    for i in 1..=300 {
        let (category, subjects, bodies) = rng.pick(&topics);
        let k = (rng.next() % subjects.len().min(bodies.len()) as u64) as usize;
        let created =
            format!("{} {:02}:{:02}:00", date_after_2024(rng.range(300, 660)), rng.range(7, 21), rng.range(0, 59));
        let status = *rng.pick(&statuses);
        let hours = if status == "closed" { format!("{:.1}", 0.5 + rng.unit() * 96.0) } else { String::new() };
        out.push_str(&format!(
            "T{i:04},{created},C{:05},{},{},{category},{},{},{status},{hours}\n",
            rng.range(1, 500),
            rng.pick(&channels),
            rng.pick(&priorities),
            csv_field(subjects[k]),
            csv_field(bodies[k]),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_deterministic_and_well_formed() {
        let a = sample_files();
        let b = sample_files();
        assert_eq!(a.len(), 3);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.content, y.content, "{} must be identical on every install", x.filename);
        }
        let apartments = &a[0].content;
        let lines: Vec<&str> = apartments.lines().collect();
        assert_eq!(lines.len(), 241);
        let missing_rating = lines[1..].iter().filter(|l| l.split(',').nth(6) == Some("")).count();
        assert!((5..60).contains(&missing_rating), "some ratings are missing: {missing_rating}");
        for l in &lines[1..] {
            let price: i64 = l.split(',').nth(5).unwrap().parse().unwrap();
            assert!((185_000..=890_000).contains(&price));
        }
        assert_eq!(a[1].content.lines().count(), 501);
        assert_eq!(a[2].content.lines().count(), 301);
        assert!(a[2].content.contains("cannot sign in"));
    }

    #[test]
    fn dates_are_valid_calendar_days() {
        assert_eq!(date_after_2024(0), "2024-01-01");
        assert_eq!(date_after_2024(59), "2024-02-29");
        assert_eq!(date_after_2024(366), "2025-01-01");
        assert_eq!(date_after_2024(10_000), "2025-12-31");
    }
}
