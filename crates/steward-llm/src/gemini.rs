//! Google Gemini `generateContent` / `streamGenerateContent`: request body (contents,
//! function declarations with a cleaned schema), plain and streamed answers, probe.
//!
//! Owns: this one wire format, including synthesized tool-call ids (Gemini has none) and
//! carrying Gemini's thought signatures through those ids. Does not own: HTTP plumbing
//! (`http`), retries (`models`).

use crate::PartBytes;
use crate::call::{self, Streamed, Wire};
use crate::http::Http;
use crate::parts::{self, PartSupport};
use crate::sse::SseEvent;
use crate::{
    ChatRequest, ChatResponse, FinishReason, LlmError, ModelProvider, ProviderConfig, TextSink,
};
use serde::Deserialize;
use serde_json::{Value, json};
use steward_protocol::{Message, MimeType, Role, ToolCall, Usage};
use tokio_util::sync::CancellationToken;

/// Separates a synthesized call id from the thought signature Gemini attached to the call.
/// Gemini 3 rejects a conversation whose function calls come back without their
/// signatures, and `ToolCall.id` is the only field that travels back to us unchanged.
const SIGNATURE_SEP: char = '|';

/// JSON-schema keys Gemini's `parameters` schema rejects.
const UNSUPPORTED_SCHEMA_KEYS: [&str; 4] = ["$schema", "$id", "$comment", "additionalProperties"];

pub(crate) struct Gemini {
    http: Http,
    parts: PartSupport,
}

impl Gemini {
    pub fn new(cfg: &ProviderConfig) -> Result<Self, LlmError> {
        // The key goes in a header only: URLs end up in logs and error messages.
        let auth: Vec<(&'static str, String)> = cfg
            .api_key
            .iter()
            .filter(|k| !k.is_empty())
            .map(|k| ("x-goog-api-key", k.clone()))
            .collect();
        Ok(Gemini {
            http: Http::new(cfg, &auth)?,
            parts: PartSupport::of(cfg),
        })
    }
}

/// The model goes into the URL path, so only plain model-name characters are allowed.
fn model_path(model: &str) -> Result<&str, LlmError> {
    let m = model.strip_prefix("models/").unwrap_or(model);
    let ok = !m.is_empty()
        && m.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    if ok {
        Ok(m)
    } else {
        Err(LlmError::Config(format!(
            "{model:?} is not a valid Gemini model name"
        )))
    }
}

/// Remove schema keys Gemini rejects, walking only schema positions so that a property
/// that happens to be *named* e.g. "additionalProperties" survives.
pub(crate) fn clean_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = serde_json::Map::new();
    for (k, v) in map {
        if UNSUPPORTED_SCHEMA_KEYS.contains(&k.as_str()) {
            continue;
        }
        let cleaned = match (k.as_str(), v) {
            ("properties", Value::Object(props)) => Value::Object(
                props
                    .iter()
                    .map(|(name, s)| (name.clone(), clean_schema(s)))
                    .collect(),
            ),
            ("items", _) => clean_schema(v),
            ("anyOf" | "oneOf" | "allOf", Value::Array(list)) => {
                Value::Array(list.iter().map(clean_schema).collect())
            }
            _ => v.clone(),
        };
        out.insert(k.clone(), cleaned);
    }
    Value::Object(out)
}

fn function_call_part(c: &ToolCall) -> Value {
    let args = match serde_json::from_str::<Value>(&c.arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ if c.arguments.trim().is_empty() => json!({}),
        _ => json!({ "_raw": c.arguments }),
    };
    let mut part = json!({"functionCall": {"name": c.name, "args": args}});
    if let Some((_, sig)) = c.id.split_once(SIGNATURE_SEP) {
        part["thoughtSignature"] = json!(sig);
    }
    part
}

/// Contents with roles "user"/"model"; consecutive same-role turns merged.
pub(crate) fn contents(msgs: &[Message], bytes: &PartBytes) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        let (role, parts) = match m.role {
            Role::User if !m.attachments.is_empty() => ("user", user_parts(m, bytes)),
            Role::User => (
                "user",
                text_part(&m.content).into_iter().collect::<Vec<_>>(),
            ),
            Role::Assistant => {
                let mut parts: Vec<Value> = text_part(&m.content).into_iter().collect();
                parts.extend(m.tool_calls.iter().map(function_call_part));
                ("model", parts)
            }
            Role::Tool => {
                let name = m
                    .tool_name
                    .clone()
                    .or_else(|| tool_name_for(&msgs[..i], m.tool_call_id.as_deref()))
                    .unwrap_or_default();
                let part =
                    json!({"functionResponse": {"name": name, "response": {"content": m.content}}});
                ("user", vec![part])
            }
        };
        if parts.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last_role, last_parts)) if *last_role == role => last_parts.extend(parts),
            _ => out.push((role, parts)),
        }
    }
    out.into_iter()
        .map(|(role, parts)| json!({"role": role, "parts": parts}))
        .collect()
}

