//! How a turn reads in plain text (the OpenAI-compatible content, logs). Folding a turn's
//! events is `steward_core::TurnView`'s, the one projection every surface uses.

/// How one tool call reads in plain text (the OpenAI-compatible content, logs).
pub(crate) fn tool_line(name: &str, ok: bool, touched: Option<&str>) -> String {
    let mark = if ok { "ok" } else { "failed" };
    match touched {
        Some(t) => format!("[tool] {name} ({mark}): {t}"),
        None => format!("[tool] {name} ({mark})"),
    }
}

/// `tool_line` for a call of the view.
pub(crate) fn view_line(t: &steward_core::ToolView) -> String {
    tool_line(
        &t.name,
        t.status == steward_core::ToolStatus::Ok,
        t.touched.as_deref(),
    )
}
