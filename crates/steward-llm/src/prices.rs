//! What a model call costs: the price rule (`UsdPerMillion`), a model's `Price`, and the
//! `PriceTable` (built-in defaults for common models, overridden per `"provider:model"` by
//! the owner's configuration) that turns a call's `Usage` into micro-USD.
//!
//! Owns: the built-in prices, the lookup (an override by its exact `provider:model`, else a
//! built-in by model name or a dated snapshot of it) and the arithmetic (exact integers,
//! rounded once per call). Does not own: where costs are kept (steward-store's ledger) or
//! when they are recorded (steward-core).
//!
//! A model with no price has no cost (`None`), never $0: a local model is free, an unknown
//! cloud model is not, and only the owner knows which it is.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use steward_protocol::Usage;

/// Highest accepted price, in USD per million tokens (the dearest model listed below costs
/// 75): a guard against a typo of a few zeros, not a judgement.
pub const MAX_USD_PER_MILLION: f64 = 10_000.0;

/// Micro-USD in one USD.
const MICRO: f64 = 1_000_000.0;

/// Built-in prices, USD per million tokens (input, output), from the vendors' public price
/// pages as of November 2025 (OpenAI, Anthropic, Google AI for developers; standard tier, no
/// batch or cache discounts). Gemini 2.5 Pro: the price of prompts up to 200k tokens.
/// Update them here when the vendors change theirs; the owner overrides any of them with
/// `prices."provider:model"` in steward.toml.
const BUILTIN: &[(&str, f64, f64)] = &[
    // OpenAI.
    ("gpt-5", 1.25, 10.0),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5-nano", 0.05, 0.40),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-4o", 2.50, 10.0),
    ("gpt-4o-mini", 0.15, 0.60),
    ("o1", 15.0, 60.0),
    ("o3", 2.0, 8.0),
    ("o3-mini", 1.10, 4.40),
    ("o4-mini", 1.10, 4.40),
    // Anthropic.
    ("claude-opus-4-5", 5.0, 25.0),
    ("claude-opus-4-1", 15.0, 75.0),
    ("claude-opus-4-0", 15.0, 75.0),
    ("claude-opus-4", 15.0, 75.0),
    ("claude-sonnet-4-5", 3.0, 15.0),
    ("claude-sonnet-4-0", 3.0, 15.0),
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-3-7-sonnet", 3.0, 15.0),
    ("claude-haiku-4-5", 1.0, 5.0),
    ("claude-3-5-haiku", 0.80, 4.0),
    // Google Gemini.
    ("gemini-2.5-pro", 1.25, 10.0),
    ("gemini-2.5-flash", 0.30, 2.50),
    ("gemini-2.5-flash-lite", 0.10, 0.40),
    ("gemini-2.0-flash", 0.10, 0.40),
    ("gemini-2.0-flash-lite", 0.075, 0.30),
];

/// A price refused by the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a price must be a number of US dollars per million tokens from 0 to 10000")]
pub struct PriceError;

/// US dollars per million tokens, kept exactly as micro-USD per million tokens (six
/// decimals; finer is rounded). One rule: a finite number from 0 to `MAX_USD_PER_MILLION`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UsdPerMillion(u64);

impl UsdPerMillion {
    pub fn parse(usd: f64) -> Result<UsdPerMillion, PriceError> {
        if !usd.is_finite() || !(0.0..=MAX_USD_PER_MILLION).contains(&usd) {
            return Err(PriceError);
        }
        // In range, so the product fits easily; `as` only drops the (rounded) fraction.
        Ok(UsdPerMillion((usd * MICRO).round() as u64))
    }

    /// Micro-USD per million tokens, which is the same number as pico-USD per token.
    pub fn micro_usd_per_million(self) -> u64 {
        self.0
    }
}

impl fmt::Display for UsdPerMillion {
    /// As a person writes it: `2.5`, `0.075`, `10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, frac) = (self.0 / 1_000_000, self.0 % 1_000_000);
        if frac == 0 {
            return write!(f, "{whole}");
        }
        let frac = format!("{frac:06}");
        write!(f, "{whole}.{}", frac.trim_end_matches('0'))
    }
}

/// What one model charges per million input and output tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Price {
    pub input: UsdPerMillion,
    pub output: UsdPerMillion,
}

impl Price {
    pub fn usd_per_million(input: f64, output: f64) -> Result<Price, PriceError> {
        Ok(Price {
            input: UsdPerMillion::parse(input)?,
            output: UsdPerMillion::parse(output)?,
        })
    }