/// A tool result without a stored name: find the call it answers.
fn tool_name_for(earlier: &[Message], id: Option<&str>) -> Option<String> {
    let id = id?;
    earlier
        .iter()
        .rev()
        .flat_map(|m| m.tool_calls.iter())
        .find(|c| c.id == id)
        .map(|c| c.name.clone())
}

/// A user message with parts: the text (with placeholders for parts not sent), then one
/// `inlineData` part ({mimeType, data}) per part sent. Gemini documents MP3 as `audio/mp3`.
fn user_parts(m: &Message, bytes: &PartBytes) -> Vec<Value> {
    let (text, inline) = parts::encode_parts(m, bytes, |a, data| {
        let mime = match a.mime_type().as_str() {
            "audio/mpeg" => "audio/mp3",
            "image/gif" | "audio/webm" | "audio/mp4" => return None,
            other => other,
        };
        Some(json!({"inlineData": {"mimeType": mime, "data": parts::base64(data)}}))
    });
    let mut out: Vec<Value> = text_part(&text).into_iter().collect();
    out.extend(inline);
    out
}

fn text_part(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"text": text}))
}

fn body(req: &ChatRequest) -> Value {
    let mut body = json!({"contents": contents(&req.messages, &req.parts)});
    if !req.system.is_empty() {
        body["systemInstruction"] = json!({"parts": [{"text": req.system}]});
    }
    if !req.tools.is_empty() {
        let decls: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "parameters": clean_schema(&t.parameters)}))
            .collect();
        body["tools"] = json!([{ "functionDeclarations": decls }]);
    }
    let mut gen_config = serde_json::Map::new();
    if let Some(max) = req.max_output_tokens {
        gen_config.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(t) = req.temperature {
        gen_config.insert("temperature".into(), json!(t));
    }
    if !gen_config.is_empty() {
        body["generationConfig"] = Value::Object(gen_config);
    }
    body
}

#[async_trait::async_trait]
impl ModelProvider for Gemini {
    fn name(&self) -> &str {
        &self.http.name
    }

    async fn chat(
        &self,
        model: &str,
        req: &ChatRequest,
        on_text: Option<TextSink<'_>>,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        let url = |streaming: bool| {
            let path = model_path(model)?;
            let base = &self.http.base_url;
            Ok(if streaming {
                format!("{base}/v1beta/models/{path}:streamGenerateContent?alt=sse")
            } else {
                format!("{base}/v1beta/models/{path}:generateContent")
            })
        };
        call::chat::<Self>(&self.http, model, on_text, cancel, url, |_| body(req)).await
    }

    async fn probe(&self) -> Result<(), LlmError> {
        call::probe(&self.http, "/v1beta/models").await
    }

    fn accepts(&self, mime: MimeType) -> bool {
        self.parts.accepts(mime)
    }
}

// pub(crate) only because it is named in the `Wire` impl.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenResponse {
    #[serde(default)]
    candidates: Vec<Candidate>,
    usage_metadata: Option<UsageMeta>,
    prompt_feedback: Option<PromptFeedback>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    block_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    content: Option<Content>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    parts: Vec<Part>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    text: Option<String>,
    /// Thought summaries are not part of the answer.
    #[serde(default)]
    thought: bool,
    function_call: Option<FunctionCall>,
    thought_signature: Option<String>,
}

