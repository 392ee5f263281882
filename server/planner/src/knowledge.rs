//! Questions about the user's documents: what to look up, and the answer from the passages
//! retrieved — their own sentences, quoted with the chunk id they come from, or plainly that the
//! documents hold no evidence. The planner never paraphrases a document, so it cannot misstate one.

use crate::text::stem;
use aware_core::runs::router::{DOCUMENT_WORDS, words};
use aware_domain::knowledge::{KnowledgeChunk, KnowledgeResults};

/// Words of a question that are not its topic.
const FUNCTION_WORDS: [&str; 44] = [
    "what",
    "which",
    "who",
    "when",
    "where",
    "why",
    "how",
    "does",
    "do",
    "did",
    "is",
    "are",
    "was",
    "the",
    "a",
    "an",
    "our",
    "my",
    "your",
    "their",
    "say",
    "says",
    "said",
    "tell",
    "me",
    "us",
    "about",
    "according",
    "to",
    "in",
    "on",
    "of",
    "for",
    "explain",
    "explains",
    "state",
    "states",
    "cover",
    "covers",
    "there",
    "anything",
    "please",
    "can",
    "you",
];

/// Sections quoted in an answer, at most.
const QUOTED: usize = 2;
/// A section of at most this many sentences is quoted whole.
const WHOLE_SECTION: usize = 8;
/// Sentences quoted from a longer section, at most.
const LONG_SECTION: usize = 8;