    /// The cost of `usage` in micro-USD, rounded half up once for the whole call (the
    /// products are exact integers in pico-USD first).
    pub fn cost_micro_usd(&self, usage: Usage) -> u64 {
        let pico = u128::from(usage.input_tokens) * u128::from(self.input.0)
            + u128::from(usage.output_tokens) * u128::from(self.output.0);
        u64::try_from((pico + 500_000) / 1_000_000).unwrap_or(u64::MAX)
    }
}

/// Where a model's price came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceSource {
    /// The owner's `prices."provider:model"`.
    Configured,
    /// Steward's built-in list, under this model name.
    BuiltIn(&'static str),
}

/// The built-in prices with the owner's overrides. Cheap to clone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriceTable {
    /// Exact `"provider:model"` → price.
    overrides: Arc<BTreeMap<String, Price>>,
}

impl PriceTable {
    /// The built-in prices, no overrides.
    pub fn builtin() -> PriceTable {
        PriceTable::default()
    }

    /// This table with `model` (`"provider:model"`, matched exactly) at `price`.
    pub fn with_override(mut self, model: impl Into<String>, price: Price) -> PriceTable {
        Arc::make_mut(&mut self.overrides).insert(model.into(), price);
        self
    }

    /// Every built-in price as (model name, USD per million input, output), for the docs.
    pub fn builtin_list() -> &'static [(&'static str, f64, f64)] {
        BUILTIN
    }

    /// The price of `model` (`"provider:model"`): the owner's override for exactly that
    /// name, else the built-in price of its model name or of the model it is a dated
    /// snapshot of (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`, `…-latest`, `…-001`),
    /// whichever provider serves it. None: no price.
    pub fn price_of(&self, model: &str) -> Option<(Price, PriceSource)> {
        if let Some(p) = self.overrides.get(model) {
            return Some((*p, PriceSource::Configured));
        }
        let name = model.split_once(':').map_or(model, |(_, m)| m);
        BUILTIN
            .iter()
            .filter(|(base, _, _)| {
                name == *base
                    || name
                        .strip_prefix(base)
                        .and_then(|rest| rest.strip_prefix('-'))
                        .is_some_and(is_snapshot_suffix)
            })
            .max_by_key(|(base, _, _)| base.len())
            .and_then(|(base, input, output)| {
                let price = Price::usd_per_million(*input, *output).ok()?;
                Some((price, PriceSource::BuiltIn(base)))
            })
    }

    /// What `usage` of `model` cost, in micro-USD; None when the model has no price.
    pub fn cost_micro_usd(&self, model: &str, usage: Usage) -> Option<u64> {
        self.price_of(model).map(|(p, _)| p.cost_micro_usd(usage))
    }
}

