//! Questions about the user's documents: what to look up, and the answer from the passages
//! retrieved — their own sentences, quoted with the chunk id they come from, or plainly that the
//! documents hold no evidence. The planner never paraphrases a document, so it cannot misstate one.

use crate::text::stem;
use aware_core::knowledge::{KnowledgeChunk, KnowledgeResults};
use aware_core::runs::router::{DOCUMENT_WORDS, words};

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

/// Passages quoted in an answer, at most.
const QUOTED: usize = 2;

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

/// The sentences of a passage, without Markdown heading lines.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let line = line.trim_start_matches(['-', '*', '>', ' ']);
        let mut current = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            current.push(c);
            if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()) {
                out.push(current.trim().to_owned());
                current.clear();
            }
        }
        if !current.trim().is_empty() {
            out.push(current.trim().to_owned());
        }
    }
    out
}

/// The passage's sentences that hold the most of the topic's words, in any form (refund,
/// refunds, refunded; none when none does). `topic` holds the words' stems.
fn best_sentences(chunk: &KnowledgeChunk, topic: &[String]) -> Vec<String> {
    let scored: Vec<(usize, String)> = sentences(&chunk.text)
        .into_iter()
        .map(|s| {
            let said: Vec<String> = words(&s).iter().map(|w| stem(w)).collect();
            (topic.iter().filter(|t| said.contains(t)).count(), s)
        })
        .collect();
    let best = scored.iter().map(|(n, _)| *n).max().unwrap_or(0);
    if best == 0 {
        return Vec::new();
    }
    scored.into_iter().filter(|(n, _)| *n == best).map(|(_, s)| s).take(2).collect()
}

/// The answer from a retrieval: the best sentences of the best passages, quoted and cited; or
/// that the documents hold no evidence for the question.
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
    let topic_words: Vec<String> = words(&results.query).iter().map(|w| stem(w)).collect();
    let mut quoted: Vec<String> = Vec::new();
    let mut said: Vec<String> = Vec::new();
    for chunk in &results.chunks {
        if quoted.len() == QUOTED {
            break;
        }
        // A passage found by meaning alone may share no word with the question: its opening
        // sentence is quoted, so the person sees what was found.
        let mut best = best_sentences(chunk, &topic_words);
        if best.is_empty() && quoted.is_empty() {
            best = sentences(&chunk.text).into_iter().take(1).collect();
        }
        best.retain(|s| !said.contains(s));
        if best.is_empty() {
            continue;
        }
        said.extend(best.iter().cloned());
        let under = if chunk.heading.is_empty() || chunk.heading == chunk.title {
            String::new()
        } else {
            format!(", under “{}”", chunk.heading)
        };
        quoted.push(format!("{}{under}: “{}” [{}]", chunk.title, best.join(" "), chunk.chunk_id));
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
            "Here is what your documents say.\n\nAcme Handbook, under “Refunds”: “Refunds are issued within 14 days of \
             a return.” [handbook::001]"
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
