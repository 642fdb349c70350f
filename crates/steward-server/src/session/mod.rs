//! The web app's sessions: signing in (with the API token or the owner's password), the
//! session a cookie names, signing out, the list of sessions and revoking one.
//!
//! Owns: session lifetimes (absolute `LIFETIME`, idle `IDLE_LIMIT`, `last_seen_at` refreshed at
//! most every `TOUCH_EVERY`), the cap on sessions per principal, checking a password without
//! blocking the runtime (Argon2 on the blocking pool, at most `HASHING_AT_ONCE` at a time, and
//! as slow when no password is set as when it is wrong), and the failed-sign-in limit
//! (`limiter`). Does not own: making the `Principal` or the CSRF check (`auth.rs`), the
//! secret's encoding (`secret`), the routes' shapes (`session_routes.rs`), where sessions are
//! kept (the store's `SessionStore`).

mod limiter;
pub(crate) mod secret;

use crate::password::{PASSWORD_KEY, verify_password};
use secret::{CsrfToken, SessionSecret};
use std::fmt;
use std::sync::{Arc, OnceLock};
use steward_protocol::{Clock, PrincipalId};
use steward_store::{KvStore, Session, SessionStore, StoreError};
use tokio::sync::Semaphore;

/// A session ends this long after sign-in, however active (30 days).
pub(crate) const LIFETIME_MS: i64 = 30 * DAY_MS;
/// A session unused this long ends (7 days).
pub(crate) const IDLE_LIMIT_MS: i64 = 7 * DAY_MS;
/// `last_seen_at` is written at most this often per session (1 minute): a busy page must not
/// turn every request into a write.
const TOUCH_EVERY_MS: i64 = 60 * 1000;
const DAY_MS: i64 = 86_400_000;
/// Most sessions one principal keeps; signing in past it ends the least recently used.
const MAX_SESSIONS: usize = 50;
/// Most Argon2 checks at once (each takes ~19 MiB and a core for ~20 ms): a flood of sign-ins
/// queues here instead of filling the blocking pool and the memory.
const HASHING_AT_ONCE: usize = 2;
/// Longest user agent kept, in bytes.
const MAX_USER_AGENT: usize = 256;

/// What the sign-in needs from the store: where sessions live, and the kv table holding the
/// owner's password hash (`password::PASSWORD_KEY`).
#[derive(Clone)]
pub struct WebSignIn {
    pub sessions: Arc<dyn SessionStore>,
    pub secrets: Arc<dyn KvStore>,
}

impl fmt::Debug for WebSignIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebSignIn { .. }")
    }
}

/// The session a request's cookie named, once found live: put in the request's extensions by
/// `auth.rs` for the routes that show or end it.
#[derive(Debug, Clone)]
pub(crate) struct CookieSession {
    pub(crate) id: String,
    pub(crate) csrf: CsrfToken,
    pub(crate) created_at_ms: i64,
    pub(crate) expires_at_ms: i64,
}

/// Sessions at run time: the store, the clock, the failed-sign-in limit.
pub(crate) struct Sessions {
    store: Arc<dyn SessionStore>,
    secrets: Arc<dyn KvStore>,
    clock: Arc<dyn Clock>,
    limiter: limiter::SignInLimiter,
    hashing: Semaphore,
}

impl Sessions {
    pub(crate) fn new(config: WebSignIn, clock: Arc<dyn Clock>) -> Self {
        Self {
            store: config.sessions,
            secrets: config.secrets,
            clock,
            limiter: limiter::SignInLimiter::new(),
            hashing: Semaphore::new(HASHING_AT_ONCE),
        }
    }

    pub(crate) fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The live session `secret` opens for `owner`, refreshing its `last_seen_at` when due.
    /// None for an unknown secret, another principal's session (the owner setting changed
    /// since), or one past its end (deleted on the way).
    pub(crate) async fn find(
        &self,
        secret: &SessionSecret,
        owner: &PrincipalId,
    ) -> Result<Option<CookieSession>, StoreError> {
        let hash = secret.hash_hex();
        let Some(session) = self.store.session_by_secret_hash(&hash).await? else {
            return Ok(None);
        };
        let now = self.now_ms();
        if !is_live(&session, now) {
            self.store.revoke_session_by_secret_hash(&hash).await?;
            return Ok(None);
        }
        if &session.principal != owner {
            return Ok(None);
        }
        if now.saturating_sub(session.last_seen_at_ms) >= TOUCH_EVERY_MS
            && let Err(e) = self.store.touch_session(&session.id, now).await
        {
            // The session is still good; only its "last seen" lags.
            tracing::warn!(error = %e, "could not record a session's last use");
        }
        Ok(Some(CookieSession {
            id: session.id,
            csrf: secret.csrf_token(),
            created_at_ms: session.created_at_ms,
            expires_at_ms: session.expires_at_ms,
        }))
    }