/// A snapshot's suffix: `latest`, a date (`20250514`, `2024-08-06`) or a three-digit
/// version (`001`). Anything else (`mini`, `6`, `preview-05-20`) is another model.
fn is_snapshot_suffix(s: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match s.len() {
        _ if s == "latest" => true,
        3 | 8 => digits(s),
        10 => {
            let b = s.as_bytes();
            b[4] == b'-' && b[7] == b'-' && digits(&s[..4]) && digits(&s[5..7]) && digits(&s[8..])
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
        }
    }

    #[test]
    fn every_builtin_price_passes_the_rule_and_names_are_unique() {
        let mut names: Vec<&str> = BUILTIN.iter().map(|(n, _, _)| *n).collect();
        for (name, input, output) in BUILTIN {
            assert!(Price::usd_per_million(*input, *output).is_ok(), "{name}");
        }
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }

    #[test]
    fn the_rule_refuses_what_is_not_a_price() {
        for bad in [-0.01, f64::NAN, f64::INFINITY, 10_000.01] {
            assert_eq!(UsdPerMillion::parse(bad), Err(PriceError), "{bad}");
        }
        assert_eq!(UsdPerMillion::parse(0.0).unwrap().to_string(), "0");
        assert_eq!(UsdPerMillion::parse(10_000.0).unwrap().to_string(), "10000");
        assert_eq!(UsdPerMillion::parse(2.5).unwrap().to_string(), "2.5");
        assert_eq!(UsdPerMillion::parse(0.075).unwrap().to_string(), "0.075");
        // Six decimals are kept; finer is rounded.
        assert_eq!(
            UsdPerMillion::parse(0.0000004)
                .unwrap()
                .micro_usd_per_million(),
            0
        );
        assert_eq!(
            UsdPerMillion::parse(0.0000006)
                .unwrap()
                .micro_usd_per_million(),
            1
        );
    }

    #[test]
    fn cost_is_exact_and_rounded_once_per_call() {
        let p = Price::usd_per_million(2.5, 10.0).unwrap();
        // 1000 × 2.5 + 500 × 10 = 7500 micro-USD.
        assert_eq!(p.cost_micro_usd(usage(1000, 500)), 7_500);
        let cheap = Price::usd_per_million(0.075, 0.30).unwrap();
        // 7 × 0.075 + 3 × 0.3 = 1.425 → 1; 13 × 0.075 = 0.975 → 1; 6 × 0.075 = 0.45 → 0.
        assert_eq!(cheap.cost_micro_usd(usage(7, 3)), 1);
        assert_eq!(cheap.cost_micro_usd(usage(13, 0)), 1);
        assert_eq!(cheap.cost_micro_usd(usage(6, 0)), 0);
        let dear = Price::usd_per_million(MAX_USD_PER_MILLION, MAX_USD_PER_MILLION).unwrap();
        assert_eq!(dear.cost_micro_usd(usage(u64::MAX, u64::MAX)), u64::MAX);
    }

    #[test]
    fn builtins_match_names_and_dated_snapshots_only() {
        let t = PriceTable::builtin();
        let price = |m: &str| t.price_of(m).map(|(p, s)| (p.input.to_string(), s));
        assert_eq!(
            price("openai:gpt-4o"),
            Some(("2.5".into(), PriceSource::BuiltIn("gpt-4o")))
        );
        assert_eq!(
            price("openai:gpt-4o-mini"),
            Some(("0.15".into(), PriceSource::BuiltIn("gpt-4o-mini")))
        );
        assert_eq!(
            price("work:gpt-4o-2024-08-06"),
            Some(("2.5".into(), PriceSource::BuiltIn("gpt-4o")))
        );
        assert_eq!(
            price("anthropic:claude-sonnet-4-20250514"),
            Some(("3".into(), PriceSource::BuiltIn("claude-sonnet-4")))
        );
        assert_eq!(
            price("anthropic:claude-opus-4-5-20251101"),
            Some(("5".into(), PriceSource::BuiltIn("claude-opus-4-5")))
        );
        assert_eq!(
            price("anthropic:claude-3-5-haiku-latest"),
            Some(("0.8".into(), PriceSource::BuiltIn("claude-3-5-haiku")))
        );
        assert_eq!(
            price("gemini:gemini-2.0-flash-001"),
            Some(("0.1".into(), PriceSource::BuiltIn("gemini-2.0-flash")))
        );
        // Not a snapshot: another model, so no price rather than its sibling's.
        for other in [
            "anthropic:claude-opus-4-6",
            "openai:gpt-4o-audio-preview",
            "openai:gpt-4.1-turbo",
            "gemini:gemini-2.5-flash-preview-05-20",
            "ollama:llama3.2",
            "openai:",
        ] {
            assert_eq!(price(other), None, "{other}");
        }
        // No provider: the whole text is the model name.
        assert_eq!(
            price("gpt-4o"),
            Some(("2.5".into(), PriceSource::BuiltIn("gpt-4o")))
        );
    }

    #[test]
    fn an_override_wins_for_its_exact_name_only() {
        let cheap = Price::usd_per_million(1.0, 2.0).unwrap();
        let t = PriceTable::builtin()
            .with_override("work:gpt-4o", cheap)
            .with_override("ollama:llama3.2", Price::usd_per_million(0.0, 0.0).unwrap());
        assert_eq!(
            t.price_of("work:gpt-4o"),
            Some((cheap, PriceSource::Configured))
        );
        assert_eq!(
            t.cost_micro_usd("work:gpt-4o", usage(1000, 1000)),
            Some(3_000)
        );
        // Another provider's gpt-4o keeps the built-in price.
        assert_eq!(
            t.cost_micro_usd("openai:gpt-4o", usage(1000, 1000)),
            Some(12_500)
        );
        assert_eq!(
            t.cost_micro_usd("ollama:llama3.2", usage(5000, 5000)),
            Some(0)
        );
        assert_eq!(t.cost_micro_usd("ollama:qwen3:8b", usage(5, 5)), None);
        // The built-in table itself is untouched by a clone's override.
        assert_eq!(
            PriceTable::builtin().price_of("work:gpt-4o").map(|p| p.1),
            Some(PriceSource::BuiltIn("gpt-4o"))
        );
    }
}
