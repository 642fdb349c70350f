//! `steward user set-password`: the owner's password for the web app's sign-in (the API token
//! signs in too). Reads it from standard input (`password_input`), applies the rule, stores only
//! its Argon2id PHC string under `auth.password` in the store's protected kv table, and signs
//! out every web session, so a password that leaked stops working everywhere at once. A
//! running `steward serve` uses the new password from its next sign-in.
//!
//! Owns: the command's wording and order (nothing is stored unless the password follows the
//! rule). Does not own the rule or the hash (`steward_server::password`) or sessions (the store).

use crate::app;
use crate::config::LoadedConfig;
use anyhow::Context;
use std::process::ExitCode;
use steward_server::password::{PASSWORD_KEY, check_password, hash_password};
use steward_store::{KvStore, SessionStore};

#[derive(clap::Subcommand)]
pub enum UserCommand {
    /// Set the password for the web app's sign-in (at least 12 characters; the API token
    /// keeps working). Reads it from standard input: on a terminal it asks twice without
    /// showing it, otherwise it reads one line (`steward user set-password < file`). Signs out
    /// every web session.
    SetPassword,
}

pub async fn run(loaded: &LoadedConfig, command: UserCommand) -> anyhow::Result<ExitCode> {
    match command {
        UserCommand::SetPassword => set_password(loaded).await,
    }
}

async fn set_password(loaded: &LoadedConfig) -> anyhow::Result<ExitCode> {
    let settings = &loaded.settings;
    let password = crate::password_input::read_new_password().await?;
    // Before anything is opened or written: a refused password changes nothing.
    check_password(&password).map_err(|e| anyhow::anyhow!("{e}; nothing was changed"))?;
    let owner = app::owner_id(settings)?;
    // Argon2 takes tens of milliseconds of CPU: off the async workers.
    let phc = tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .context("hashing the password failed")??;
    let store = app::open_store(settings, app::clock())?;
    store
        .kv_put(PASSWORD_KEY, &phc)
        .await
        .context("cannot store the password")?;
    let ended = store
        .revoke_sessions_of(&owner)
        .await
        .context("the password is set, but the web sessions could not be signed out")?;
    println!("Password set: sign in to the web app with it (or with the API token).");
    match ended {
        0 => println!("No web session was signed in."),
        1 => println!("Signed out 1 web session: sign in again with the new password."),
        n => println!("Signed out {n} web sessions: sign in again with the new password."),
    }
    Ok(ExitCode::SUCCESS)
}
