//! The Telegram surface's authentication step: an update the allowlist admitted is from a
//! person the owner named (`telegram.allowed_users`), and acts as the owner — as the API token
//! does on HTTP. This is the only place the surface makes a `Principal`.
//!
//! Owns: that mapping. Does not own: who is admitted (`allowlist`), or the owner's id (the
//! composition root passes it).

use steward_protocol::{Principal, PrincipalId};

use crate::allowlist::Admitted;

/// Makes the principal an admitted update acts as.
#[derive(Debug, Clone)]
pub struct TelegramAuth {
    owner: PrincipalId,
}

impl TelegramAuth {
    pub fn new(owner: PrincipalId) -> Self {
        Self { owner }
    }

    /// The principal `update` acts as. Taking the `Admitted` (which only the allowlist makes
    /// from a live update) keeps an unadmitted sender from ever reaching this.
    pub fn principal(&self, _update: &Admitted) -> Principal {
        Principal::authenticated(self.owner.clone())
    }
}
