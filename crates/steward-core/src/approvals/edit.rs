//! Edits in words: while a card awaits an edit, the user's next message ("make it Friday
//! instead") is turned into new arguments by the model, then goes through `resolve`
//! (`Decision::Revise`) so the originating tool's validator re-checks it. The model only
//! proposes; code decides.

use super::record::Approvals;
use crate::port::{ApprovalError, Resolution};
use crate::settings::ModelBinding;
use steward_llm::{ChatRequest, Models};
use steward_protocol::{Decision, Message, PendingAction, Principal, Surface, Usage};
use tokio_util::sync::CancellationToken;

const REVISE_PROMPT: &str = include_str!("../../prompts/revise.md");

/// The first JSON object in the model's reply (models sometimes wrap it in a fence).
fn extract_object(reply: &str) -> Option<serde_json::Value> {
    let start = reply.find('{')?;
    let end = reply.rfind('}')?;
    if end < start {
        return None;
    }
    match serde_json::from_str::<serde_json::Value>(&reply[start..=end]) {
        Ok(v) if v.is_object() => Some(v),
        _ => None,
    }
}

/// What an edit in words came to, and the model call it made (`"provider:model"` that
/// answered and its usage; None when no call answered), for the turn's usage ledger.
pub(crate) struct EditOutcome {
    pub(crate) resolution: Result<Resolution, ApprovalError>,
    pub(crate) answered: Option<(String, Usage)>,
}

#[allow(clippy::too_many_arguments)]
pub(crate) async fn revise_in_words(
    approvals: &Approvals,
    models: &Models,
    binding: &ModelBinding,
    action: &PendingAction,
    request: &str,
    principal: &Principal,
    surface: Surface,
    cancel: &CancellationToken,
) -> EditOutcome {
    let mut answered = None;
    let resolution = revise(
        approvals,
        models,
        binding,
        action,
        request,
        principal,
        surface,
        cancel,
        &mut answered,
    )
    .await;
    EditOutcome {
        resolution,
        answered,
    }
}

#[allow(clippy::too_many_arguments)]
async fn revise(
    approvals: &Approvals,
    models: &Models,
    binding: &ModelBinding,
    action: &PendingAction,
    request: &str,
    principal: &Principal,
    surface: Surface,
    cancel: &CancellationToken,
    answered: &mut Option<(String, Usage)>,
) -> Result<Resolution, ApprovalError> {
    let Some(primary) = binding.primary.as_ref() else {
        return Err(ApprovalError::Invalid(
            "no model is configured to turn the edit into new arguments; revise the card directly"
                .into(),
        ));
    };
    let schema = approvals
        .tools
        .get(&action.tool)
        .map(|t| t.parameters())
        .unwrap_or(serde_json::Value::Null);
    // The user's words are data for this call, fenced so they cannot pose as the frame (the
    // one escaping rule of every fence, `steward_protocol::untrusted`).
    let fenced = steward_protocol::untrusted::neutralise(request);
    let prompt = format!(
        "Tool: {}\nArgument schema (JSON): {}\nCurrent arguments (JSON): {}\nRequested change:\n<request>\n{}\n</request>",
        action.tool, schema, action.arguments, fenced
    );
    let req = ChatRequest {
        system: REVISE_PROMPT.to_owned(),
        messages: vec![Message::user(prompt)],
        tools: Vec::new(),
        max_output_tokens: Some(1024),
        temperature: Some(0.0),
        parts: Default::default(),
    };
    let reply = models
        .chat(primary, binding.fallback.as_ref(), &req, None, cancel)
        .await
        .map_err(|e| {
            ApprovalError::Invalid(format!("the model could not propose the edit: {e}"))
        })?;
    *answered = Some((reply.model.clone(), reply.usage));
    let arguments = extract_object(&reply.text).ok_or_else(|| {
        ApprovalError::Invalid("the model did not reply with new arguments as a JSON object".into())
    })?;
    approvals
        .resolve(
            &action.id,
            Decision::Revise { arguments },
            principal,
            surface,
            None,
        )
        .await
}

#[cfg(test)]
mod tests {
    use super::extract_object;

    #[test]
    fn extracts_an_object_from_fenced_or_plain_replies() {
        assert_eq!(extract_object(r#"{"a":1}"#).unwrap()["a"], 1);
        assert_eq!(extract_object("```json\n{\"a\": 2}\n```").unwrap()["a"], 2);
        assert!(extract_object("no json here").is_none());
        assert!(extract_object("[1,2]").is_none());
        assert!(extract_object("} {").is_none());
    }
}
