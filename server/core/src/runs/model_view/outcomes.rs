//! The results a model reads for a tool call that did not simply run. They are stored in the
//! transcript, so a run continued after a restart reads the same words.

use crate::policy::{Refusal, Withdrawal};
use crate::{Error, ErrorCode};

/// A person denied the confirmation.
pub const DENIED: &str = "Action denied by user.";
/// A person dismissed a clarification (none of the options), or nobody answered it in time.
pub const UNCLARIFIED: &str = "The user did not choose between the options, so which one they meant is unknown: do not guess; say what \
     was ambiguous and ask them to name it.";
/// Nobody answered the confirmation in time.
pub const EXPIRED: &str = "Action not taken: the confirmation expired before anyone approved it.";
/// The run was cancelled (or superseded) before the tool ran.
pub const CANCELLED: &str = "Action not taken: the run was cancelled.";
/// The run was cancelled while a tool with side effects was running.
pub const CANCELLED_WHILE_RUNNING: &str =
    "The run was cancelled while the tool was running; it may or may not have taken effect.";
/// The server stopped between a tool's intent row and its result: at most once means never again.
pub const UNKNOWN_OUTCOME: &str =
    "Outcome unknown: the tool was interrupted by a server restart and was not run again.";
/// The run ended (cancelled, failed, out of turns) before the model's call was reached.
pub const NOT_RUN: &str = "Not run: the run ended first.";

/// Why the policy gate did not run a call.
pub fn refused(refusal: &Refusal) -> String {
    match refusal {
        Refusal::NoSuchTool(name) => format!("There is no tool named {name}."),
        Refusal::NotForRole(tool) => format!("{tool} is not allowed for your role."),
        Refusal::NotForThisRequest(tool) => format!("{tool} is not available for this request."),
        Refusal::ScopeNotMapped(tool) | Refusal::ScopeNotAllowedEnvironment(tool) => {
            format!("Tool {tool} was not permitted in this context.")
        }
        Refusal::CallLimit(max) => format!("The limit of {max} tool calls per message is reached."),
        Refusal::Withdrawn(tool, Withdrawal::Demoted(role)) => {
            format!("{tool} is no longer allowed: the user's role is now {role}. Nothing was done.")
        }
        Refusal::Withdrawn(tool, Withdrawal::Deactivated) => {
            format!("{tool} is no longer allowed: the user is deactivated. Nothing was done.")
        }
        Refusal::Withdrawn(tool, Withdrawal::KeyRevoked) => format!(
            "{tool} is no longer allowed: the API key this conversation was started with is revoked. Nothing was done."
        ),
    }
}

/// Arguments the tool could not accept.
pub fn invalid_call(e: &Error) -> String {
    format!("Invalid call: {}", e.message)
}

/// The tool ran and failed.
pub fn failed(e: &Error) -> String {
    format!("Error ({}): {}", e.code.as_str(), e.message)
}

/// The error of an approved call whose resource is no longer what the person approved.
pub fn approval_outdated(approved: &str) -> Error {
    Error::new(
        ErrorCode::ResourceChanged,
        format!(
            "What was approved ({approved}) has changed since; nothing was done. Ask again to act on what is there now."
        ),
    )
}

/// The result text of [`approval_outdated`].
pub fn not_done(e: &Error) -> String {
    format!("Not done: {}", e.message)
}

/// The tool's time limit was reached.
pub fn timed_out(limit: std::time::Duration) -> Error {
    let ms = limit.as_millis();
    let said =
        if ms.is_multiple_of(1000) { format!("{} s", ms / 1000) } else { format!("{:.1} s", limit.as_secs_f64()) };
    Error::new(ErrorCode::RunnerTimeout, format!("the tool took longer than {said} and was stopped"))
}

/// Arguments that are not a JSON object (the first 200 characters of what came).
pub fn arguments_not_an_object(arguments: &serde_json::Value) -> Error {
    let shown: String = match arguments.as_str() {
        Some(raw) => raw.chars().take(200).collect(),
        None => arguments.to_string().chars().take(200).collect(),
    };
    Error::validation("arguments", format!("the arguments must be a JSON object; got {shown}"))
}

/// A call's result when the person approved narrower arguments than the model asked for.
pub fn approved_with_edits(edited: &serde_json::Value, summary: &str) -> String {
    format!("The user approved a narrower call than you asked for, with arguments {edited}. {summary}")
}

/// A refusal as the model (and a denied call's card) reads it.
impl std::fmt::Display for crate::policy::Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&refused(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_tool_and_the_reason() {
        assert_eq!(refused(&Refusal::CallLimit(2)), "The limit of 2 tool calls per message is reached.");
        assert_eq!(
            refused(&Refusal::NotForRole("delete_dataset".into())),
            "delete_dataset is not allowed for your role."
        );
        assert_eq!(
            refused(&Refusal::ScopeNotAllowedEnvironment("everything.echo".into())),
            "Tool everything.echo was not permitted in this context."
        );
        assert_eq!(refused(&Refusal::NoSuchTool("rm".into())), "There is no tool named rm.");
        let e = arguments_not_an_object(&serde_json::Value::String("x".repeat(500)));
        assert_eq!(invalid_call(&e).len(), "Invalid call: the arguments must be a JSON object; got ".len() + 200);
    }
}
