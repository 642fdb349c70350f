//! `calculate`: the tool wrapper around the arithmetic evaluator in `expr`.
//! Owns the schema and the answer format; the grammar lives in `expr`.

use super::{expr, format_number};
use crate::args::str_arg;
use crate::{OutputTrust, Tool, ToolContext, ToolError};
use serde_json::{Value, json};
use steward_protocol::Effect;

pub struct Calculate;

#[async_trait::async_trait]
impl Tool for Calculate {
    fn name(&self) -> &str {
        "calculate"
    }
    fn description(&self) -> &str {
        "Evaluate arithmetic: + - * / % ^ ( ), pi, e, sqrt abs round floor ceil ln log10 log2 \
         sin cos tan asin acos atan exp min max (radians)."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"expression": {"type": "string", "maxLength": expr::MAX_LEN}},
            "required": ["expression"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let expression = str_arg(&args, "expression")?;
        // A bad expression is the model's to fix, so it is an argument error.
        expr::evaluate(expression)
            .map(format_number)
            .map_err(ToolError::InvalidArguments)
    }
}
