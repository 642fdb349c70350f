//! The scripted turn every surface's projection is pinned by (the multipath table's "turn
//! projection" row): text in two deltas, a call that succeeds and one that fails (each with
//! what it touched), a card, then the answer. Each surface's tests fold it and must show
//! exactly `PINNED_*`.

use steward_protocol::{ActionCard, ActionKind, ConversationId, TurnEvent, TurnId, Usage};

pub const PINNED_TEXT: &str = "Here it is.";
/// (name, ok, touched) of each call, in order.
pub const PINNED_TOOLS: &[(&str, bool, &str)] = &[
    ("fetch_url", true, "https://example.org/a"),
    ("db_query", false, "SELECT 1"),
];
pub const PINNED_CARD: &str = "act-pinned";

/// The pinning stream for `conversation`.
pub fn pinning_turn(conversation: &ConversationId) -> Vec<TurnEvent> {
    let mut out = vec![
        TurnEvent::Started {
            conversation_id: conversation.clone(),
            turn_id: TurnId::from_u128(0x7e57),
        },
        TurnEvent::TextDelta {
            text: "Here ".into(),
        },
    ];
    for (i, (name, ok, touched)) in PINNED_TOOLS.iter().enumerate() {
        out.push(TurnEvent::ToolStarted {
            call_id: format!("call-{i}"),
            name: (*name).into(),
            arguments: "{}".into(),
            touched: Some((*touched).into()),
        });
        out.push(TurnEvent::ToolFinished {
            call_id: format!("call-{i}"),
            name: (*name).into(),
            ok: *ok,
            output: if *ok { "fine".into() } else { "refused".into() },
        });
    }
    out.push(TurnEvent::ApprovalRequired {
        card: ActionCard {
            action_id: PINNED_CARD.into(),
            kind: ActionKind::Tool,
            tool: "db_execute".into(),
            text: "Run db_execute?".into(),
            expires_at_ms: 4_000_000_000_000,
            confirmable: true,
            revision: 0,
        },
    });
    out.push(TurnEvent::TextDelta {
        text: "it is.".into(),
    });
    out.push(TurnEvent::Final {
        text: PINNED_TEXT.into(),
        usage: Usage {
            input_tokens: 10,
            output_tokens: 3,
        },
        model: "pinned-model".into(),
    });
    out
}
