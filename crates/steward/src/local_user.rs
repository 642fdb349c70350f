//! The terminal's authentication step: `steward chat`, `steward approvals`, `steward memory`
//! and `steward mcp serve` (stdio) act for the local user who runs them. Whoever can run this
//! binary against this data directory can read the database anyway, so the local user is
//! the owner; this is the one place these surfaces make their `Principal`.
//!
//! Owns: that mapping. Does not own: the owner's id (`app::owner_id`, from the `owner`
//! setting) or the HTTP surface's identity (`steward_server`'s bearer check).

use crate::app;
use crate::config::Settings;
use steward_protocol::Principal;

/// The principal the terminal surfaces act for: the owner.
pub fn principal(settings: &Settings) -> anyhow::Result<Principal> {
    Ok(Principal::authenticated(app::owner_id(settings)?))
}
