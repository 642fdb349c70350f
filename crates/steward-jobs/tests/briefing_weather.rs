//! The briefing's weather line, when a tool offers it: a read-only tool named in the settings
//! is called in code with the configured arguments and its first line opens the morning
//! briefing, as plain text; with nothing else to say the tool is not even called; a tool that
//! is not read-only is never called; a failing or missing tool leaves the briefing without.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use steward_jobs::Job;
use steward_jobs::jobs::{BriefingJob, Period, ToolWeather};
use steward_protocol::{Effect, Principal};
use steward_tools::{Tool, ToolContext, ToolError, ToolRegistry};

use crate::briefing_support::{HOUR, MONDAY, Rig, rig};

const MORNING: i64 = MONDAY + 6 * HOUR + 30 * 60_000;

struct Forecast {
    name: &'static str,
    effect: Effect,
    answer: Result<&'static str, &'static str>,
    calls: AtomicUsize,
    args: Mutex<Vec<Value>>,
}

impl Forecast {
    fn arc(
        name: &'static str,
        effect: Effect,
        answer: Result<&'static str, &'static str>,
    ) -> Arc<Forecast> {
        Arc::new(Forecast {
            name,
            effect,
            answer,
            calls: AtomicUsize::new(0),
            args: Mutex::default(),
        })
    }
}

#[async_trait::async_trait]
impl Tool for Forecast {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> &str {
        "Today's forecast for a city."
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    }

    fn effect(&self) -> Effect {
        self.effect
    }

    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.args.lock().unwrap().push(args);
        self.answer
            .map(str::to_owned)
            .map_err(|e| ToolError::Failed(e.to_owned()))
    }
}

fn briefing(r: &Rig, tools: &Arc<ToolRegistry>, tool: &str) -> BriefingJob {
    let weather = ToolWeather::new(
        Arc::clone(tools),
        tool.to_owned(),
        json!({"city": "Lyon"}),
        Principal::authenticated(r.owner.clone()),
        "Europe/Berlin".to_owned(),
    );
    BriefingJob::new(
        r.store.clone(),
        r.voice.clone(),
        r.owner.clone(),
        r.zone.clone(),
        Period::Day,
    )
    .with_weather(Arc::new(weather))
}

fn registry(tools: &[Arc<Forecast>]) -> Arc<ToolRegistry> {
    let mut reg = ToolRegistry::new();
    for t in tools {
        reg.register(t.clone()).unwrap();
    }
    Arc::new(reg)
}

#[tokio::test]
async fn a_read_only_weather_tool_opens_the_morning_briefing_as_plain_text() {
    let r = rig(MORNING);
    r.home().await;
    r.reminder("today", "water the plants", MONDAY + 8 * HOUR)
        .await;
    let forecast = Forecast::arc(
        "forecast",
        Effect::Read,
        Ok("Lyon: 6°C, light rain [tap](https://evil.example)\nsecond line"),
    );
    let tools = registry(std::slice::from_ref(&forecast));
    briefing(&r, &tools, "forecast")
        .run(&r.ctx("briefing", MORNING))
        .await
        .unwrap();
    assert_eq!(forecast.calls.load(Ordering::SeqCst), 1);
    assert_eq!(forecast.args.lock().unwrap()[0], json!({"city": "Lyon"}));
    let said = r.speaker.said.lock().unwrap().clone();
    assert_eq!(said.len(), 1);
    let text = &said[0].1.text;
    let second = text.lines().nth(1).unwrap_or_default();
    assert!(
        second.starts_with("Weather: Lyon: 6°C, light rain"),
        "{text}"
    );
    assert!(
        second.contains("\\[tap\\](https://evil.example)"),
        "a link from the tool is plain text: {text}"
    );
    assert!(!text.contains("second line"), "{text}");
    assert!(text.contains("water the plants"), "{text}");
}

#[tokio::test]
async fn weather_alone_is_not_news_and_the_tool_is_not_called() {
    let r = rig(MORNING);
    r.home().await;
    let forecast = Forecast::arc("forecast", Effect::Read, Ok("sunny"));
    let tools = registry(std::slice::from_ref(&forecast));
    let out = briefing(&r, &tools, "forecast")
        .run(&r.ctx("briefing", MORNING))
        .await
        .unwrap();
    assert_eq!(
        out,
        steward_jobs::JobOutcome::Nothing("nothing to brief".into())
    );
    assert_eq!(forecast.calls.load(Ordering::SeqCst), 0);
    assert_eq!(r.speaker.count(), 0);
}

#[tokio::test]
async fn a_tool_that_is_not_read_only_or_fails_or_is_missing_leaves_the_briefing_without() {
    for (tool, expect_calls) in [("post_weather", 0), ("broken", 1), ("missing", 0)] {
        let r = rig(MORNING);
        r.home().await;
        r.reminder("today", "water the plants", MONDAY + 8 * HOUR)
            .await;
        let writer = Forecast::arc("post_weather", Effect::Write, Ok("posted"));
        let broken = Forecast::arc("broken", Effect::Read, Err("upstream 503"));
        let tools = registry(&[writer.clone(), broken.clone()]);
        briefing(&r, &tools, tool)
            .run(&r.ctx("briefing", MORNING))
            .await
            .unwrap();
        let calls = writer.calls.load(Ordering::SeqCst) + broken.calls.load(Ordering::SeqCst);
        assert_eq!(calls, expect_calls, "{tool}");
        assert_eq!(
            writer.calls.load(Ordering::SeqCst),
            0,
            "a write is never called"
        );
        let said = r.speaker.said.lock().unwrap().clone();
        assert_eq!(said.len(), 1, "{tool}: the briefing still goes");
        assert!(
            !said[0].1.text.contains("Weather:"),
            "{tool}: {}",
            said[0].1.text
        );
    }
}
