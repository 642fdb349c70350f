//! The upkeep subcommands: reflection (needs a model), retention (a dry run unless applied)
//! and the embedding backfill. Does not own argument parsing (`memory_cmd`) or the logic they
//! run (`steward_memory`).

use super::{Opened, failure, snippet, terminal_safe};
use crate::config::{Settings, provider_configs};
use crate::words::count;
use anyhow::bail;
use std::process::ExitCode;
use std::time::Duration;
use steward_llm::{ModelRef, Models, RetryPolicy};
use steward_memory::RetentionPlan;
use steward_protocol::Fact;

const DAY_SECS: u64 = 24 * 60 * 60;

pub(super) async fn reflect(
    o: &Opened,
    settings: &Settings,
    since_hours: u32,
) -> anyhow::Result<ExitCode> {
    let Some(model) = settings
        .memory
        .extraction_model
        .as_deref()
        .or(settings.model.as_deref())
    else {
        bail!(
            "reflection needs a model: set STEWARD_MODEL (or memory.extraction_model in steward.toml); `steward doctor` helps"
        );
    };
    let models = Models::new(
        provider_configs(settings),
        RetryPolicy {
            max_retries: settings.model_retries,
            ..RetryPolicy::default()
        },
    )?;
    let model = ModelRef::parse(model)?;
    models.check(&model)?;
    let since_ms = o.memory.now_ms() - i64::from(since_hours) * 60 * 60 * 1000;
    let r = o
        .memory
        .reflect(&models, &model, o.who.as_str(), since_ms)
        .await?;
    if r.messages == 0 {
        println!(
            "nothing to reflect on since {} ago",
            count(since_hours as usize, "hour", "hours")
        );
        return Ok(ExitCode::SUCCESS);
    }
    let f = &r.facts;
    println!(
        "reflected on {}: facts {} new, {} updated, {} unchanged, {} kept as the user set them; \
         {}, {}, {}; {} refused, {} skipped",
        count(r.messages, "message", "messages"),
        f.inserted,
        f.updated,
        f.unchanged,
        f.kept_user_fact,
        count(r.learnings, "learning", "learnings"),
        count(r.intentions, "intention", "intentions"),
        count(r.summaries, "summary", "summaries"),
        r.refused.len(),
        r.skipped
    );
    for refusal in &r.refused {
        println!(
            "refused {}: {}",
            terminal_safe(&refusal.key),
            refusal.reason.as_str()
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) async fn retention(
    o: &Opened,
    expired: bool,
    prefixes: Vec<String>,
    unseen_days: Vec<u32>,
    apply: bool,
) -> anyhow::Result<ExitCode> {
    if prefixes.len() != unseen_days.len() {
        bail!("give exactly one --unseen-days D for each --prefix P");
    }
    if !expired && prefixes.is_empty() {
        bail!("nothing to sweep: give --expired and/or --prefix P --unseen-days D");
    }
    let plan = RetentionPlan {
        user: o.who.as_str().to_owned(),
        expired_facts: expired,
        prefixes: prefixes
            .into_iter()
            .zip(unseen_days)
            .map(|(p, d)| (p, Duration::from_secs(u64::from(d) * DAY_SECS)))
            .collect(),
    };
    // `retention` validates the whole plan before deleting anything.
    let report = o.memory.retention(&plan, !apply).await?;
    let verb = if apply { "deleted" } else { "would delete" };
    let line = |f: &Fact, why: &str| {
        println!(
            "{verb}: {} = {}  ({why})",
            f.key,
            terminal_safe(&snippet(&f.value, 120))
        );
    };
    for f in &report.expired {
        line(f, "expired");
    }
    for (prefix, facts) in &report.by_prefix {
        for f in facts {
            line(f, &format!("unseen under {prefix}"));
        }
    }
    let n = report.total();
    let facts = count(n, "fact", "facts");
    if apply {
        println!("{facts} deleted");
    } else {
        println!("{facts} would be deleted (dry run; add --apply to delete them)");
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) async fn backfill(o: &Opened) -> anyhow::Result<ExitCode> {
    let Some(model) = o.memory.embedder_id().map(str::to_owned) else {
        return failure(
            "no embedding model: put the MiniLM files in <data_dir>/models/all-MiniLM-L6-v2 \
             (or set STEWARD_EMBED_MODEL_DIR, or memory.embedder to a remote model); \
             see scripts/fetch-model.sh",
        );
    };
    let total = o.memory.backfill_all().await?;
    println!("added {} for {model}", count(total, "vector", "vectors"));
    Ok(ExitCode::SUCCESS)
}