/// What to look up for a question: the words after "about" ("what does the handbook say about
/// refunds?" → "refunds"), else its words that are neither function words nor document words.
pub(crate) fn topic(question: &str) -> String {
    let said = words(question);
    if let Some(i) = said.iter().rposition(|w| w == "about")
        && i + 1 < said.len()
    {
        return said[i + 1..].join(" ");
    }
    said.into_iter()
        .filter(|w| !FUNCTION_WORDS.contains(&w.as_str()) && !DOCUMENT_WORDS.contains(&w.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One sentence (or list item) of a section, with the passage it starts in.
struct Sentence {
    text: String,
    chunk_id: String,
}

/// A passage's number within its document (`handbook::007` → 7).
fn number(chunk: &KnowledgeChunk) -> u64 {
    chunk.chunk_id.rsplit("::").next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// The section's passages joined into its text (each passage repeats up to the last hundred
/// characters of the one before), with the passage each character first appears in.
fn joined(section: &[&KnowledgeChunk]) -> (Vec<char>, Vec<usize>) {
    let mut text: Vec<char> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (k, chunk) in section.iter().enumerate() {
        let next: Vec<char> = chunk.text.chars().collect();
        // The longest end of the text so far that this passage starts with.
        let shared = (1..=next.len().min(text.len())).rev().find(|&n| text[text.len() - n..] == next[..n]).unwrap_or(0);
        // Passages that do not follow each other (one between was not retrieved) are apart.
        if shared == 0 && !text.is_empty() {
            text.push('\n');
            owner.push(k);
        }
        for &c in &next[shared..] {
            text.push(c);
            owner.push(k);
        }
    }
    (text, owner)
}

/// The section's whole sentences and list items, without Markdown headings: a piece cut at
/// the start or end of what was retrieved is left out, never quoted in half.
fn section_sentences(section: &[&KnowledgeChunk]) -> Vec<Sentence> {
    let (text, owner) = joined(section);
    let at_start = section.first().is_some_and(|c| c.text.trim_start().starts_with('#'));
    let mut out = Vec::new();
    let mut line_start = 0;
    while line_start < text.len() {
        let line_end = (line_start..text.len()).find(|&i| text[i] == '\n').unwrap_or(text.len());
        let ended_line = line_end < text.len();
        let mut i = line_start;
        while i < line_end && (text[i].is_whitespace() || matches!(text[i], '-' | '*' | '>')) {
            i += 1;
        }
        if i < line_end && text[i] != '#' {
            let mut start = i;
            while start < line_end {
                let mut end = start;
                while end < line_end
                    && !(matches!(text[end], '.' | '!' | '?') && (end + 1 == line_end || text[end + 1].is_whitespace()))
                {
                    end += 1;
                }
                let closed = end < line_end;
                let stop = if closed { end + 1 } else { line_end };
                let piece: String = text[start..stop].iter().collect::<String>().trim().to_owned();
                // Whole: it starts where a sentence starts and ends with its stop or its line.
                let whole_start = start > 0 || at_start || text[start].is_uppercase() || text[start].is_ascii_digit();
                let whole_end = closed || ended_line;
                if !piece.is_empty() && whole_start && whole_end {
                    out.push(Sentence { text: piece, chunk_id: section[owner[start]].chunk_id.clone() });
                }
                start = stop;
                while start < line_end && text[start].is_whitespace() {
                    start += 1;
                }
            }
        }
        line_start = line_end + 1;
    }
    out
}

/// The answer from a retrieval: each of the best sections the passages come from, quoted in
/// whole sentences with the passage each comes from — the whole section when it is short, its
/// sentences about the topic when it is long; or that the documents hold no evidence.
pub(crate) fn answer(results: &KnowledgeResults) -> String {
    if results.documents_searched == 0 {
        // Documents that exist but cannot be searched yet are not "no documents".
        if !results.note.is_empty() {
            return format!(
                "I could not search your documents yet ({}), so I cannot say what they hold: ask again in a moment.",
                results.note
            );
        }
        return "You have no documents to answer from yet: upload a Markdown or text file (a handbook, a policy) \
                and ask again."
            .to_owned();
    }
    let topic: Vec<String> = words(&results.query).iter().map(|w| stem(w)).collect();
    // Sections in the order their first passage was retrieved, passages in document order.
    let mut sections: Vec<Vec<&KnowledgeChunk>> = Vec::new();
    for c in &results.chunks {
        match sections.iter_mut().find(|s| s[0].dataset_id == c.dataset_id && s[0].heading == c.heading) {
            Some(s) => s.push(c),
            None => sections.push(vec![c]),
        }
    }
    let mut quoted: Vec<String> = Vec::new();
    for mut section in sections {
        if quoted.len() == QUOTED {
            break;
        }
        section.sort_by_key(|c| number(c));
        let sentences = section_sentences(&section);
        let about = |s: &Sentence| {
            let said: Vec<String> = words(&s.text).iter().map(|w| stem(w)).collect();
            topic.iter().filter(|t| said.contains(t)).count()
        };
        let relevant = sentences.iter().any(|s| about(s) > 0);
        let chosen: Vec<&Sentence> = if relevant && sentences.len() <= WHOLE_SECTION {
            sentences.iter().collect()
        } else if relevant {
            // Its opening rule ("Returns are accepted within 30 days …") and every sentence on the
            // topic.
            sentences
                .iter()
                .enumerate()
                .filter(|(k, s)| *k == 0 || about(s) > 0)
                .map(|(_, s)| s)
                .take(LONG_SECTION)
                .collect()
        } else if quoted.is_empty() {
            // Found by meaning alone, sharing no word with the question: its opening sentence,
            // so the person sees what was found.
            sentences.iter().take(1).collect()
        } else {
            Vec::new()
        };
        if chosen.is_empty() {
            continue;
        }
        let first = section[0];
        let under = if first.heading.is_empty() || first.heading == first.title {
            String::new()
        } else {
            format!(", under “{}”", first.heading)
        };
        let cited: Vec<String> = chosen.iter().map(|s| format!("“{}” [{}]", s.text, s.chunk_id)).collect();
        quoted.push(format!("{}{under}: {}", first.title, cited.join(" ")));
    }
    if quoted.is_empty() {
        let limited = if results.note.is_empty() { String::new() } else { format!(" (Note: {}.)", results.note) };
        return format!(
            "I lack sufficient evidence to answer that: no passage of your {} searchable document{} covers “{}”.{limited}",
            results.documents_searched,
            if results.documents_searched == 1 { "" } else { "s" },
            results.query
        );
    }
    format!("Here is what your documents say.\n\n{}", quoted.join("\n\n"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn results(chunks: Vec<KnowledgeChunk>) -> KnowledgeResults {
        KnowledgeResults {
            query: "refunds".into(),
            chunks,
            documents_searched: 1,
            note: String::new(),
            mode: "lexical".into(),
        }
    }

    fn chunk(id: &str, heading: &str, text: &str) -> KnowledgeChunk {
        KnowledgeChunk {
            chunk_id: id.into(),
            dataset_id: "ds".into(),
            document_name: "handbook.md".into(),
            title: "Acme Handbook".into(),
            heading: heading.into(),
            text: text.into(),
            snippet: String::new(),
            score: 1.0,
        }
    }

    #[test]
    fn the_topic_is_what_the_question_is_about() {
        assert_eq!(topic("What does the handbook say about refunds?"), "refunds");
        assert_eq!(topic("According to the docs, how long does shipping take?"), "long shipping take");
    }

    #[test]
    fn the_answer_quotes_the_sentences_about_the_topic_with_their_chunk_ids() {
        let r = results(vec![chunk(
            "handbook::001",
            "Refunds",
            "## Refunds\n\nWe value our customers. Refunds are issued within 14 days of a return. Items must be unused.",
        )]);
        assert_eq!(
            answer(&r),
            "Here is what your documents say.\n\nAcme Handbook, under “Refunds”: “We value our customers.” \
             [handbook::001] “Refunds are issued within 14 days of a return.” [handbook::001] “Items must be unused.” \
             [handbook::001]"
        );
        // A section in three overlapping passages, the first cut mid-sentence where the one
        // before it was not retrieved: its sentences whole, each cited where it starts, the
        // fragment left out.
        let r = results(vec![
            chunk("handbook::004", "Refunds", "working days of the parcel arriving. Refunds go back to the card."),
            chunk(
                "handbook::003",
                "Refunds",
                "## Refunds\n\nReturns are accepted within 30 days. We refund within 5 working days of the parcel arriving.",
            ),
            chunk("handbook::005", "Refunds", "back to the card. Gift cards are refunded as gift cards."),
        ]);
        assert_eq!(
            answer(&r),
            "Here is what your documents say.\n\nAcme Handbook, under “Refunds”: “Returns are accepted within 30 \
             days.” [handbook::003] “We refund within 5 working days of the parcel arriving.” [handbook::003] \
             “Refunds go back to the card.” [handbook::004] “Gift cards are refunded as gift cards.” [handbook::005]"
        );
        let cut = results(vec![chunk("handbook::009", "Refunds", "of the parcel. Refunds take 14 days. And then the")]);
        assert_eq!(
            answer(&cut),
            "Here is what your documents say.\n\nAcme Handbook, under “Refunds”: “Refunds take 14 days.” [handbook::009]"
        );
        let none = results(vec![]);
        assert!(answer(&none).starts_with("I lack sufficient evidence"), "{}", answer(&none));
        // A document still being indexed is not a document without the answer.
        let waiting = KnowledgeResults {
            documents_searched: 0,
            note: "handbook is still being indexed".into(),
            ..results(vec![])
        };
        assert!(answer(&waiting).starts_with("I could not search your documents yet"), "{}", answer(&waiting));
    }
}
