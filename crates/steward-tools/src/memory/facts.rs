//! `remember` (a fact the model states on the user's behalf: source extracted, provenance
//! assistant, through `Memory::remember` and so through the quality gate) and `forget`
//! (destructive: the approval gate asks first; its preview shows what would go).
//! Does not own source trust: the store refuses to overwrite a user's own fact.

use super::render::one_line;
use super::{MAX_VALUE_CHARS, Shared, check_key, memory_error, written_by_model};
use crate::args::str_arg;
use crate::{OutputTrust, Reach, Tool, ToolContext, ToolError};
use serde_json::{Value, json};
use steward_protocol::{Effect, FactSource, MAX_FACT_KEY_LEN, ValueKind};
use steward_store::{FactWrite, NewFact};

/// What the model's own claims are worth: above the gate's floor, below a user's word.
pub const REMEMBER_CONFIDENCE: f32 = 0.9;
const SHOWN_VALUE_CHARS: usize = 120;

pub struct Remember(pub(crate) Shared);

#[async_trait::async_trait]
impl Tool for Remember {
    fn name(&self) -> &str {
        "remember"
    }

    fn description(&self) -> &str {
        "Store a lasting fact about the user as key and value (e.g. home.city = Lyon)."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "key": {"type": "string", "minLength": 1, "maxLength": MAX_FACT_KEY_LEN,
                        "description": format!(
                            "{}, e.g. \"diet.allergies\"", ValueKind::FactKey.rule()
                        )},
                "value": {"type": "string", "minLength": 1, "maxLength": MAX_VALUE_CHARS}
            },
            "required": ["key", "value"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::Memory
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn reach(&self, args: &Value) -> Reach {
        let key = args.get("key").and_then(Value::as_str).unwrap_or("");
        let value = args.get("value").and_then(Value::as_str).unwrap_or("");
        Reach {
            remembers: vec![value.to_owned()],
            summary: Some(format!("{key} = {}", one_line(value, 120))),
            ..Reach::default()
        }
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        check_key(str_arg(args, "key")?)?;
        if str_arg(args, "value")?.trim().is_empty() {
            return Err(ToolError::InvalidArguments(
                "argument `value` is empty".to_owned(),
            ));
        }
        Ok(())
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let key = check_key(str_arg(&args, "key")?)?;
        let value = str_arg(&args, "value")?.trim();
        let fact = NewFact {
            key: key.into_string(),
            value: value.to_owned(),
            // The model saying so is a claim, not the user's word: it never outranks what the
            // user set themselves.
            source: FactSource::Extracted,
            confidence: REMEMBER_CONFIDENCE,
            expires_at_ms: None,
            provenance: written_by_model(ctx),
        };
        let write = self
            .0
            .memory
            .remember(ctx.principal.as_str(), fact)
            .await
            .map_err(|e| memory_error(self.name(), e))?;
        Ok(match write {
            FactWrite::Inserted(f) => format!("remembered {} = {}", f.key, shown(&f.value)),
            FactWrite::Updated(f) => format!("updated {} = {}", f.key, shown(&f.value)),
            FactWrite::Unchanged(f) => format!("already known: {} = {}", f.key, shown(&f.value)),
            FactWrite::KeptUserFact(f) => format!(
                "not changed: the user set {} = {} themselves; only they can change it",
                f.key,
                shown(&f.value)
            ),
        })
    }
}

pub struct Forget(pub(crate) Shared);

#[async_trait::async_trait]
impl Tool for Forget {
    fn name(&self) -> &str {
        "forget"
    }

    fn description(&self) -> &str {
        "Delete a stored fact by its key (asks the user first)."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "key": {"type": "string", "minLength": 1, "maxLength": MAX_FACT_KEY_LEN}
            },
            "required": ["key"],
            "additionalProperties": false
        })
    }

    fn effect(&self) -> Effect {
        Effect::Destructive
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }

    fn validate(&self, args: &Value) -> Result<(), ToolError> {
        check_key(str_arg(args, "key")?).map(drop)
    }

    async fn run(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let key = check_key(str_arg(&args, "key")?)?;
        let gone = self
            .0
            .memory
            .forget_fact(ctx.principal.as_str(), key.as_str())
            .await
            .map_err(|e| memory_error(self.name(), e))?;
        if gone {
            Ok(format!("forgot {key}"))
        } else {
            Err(ToolError::Failed(format!("no fact is stored under {key}")))
        }
    }

    /// What the approval card shows: the fact that would go, found by an exact recall of its
    /// key. Changes nothing.
    async fn preview(&self, args: &Value, ctx: &ToolContext) -> Option<Result<String, ToolError>> {
        let key = match str_arg(args, "key") {
            Ok(k) => k,
            Err(e) => return Some(Err(e)),
        };
        Some(self.current(ctx, key).await.map(|found| match found {
            Some((value, source)) => format!(
                "will delete the fact {key} = {} (source {})",
                shown(&value),
                source.as_str()
            ),
            None => format!("no fact is stored under {key}; nothing will change"),
        }))
    }
}

impl Forget {
    /// The stored value and source of `key`, if any.
    async fn current(
        &self,
        ctx: &ToolContext,
        key: &str,
    ) -> Result<Option<(String, FactSource)>, ToolError> {
        let fact = self
            .0
            .memory
            .get_fact(ctx.principal.as_str(), key)
            .await
            .map_err(|e| memory_error(self.name(), e))?;
        Ok(fact.map(|f| (f.value, f.source)))
    }
}

fn shown(value: &str) -> String {
    one_line(value, SHOWN_VALUE_CHARS)
}
