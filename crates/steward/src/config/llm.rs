//! Mapping from `Settings` to the model layer's `ProviderConfig`s.
//!
//! Owns: the timeouts chosen for provider clients. Does not own: building `Models`
//! (the binary and `doctor` do) or retry policy.

use std::time::Duration;

use steward_llm::{ProviderConfig, ProviderKind};

use super::settings::{ProviderKindSetting, Settings};

/// How long establishing a connection to a provider may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One `ProviderConfig` per configured provider (built-ins and user-defined), with
/// `request_timeout = model_timeout` and a 10 s connect timeout.
pub fn provider_configs(settings: &Settings) -> Vec<ProviderConfig> {
    settings
        .providers
        .iter()
        .map(|p| ProviderConfig {
            name: p.name.clone(),
            kind: match p.kind {
                ProviderKindSetting::OpenAi => ProviderKind::OpenAi,
                ProviderKindSetting::Anthropic => ProviderKind::Anthropic,
                ProviderKindSetting::Gemini => ProviderKind::Gemini,
            },
            base_url: p.base_url.clone(),
            api_key: p.api_key.clone(),
            stream: p.stream,
            request_timeout: settings.model_timeout,
            connect_timeout: CONNECT_TIMEOUT,
            parts: p.parts.clone(),
        })
        .collect()
}
