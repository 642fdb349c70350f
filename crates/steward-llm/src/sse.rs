//! A small incremental Server-Sent Events parser: bytes in (split anywhere), events out.
//!
//! Owns: line splitting (`\n`, `\r\n`, `\r`, even when a `\r\n` pair is split across
//! network chunks), comments, multi-line `data`, the `event` field. Does not own: what the
//! event data means (each wire format module decides) or the HTTP body itself.

/// One dispatched event. `event` is "message" when the server named none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub event: String,
    pub data: String,
}

#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// Bytes of the current, unfinished line. Kept as bytes so a UTF-8 character split
    /// across chunks is decoded only once whole.
    line: Vec<u8>,
    /// The previous chunk ended in '\r': a leading '\n' in the next one is its pair.
    skip_lf: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes held for the current line and event (callers cap this against hostile servers).
    pub fn buffered(&self) -> usize {
        self.line.len() + self.data.len()
    }

    /// Feed a chunk; completed events are appended to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) {
        let mut rest = chunk;
        // An empty chunk says nothing about whether the pending '\r' has a '\n' partner.
        if self.skip_lf && !rest.is_empty() {
            self.skip_lf = false;
            if let Some(stripped) = rest.strip_prefix(b"\n") {
                rest = stripped;
            }
        }
        while let Some(pos) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..pos]);
            let was_cr = rest[pos] == b'\r';
            rest = &rest[pos + 1..];
            if was_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out);
        }
        self.line.extend_from_slice(rest);
    }

    /// End of body: a final event missing its blank line is still delivered, because some
    /// servers close the stream right after the last `data:` line.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out);
        }
        self.dispatch(out);
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => value.clone_into(&mut self.event),
            // id and retry matter for reconnecting EventSource clients; a model call never
            // reconnects mid-answer, so they are ignored like unknown fields.
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            return;
        }
        self.has_data = false;
        out.push(SseEvent {
            event: if event.is_empty() {
                "message".to_owned()
            } else {
                event
            },
            data: std::mem::take(&mut self.data),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in chunks {
            p.push(c, &mut out);
        }
        p.finish(&mut out);
        out
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn parses_basic_events_comments_and_multiline_data() {
        let body =
            b": keep-alive\n\ndata: one\n\nevent: delta\ndata: a\ndata:b\n\ndata: [DONE]\n\n";
        assert_eq!(
            parse_all(&[body]),
            vec![
                ev("message", "one"),
                ev("delta", "a\nb"),
                ev("message", "[DONE]")
            ]
        );
    }

    #[test]
    fn handles_crlf_and_lone_cr_even_when_split() {
        assert_eq!(
            parse_all(&[b"data: x\r", b"\n\r", b"\ndata: y\r\r"]),
            vec![ev("message", "x"), ev("message", "y")]
        );
    }

    #[test]
    fn event_without_data_is_not_dispatched_and_name_resets() {
        assert_eq!(
            parse_all(&[b"event: ping\n\ndata: z\n\n"]),
            vec![ev("message", "z")]
        );
    }

    #[test]
    fn keeps_multibyte_chars_split_across_chunks() {
        let body = "data: héllo ✓\n\n".as_bytes();
        let (a, b) = body.split_at(8); // inside 'é'
        assert_eq!(parse_all(&[a, b]), vec![ev("message", "héllo ✓")]);
    }

    #[test]
    fn final_event_without_blank_line_is_delivered() {
        assert_eq!(parse_all(&[b"data: last"]), vec![ev("message", "last")]);
    }

    fn arb_body() -> impl Strategy<Value = Vec<u8>> {
        let line = prop_oneof![
            "[a-z é✓{}\":,]{0,12}".prop_map(|s| format!("data: {s}")),
            "[a-z_]{1,8}".prop_map(|s| format!("event: {s}")),
            "[a-z ]{0,8}".prop_map(|s| format!(":{s}")),
            Just(String::new()),
            Just("data".to_owned()),
        ];
        let eol = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
        proptest::collection::vec((line, eol), 0..24).prop_map(|lines| {
            lines
                .into_iter()
                .flat_map(|(l, e)| format!("{l}{e}").into_bytes())
                .collect()
        })
    }

    proptest! {
        #[test]
        fn splitting_anywhere_gives_the_same_events(
            body in arb_body(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            let whole = parse_all(&[&body]);
            let mut points: Vec<usize> = cuts.iter().map(|i| i.index(body.len() + 1)).collect();
            points.sort_unstable();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut start = 0;
            for p in points {
                chunks.push(&body[start..p]);
                start = p;
            }
            chunks.push(&body[start..]);
            prop_assert_eq!(parse_all(&chunks), whole);
        }
    }
}