    /// Whether `password` is the owner's. Runs Argon2 on the blocking pool, at most
    /// `HASHING_AT_ONCE` at a time; with no password set it checks against a throwaway hash
    /// so that the answer takes as long as a wrong one.
    pub(crate) async fn password_matches(&self, password: String) -> Result<bool, StoreError> {
        let stored = self.secrets.kv_get(PASSWORD_KEY).await?;
        // The semaphore is never closed; were it, no check would run and nothing would match.
        let Ok(_permit) = self.hashing.acquire().await else {
            return Ok(false);
        };
        let checked = tokio::task::spawn_blocking(move || match stored {
            Some(phc) => verify_password(&password, &phc),
            None => {
                // Same cost, never a match.
                let _ = verify_password(&password, decoy_hash());
                false
            }
        })
        .await?;
        Ok(checked)
    }

    /// A new session for `principal`, after ending the one `previous` named (if any), the
    /// ones past their end, and the least recently used beyond `MAX_SESSIONS`.
    pub(crate) async fn create(
        &self,
        principal: &PrincipalId,
        previous: Option<&SessionSecret>,
        user_agent: Option<&str>,
    ) -> Result<(SessionSecret, Session), CreateError> {
        if let Some(old) = previous {
            self.store
                .revoke_session_by_secret_hash(&old.hash_hex())
                .await?;
        }
        let now = self.now_ms();
        self.store
            .prune_sessions(now, now.saturating_sub(IDLE_LIMIT_MS))
            .await?;
        let secret = SessionSecret::generate().map_err(|_| CreateError::NoRandomness)?;
        let session = Session {
            id: uuid::Uuid::new_v4().to_string(),
            secret_hash: secret.hash_hex(),
            principal: principal.clone(),
            created_at_ms: now,
            last_seen_at_ms: now,
            expires_at_ms: now.saturating_add(LIFETIME_MS),
            user_agent: user_agent.and_then(shown_user_agent),
        };
        self.store.create_session(&session).await?;
        let mut all = self.store.list_sessions(principal).await?;
        if all.len() > MAX_SESSIONS {
            all.sort_by_key(|s| std::cmp::Reverse(s.last_seen_at_ms));
            for stale in all.iter().skip(MAX_SESSIONS).filter(|s| s.id != session.id) {
                self.store.revoke_session(principal, &stale.id).await?;
            }
        }
        Ok((secret, session))
    }

    /// The principal's live sessions, newest first.
    pub(crate) async fn list(&self, principal: &PrincipalId) -> Result<Vec<Session>, StoreError> {
        let now = self.now_ms();
        let mut all = self.store.list_sessions(principal).await?;
        all.retain(|s| is_live(s, now));
        Ok(all)
    }

    pub(crate) async fn revoke(
        &self,
        principal: &PrincipalId,
        id: &str,
    ) -> Result<bool, StoreError> {
        self.store.revoke_session(principal, id).await
    }

    pub(crate) fn limiter(&self) -> &limiter::SignInLimiter {
        &self.limiter
    }
}

/// Why a session could not be made.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CreateError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no secure random source for the session secret")]
    NoRandomness,
}

fn is_live(session: &Session, now_ms: i64) -> bool {
    now_ms < session.expires_at_ms && now_ms.saturating_sub(session.last_seen_at_ms) < IDLE_LIMIT_MS
}

/// The user agent as the session list shows it: control characters dropped, cut to
/// `MAX_USER_AGENT` bytes at a character boundary; None when nothing is left.
fn shown_user_agent(raw: &str) -> Option<String> {
    let mut out = String::new();
    for c in raw.chars().filter(|c| !c.is_control()) {
        if out.len() + c.len_utf8() > MAX_USER_AGENT {
            break;
        }
        out.push(c);
    }
    let out = out.trim().to_owned();
    (!out.is_empty()).then_some(out)
}

/// The PHC string checked when no password is set, made once (one Argon2 run) on first use.
/// What it hashes does not matter: its result is thrown away; only its cost counts.
fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| {
        crate::password::hash_password("steward decoy, never a match").unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agents_are_cleaned_and_bounded() {
        assert_eq!(
            shown_user_agent("Firefox\u{7}\n/1"),
            Some("Firefox/1".into())
        );
        assert_eq!(shown_user_agent(" \t "), None);
        let long = "é".repeat(400);
        let shown = shown_user_agent(&long).unwrap();
        assert!(shown.len() <= MAX_USER_AGENT && shown.chars().all(|c| c == 'é'));
    }

    #[test]
    fn liveness_ends_at_the_absolute_end_and_after_idling() {
        let s = Session {
            id: "s".into(),
            secret_hash: "0".repeat(64),
            principal: PrincipalId::parse("owner").unwrap(),
            created_at_ms: 0,
            last_seen_at_ms: 0,
            expires_at_ms: LIFETIME_MS,
            user_agent: None,
        };
        assert!(is_live(&s, IDLE_LIMIT_MS - 1));
        assert!(!is_live(&s, IDLE_LIMIT_MS));
        let active = Session {
            last_seen_at_ms: LIFETIME_MS - 1,
            ..s
        };
        assert!(is_live(&active, LIFETIME_MS - 1));
        assert!(!is_live(&active, LIFETIME_MS));
    }

    #[test]
    fn the_decoy_costs_what_a_real_hash_costs() {
        let decoy = decoy_hash();
        assert!(
            decoy.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{decoy}"
        );
    }
}