#[derive(Deserialize)]
struct FunctionCall {
    id: Option<String>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    args: Value,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct UsageMeta {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    /// Thinking tokens are billed as output.
    #[serde(default)]
    thoughts_token_count: u64,
}

type Accumulator<'a> = Streamed<'a, Gemini>;

impl Accumulator<'_> {
    /// Fold one (full or streamed) response in: texts concatenate, calls append.
    fn apply(&mut self, g: GenResponse) -> Result<(), LlmError> {
        if let Some(u) = g.usage_metadata {
            // Streamed counts are cumulative: the latest replaces the earlier.
            self.usage = Usage {
                input_tokens: u.prompt_token_count,
                output_tokens: u.candidates_token_count + u.thoughts_token_count,
            };
        }
        if let Some(reason) = g.prompt_feedback.and_then(|p| p.block_reason) {
            self.finish = Some(format!("blocked: {reason}"));
        }
        let Some(candidate) = g.candidates.into_iter().next() else {
            return Ok(());
        };
        for part in candidate.content.map(|c| c.parts).unwrap_or_default() {
            if let Some(fc) = part.function_call {
                let base = fc
                    .id
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| format!("call_{}", self.calls.len()));
                let id = match part.thought_signature {
                    Some(sig) => format!("{base}{SIGNATURE_SEP}{sig}"),
                    None => base,
                };
                let args = if fc.args.is_null() {
                    json!({})
                } else {
                    fc.args
                };
                self.calls.push(ToolCall {
                    id,
                    name: fc.name,
                    arguments: args.to_string(),
                });
            } else if let Some(text) = part.text.filter(|_| !part.thought) {
                self.push_text(&text);
            }
        }
        if let Some(reason) = candidate.finish_reason {
            self.finish = Some(reason);
        }
        Ok(())
    }
}

impl Wire for Gemini {
    type Call = ToolCall;
    type Whole = GenResponse;

    fn on_event(acc: &mut Accumulator<'_>, ev: SseEvent) -> Result<bool, LlmError> {
        let value: Value = serde_json::from_str(&ev.data)
            .map_err(|e| call::decode_error(format!("invalid stream chunk ({e})")))?;
        if let Some(err) = value.get("error") {
            return Err(call::stream_error(call::code_status(err), err));
        }
        let chunk: GenResponse = serde_json::from_value(value)
            .map_err(|e| call::decode_error(format!("unexpected stream chunk ({e})")))?;
        acc.apply(chunk)?;
        // Gemini has no end marker: the body simply ends after the finishing chunk.
        Ok(false)
    }

    fn response(acc: Accumulator<'_>, model: String) -> ChatResponse {
        let has_calls = !acc.calls.is_empty();
        let finish = match acc.finish.as_deref() {
            _ if has_calls => FinishReason::ToolCalls,
            Some("STOP") | None => FinishReason::Stop,
            Some("MAX_TOKENS") => FinishReason::Length,
            Some(other) => FinishReason::Other(other.to_owned()),
        };
        ChatResponse {
            text: acc.text,
            tool_calls: acc.calls,
            usage: acc.usage,
            model,
            finish,
        }
    }

    fn from_whole(g: GenResponse, model: String) -> Result<ChatResponse, LlmError> {
        // Whole and streamed answers share one reading, so they cannot drift apart.
        let mut acc = Accumulator::new(None);
        acc.apply(g)?;
        Ok(acc.into_response(model))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_cleaning_is_recursive_but_spares_property_names() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "additionalProperties": {"type": "string"},
                "list": {"type": "array", "items": {"type": "object", "additionalProperties": false, "properties": {}}},
                "either": {"anyOf": [{"type": "object", "$comment": "x"}]}
            }
        });
        let cleaned = clean_schema(&schema);
        assert!(cleaned.get("$schema").is_none());
        assert!(cleaned.get("additionalProperties").is_none());
        assert_eq!(
            cleaned["properties"]["additionalProperties"],
            json!({"type": "string"})
        );
        assert!(
            cleaned["properties"]["list"]["items"]
                .get("additionalProperties")
                .is_none()
        );
        assert!(
            cleaned["properties"]["either"]["anyOf"][0]
                .get("$comment")
                .is_none()
        );
        assert_eq!(cleaned["type"], "object");
    }

    #[test]
    fn thought_signature_round_trips_through_the_call_id() {
        let g: GenResponse = serde_json::from_value(json!({
            "candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "clock", "args": {"tz": "UTC"}}, "thoughtSignature": "c2ln"}
            ]}, "finishReason": "STOP"}]
        }))
        .unwrap();
        let mut acc = Accumulator::new(None);
        acc.apply(g).unwrap();
        let resp = acc.into_response("gemini:m".into());
        assert_eq!(resp.finish, FinishReason::ToolCalls);
        let call = &resp.tool_calls[0];
        assert!(call.id.starts_with("call_0"));
        let part = function_call_part(call);
        assert_eq!(part["thoughtSignature"], "c2ln");
        assert_eq!(part["functionCall"]["args"], json!({"tz": "UTC"}));
    }

    #[test]
    fn rejects_model_names_that_could_escape_the_path() {
        assert_eq!(
            model_path("models/gemini-2.5-flash").unwrap(),
            "gemini-2.5-flash"
        );
        assert!(model_path("../x").is_err());
        assert!(model_path("a?b").is_err());
    }
}
