//! The builtin tools (all `Effect::Read`, cheap and deterministic given the clock they are
//! built with) and small helpers they share: number arguments, quoting and number formatting
//! (string arguments: `crate::args`).
//! Does not own the registry or schema checking; see `crate::registry`.

mod calculate;
mod date_calc;
mod expr;
mod time;
mod units;

use crate::schema::echo;
use crate::{Tool, ToolError, ToolRegistry};
use serde_json::Value;
use std::sync::Arc;
use steward_protocol::{Clock, SystemClock};

pub use calculate::Calculate;
pub use date_calc::DateCalc;
pub use time::{ConvertTime, CurrentTime};
pub use units::UnitConvert;

/// Every builtin, in no particular order (the registry sorts); `current_time` reads `clock`.
pub fn builtin_tools(clock: Arc<dyn Clock>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(CurrentTime::new(clock)),
        Arc::new(ConvertTime),
        Arc::new(DateCalc),
        Arc::new(Calculate),
        Arc::new(UnitConvert),
    ]
}

/// A registry holding all builtins with default limits, on the system clock (tests and tools
/// that need no other clock; the app builds its registry with its own clock).
pub fn builtin_registry() -> ToolRegistry {
    builtin_registry_with(SystemClock::shared())
}

/// [`builtin_registry`] with `current_time` reading `clock`.
pub fn builtin_registry_with(clock: Arc<dyn Clock>) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for tool in builtin_tools(clock) {
        let name = tool.name().to_owned();
        // Builtins have fixed, tested names and schemas; a failure here is a bug we log
        // rather than crash the assistant over.
        if let Err(e) = registry.register(tool) {
            tracing::error!(tool = %name, error = %e, "builtin tool refused by the registry");
        }
    }
    registry
}

pub(crate) fn num_arg(args: &Value, name: &str) -> Result<f64, ToolError> {
    args.get(name).and_then(Value::as_f64).ok_or_else(|| {
        ToolError::InvalidArguments(format!("argument `{name}` (a number) is required"))
    })
}

/// Quote model-supplied text in an error message, bounded and escaped.
pub(crate) fn quoted(s: &str) -> String {
    format!("`{}`", echo(s))
}

/// Numbers for the model: at most 15 significant digits (hides binary noise such as
/// 0.1+0.2 = 0.30000000000000004), plain notation for everyday magnitudes and
/// scientific notation otherwise, never "-0".
pub(crate) fn format_number(x: f64) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    let rounded: f64 = format!("{x:.14e}").parse().unwrap_or(x);
    let magnitude = rounded.abs();
    if !(1e-6..1e15).contains(&magnitude) {
        format!("{rounded:e}")
    } else {
        format!("{rounded}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers_for_humans() {
        let cases = [
            (512.0, "512"),
            (0.1 + 0.2, "0.3"),
            (-0.0, "0"),
            (-2.5, "-2.5"),
            (1e300, "1e300"),
            (1.5e-7, "1.5e-7"),
            (123456.789, "123456.789"),
            (1.0 / 3.0, "0.333333333333333"),
        ];
        for (x, expected) in cases {
            assert_eq!(format_number(x), expected, "{x}");
        }
    }
}
