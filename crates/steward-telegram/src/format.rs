//! TEMPORARY stand-in for the format module (replaced at merge).
pub const MESSAGE_LIMIT: usize = 4096;
pub fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
pub fn telegram_messages(markdown: &str) -> Vec<String> {
    vec![escape_html(markdown)]
}
pub fn draft_text(partial: &str, _limit: usize) -> String {
    partial.to_owned()
}
