//! Shared helpers: a TLS provider for reqwest, a pause that records instead of sleeping, a
//! log capture, and starting a poller against a base URL.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use steward_telegram::{
    Admitted, AllowedUsers, Allowlist, BotApi, BotToken, Pause, PollEnd, Poller,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use steward_testkit::telegram::TOKEN;

/// reqwest is built without a default TLS provider and refuses to build a client until one
/// is installed, even for plain http.
pub fn tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

pub fn api(base: &str) -> BotApi {
    tls();
    BotApi::new(
        base,
        BotToken::parse(TOKEN).unwrap(),
        Duration::from_secs(1),
    )
    .unwrap()
}

pub fn allow(ids: &str, groups: bool) -> Allowlist {
    Allowlist {
        users: if ids.is_empty() {
            AllowedUsers::default()
        } else {
            AllowedUsers::parse(ids).unwrap()
        },
        allow_groups: groups,
    }
}

/// Records each wait and returns at once.
#[derive(Clone, Default)]
pub struct RecordedPause(pub Arc<Mutex<Vec<Duration>>>);

#[async_trait::async_trait]
impl Pause for RecordedPause {
    async fn pause(&self, wait: Duration) {
        self.0.lock().unwrap().push(wait);
        tokio::task::yield_now().await;
    }
}

impl RecordedPause {
    pub fn waits(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }
}

/// A running poller: its admitted updates, its cancel switch and its task.
pub struct Running {
    pub admitted: mpsc::Receiver<Admitted>,
    pub cancel: CancellationToken,
    pub task: tokio::task::JoinHandle<PollEnd>,
}

pub fn start<P: Pause + 'static>(base: &str, allowlist: Allowlist, pause: P) -> Running {
    let poller = Poller::new(api(base), allowlist, pause)
        .with_long_poll_secs(1)
        .with_jitter(|| 0.0);
    let (tx, rx) = mpsc::channel(16);
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    let task = tokio::spawn(async move { poller.run(tx, stop).await });
    Running {
        admitted: rx,
        cancel,
        task,
    }
}

impl Running {
    /// The next admitted update; a generous guard against a hang, not a timing assertion.
    pub async fn next(&mut self) -> Admitted {
        tokio::time::timeout(Duration::from_secs(20), self.admitted.recv())
            .await
            .expect("no update admitted in time")
            .expect("poller ended")
    }

    pub async fn stop(self) -> PollEnd {
        self.cancel.cancel();
        self.task.await.unwrap()
    }
}

/// Waits (yielding) until `cond` holds; a guard against a hang, not a timing assertion.
pub async fn until(mut cond: impl FnMut() -> bool) {
    for _ in 0..2000 {
        if cond() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("condition never held");
}

/// Everything logged on this thread while the guard lives (INFO and above).
///
/// One global subscriber writes each event to the capture of the thread that logged it:
/// per-thread subscribers (`set_default`) race with tracing's global callsite cache when
/// tests run in parallel and lose events. The tests' runtimes are current-thread, so a
/// test's tasks log on its own thread.
#[derive(Clone, Default)]
pub struct LogCapture(Arc<Mutex<Vec<u8>>>);

thread_local! {
    static CAPTURE: std::cell::RefCell<Option<LogCapture>> = const { std::cell::RefCell::new(None) };
}

/// Writes to the calling thread's capture, if any.
struct ThreadWriter;

impl Write for ThreadWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        CAPTURE.with(|c| {
            if let Some(capture) = c.borrow().as_ref() {
                capture.0.lock().unwrap().extend_from_slice(buf);
            }
        });
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Stops capturing on this thread when dropped.
pub struct CaptureGuard;

impl Drop for CaptureGuard {
    fn drop(&mut self) {
        CAPTURE.with(|c| *c.borrow_mut() = None);
    }
}

impl LogCapture {
    pub fn install(&self) -> CaptureGuard {
        static GLOBAL: std::sync::Once = std::sync::Once::new();
        GLOBAL.call_once(|| {
            let subscriber = tracing_subscriber::fmt()
                .with_max_level(tracing::Level::INFO)
                .with_ansi(false)
                .with_writer(|| ThreadWriter)
                .finish();
            tracing::subscriber::set_global_default(subscriber).unwrap();
        });
        CAPTURE.with(|c| *c.borrow_mut() = Some(self.clone()));
        CaptureGuard
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}
