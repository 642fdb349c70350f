//! `steward serve`: the HTTP surfaces, until SIGTERM or Ctrl-C; then running turns get
//! up to `shutdown_grace_secs` to finish before they are cancelled.

use crate::app;
use crate::config::LoadedConfig;
use crate::token::{self, TokenOrigin};
use anyhow::Context;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use steward_server::{ConnLimits, ServerConfig, WebSignIn};
use tokio_util::sync::CancellationToken;

/// How soon a setting changed by another process is in force here.
pub const SETTINGS_FOLLOW: Duration = Duration::from_secs(15);

pub async fn run(loaded: &LoadedConfig) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let settings = &loaded.settings;
    app::init_logging(&settings.log);
    let app = app::build(loaded, app::Overrides::default()).await?;
    // Crash recovery now; the expiry sweep is the scheduler's `approvals` job (jobs_wiring).
    let interrupted = app
        .steward
        .start_approvals(None)
        .await
        .map_err(|e| anyhow::anyhow!("cannot start the approval gate: {e}"))?;
    if interrupted > 0 {
        eprintln!(
            "{interrupted} approved action(s) were interrupted by the last shutdown; marked failed, not re-run (their conversations were told)."
        );
    }
    let (api_token, origin) = token::resolve(settings.api_token.as_deref(), &settings.data_dir)?;
    match &origin {
        TokenOrigin::Configured => {}
        TokenOrigin::Stored(path) => eprintln!("API token: stored in {}", path.display()),
        // Printed this once; afterwards only its location is shown.
        TokenOrigin::Generated(path) => eprintln!(
            "Generated an API token (saved in {}; shown only this once):\n  {api_token}",
            path.display()
        ),
    }
    let listener = tokio::net::TcpListener::bind(settings.http_addr)
        .await
        .with_context(|| {
            format!(
                "cannot listen on {} (in use? set STEWARD_HTTP_ADDR to another address)",
                settings.http_addr
            )
        })?;
    let addr = listener.local_addr()?;
    let model_label = app.steward.model_label();
    let stop = CancellationToken::new();
    // One memory desk for the memory routes and for other MCP clients at /mcp (behind the
    // same API token, which authenticates the owner).
    let memory: Arc<dyn steward_core::MemoryDesk> =
        Arc::new(steward_core::MemoryService::new(app.memory.clone()));
    let telegram = crate::telegram_wiring::start(&app, settings, memory.clone(), &stop)?;
    // After the surfaces register their deliverers: a reminder due at start is sent, not
    // only stored.
    let jobs = crate::jobs_wiring::start(&app, settings, &stop)?;
    let jobs_desk = Arc::new(crate::jobs_desk::AppJobsDesk::new(
        jobs.clone(),
        app.store.clone(),
        app.clock.clone(),
    ));
    let _ = app
        .settings
        .on_change(Arc::new(move |s: &crate::config::Settings| jobs.apply(s)));
    // Settings another process keeps in the database (`steward jobs disable`, a second
    // replica's Settings page) come into force here within `SETTINGS_FOLLOW`.
    {
        let settings = app.settings.clone();
        let stop = stop.child_token();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(SETTINGS_FOLLOW) => {}
                }
                if let Err(e) = settings.follow_store().await {
                    tracing::warn!(error = %e, "could not read the settings kept in the database");
                }
            }
        });
    }
    let mcp = steward_mcp::StewardServer::new(memory.clone())?
        .http_router(settings.max_body_bytes, stop.child_token());
    let router = steward_server::router(
        Arc::new(app.steward.clone()),
        Arc::new(app.steward.clone()),
        ServerConfig {
            api_token,
            owner: app::owner_id(settings)?,
            max_body_bytes: settings.max_body_bytes,
            memory: Some(memory),
            mcp: Some(mcp),
            cors_origins: settings.http.cors_origins.clone(),
            conversations: Some(Arc::new(app.steward.clone())),
            feed: Some(Arc::new(app.steward.clone())),
            clock: app.clock.clone(),
            parts: app.part_limits,
            settings: Some(app.settings.clone()),
            sign_in: Some(WebSignIn {
                sessions: app.store.clone(),
                secrets: app.store.clone(),
            }),
            trusted_proxy: settings.http.trusted_proxy,
            mini_app: telegram.as_ref().map(|t| t.mini_app.clone()),
            telegram_webhook: telegram.as_ref().and_then(|t| t.webhook.clone()),
            status: Some(Arc::new(crate::status::AppStatus::new(
                &app,
                app::database_path(settings),
                crate::logging::recent::installed(),
            ))),
            jobs: Some(jobs_desk),
        },
    );
    let limits = ConnLimits {
        header_timeout: settings.http.header_timeout,
        idle_timeout: settings.http.idle_timeout,
        max_connections: settings.http.max_connections,
        max_connections_per_ip: settings.http.max_connections_per_ip,
    };
    let server = tokio::spawn(steward_server::serve_with(
        listener,
        router,
        limits,
        stop.clone().cancelled_owned(),
    ));
    match &model_label {
        Some(m) => eprintln!("Steward listening on http://{addr} (model {m})"),
        None => eprintln!(
            "Steward listening on http://{addr} (no model configured: set STEWARD_MODEL; `steward doctor` helps)"
        ),
    }
    eprintln!(
        "Web app: http://{addr}/ (sign in with the API token, or a password set by `steward user set-password`)"
    );
    tracing::info!(%addr, ready_ms = started.elapsed().as_millis() as u64, "ready");

    wait_for_signal().await;
    eprintln!(
        "Shutting down: letting running turns finish (up to {} s)…",
        settings.shutdown_grace.as_secs()
    );
    stop.cancel();
    app.steward.shutdown(settings.shutdown_grace).await;
    if let Some(t) = telegram {
        // Both end on `stop`: a long poll is cut, the card watcher leaves its loop.
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            if let Some(poller) = t.poller {
                let _ = poller.await;
            }
            let _ = t.cards.await;
        })
        .await;
    }
    match tokio::time::timeout(Duration::from_secs(5), server).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => tracing::warn!(error = %e, "server stopped with an error"),
        Ok(Err(e)) => tracing::warn!(error = %e, "server task failed"),
        Err(_) => tracing::warn!("open connections did not close in time; exiting anyway"),
    }
    // MCP sessions end properly: DELETE for HTTP servers, SIGTERM to stdio servers' groups.
    if let Some(mcp) = &app.mcp
        && !mcp.shutdown_and_wait(Duration::from_secs(5)).await
    {
        tracing::warn!("some MCP sessions did not end in time; exiting anyway");
    }
    eprintln!("Stopped.");
    Ok(ExitCode::SUCCESS)
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
