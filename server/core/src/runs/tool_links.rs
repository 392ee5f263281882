//! External tools chosen by what they do. A registered MCP server's tool is offered to a
//! request the router read confidently only when the request names it ("use issues.search …") —
//! or, here, when the request's meaning is close to the tool's own words (its name, title and
//! description), compared with the in-process embedder. "Find open issues about login in our
//! repo" reaches a tool that searches a repository's issues; "average charges by plan" does not.
//! A linked tool goes through the same gate as any other: scopes, roles, modes, confirmations.

use crate::Result;
use crate::runs::tools::Tool;
use aware_domain::ports::search_index::Embedder;
use std::sync::Arc;

/// The embedding model [`LINK`] was measured with: with another one (a remote embedder), no
/// request is linked by meaning — its scores mean something else, and the question would leave
/// the machine for it.
pub const CALIBRATED_FOR: &str = "all-MiniLM-L6-v2";

/// How close (cosine of all-MiniLM-L6-v2's unit vectors) a request must be to a tool's words.
/// Measured on 10 requests × 6 tools of three servers (BENCHMARKS §14): the related pairs scored
/// 0.20, 0.22, 0.37 and 0.54, the unrelated ones at most 0.14 — the two weaker related requests
/// are not linked (a router unsure of a request offers every tool anyway).
pub const LINK: f32 = 0.25;

/// The most tools one request is linked to (descriptions come from other servers: none of them
/// can crowd the offer).
pub const MOST: usize = 3;

/// The words a tool is known by: its name's parts ("search issues"), title and description.
fn words_of(tool: &dyn Tool) -> String {
    let meta = tool.meta();
    let name = meta.name.as_str();
    let short = name.rsplit('.').next().unwrap_or(name).replace(['_', '-'], " ");
    format!("{short}: {}. {}", meta.title, meta.description)
}

/// The names of `tools` whose words are within [`LINK`] of `question`, closest first, at most
/// [`MOST`]; none unless `embedder` is the model the threshold was measured with.
pub async fn linked(embedder: &dyn Embedder, question: &str, tools: &[Arc<dyn Tool>]) -> Result<Vec<String>> {
    if tools.is_empty() || question.trim().is_empty() || embedder.model() != CALIBRATED_FOR {
        return Ok(Vec::new());
    }
    let mut texts = vec![question.to_owned()];
    texts.extend(tools.iter().map(|t| words_of(t.as_ref())));
    let vectors = embedder.embed(texts).await?;
    let Some((asked, described)) = vectors.split_first() else {
        return Ok(Vec::new());
    };
    let mut scored: Vec<(f32, String)> = tools
        .iter()
        .zip(described)
        .map(|(t, v)| (asked.iter().zip(v).map(|(a, b)| a * b).sum::<f32>(), t.meta().name.as_str().to_owned()))
        .filter(|(score, _)| *score >= LINK)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(scored.into_iter().take(MOST).map(|(_, name)| name).collect())
}
