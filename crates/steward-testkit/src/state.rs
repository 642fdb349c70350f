//! The fake model's shared state: the FIFO of scripted steps, the default reply,
//! the request log and the counter that waiters watch.
//!
//! Owns: queueing, recording and waiting. Does not own: HTTP handling or rendering.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use tokio::sync::watch;

use crate::script::{RecordedRequest, Reply, SpeechState, Step};

pub(crate) struct Shared {
    inner: Mutex<Inner>,
    /// The speech routes' script and log, apart from model requests.
    speech: Mutex<SpeechState>,
    /// Number of recorded requests; a watch channel so waiters need no polling.
    count: watch::Sender<usize>,
}

struct Inner {
    queue: VecDeque<Step>,
    default: Reply,
    requests: Vec<RecordedRequest>,
    recording: bool,
    /// Source of unique ids for responses and tool calls.
    next_id: u64,
}

impl Shared {
    pub(crate) fn new() -> Shared {
        Shared {
            inner: Mutex::new(Inner {
                queue: VecDeque::new(),
                default: Reply::text("ok"),
                requests: Vec::new(),
                recording: true,
                next_id: 1,
            }),
            count: watch::Sender::new(0),
            speech: Mutex::new(SpeechState::default()),
        }
    }

    /// Run `f` on the speech routes' state.
    pub(crate) fn with_speech<T>(&self, f: impl FnOnce(&mut SpeechState) -> T) -> T {
        f(&mut self.speech.lock().unwrap_or_else(|e| e.into_inner()))
    }

    // A panicking test thread must not turn every later request into a second panic.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn push(&self, steps: impl IntoIterator<Item = Step>) {
        self.lock().queue.extend(steps);
    }

    pub(crate) fn set_default(&self, reply: Reply) {
        self.lock().default = reply;
    }

    /// Back to a fresh server's state: no steps, the initial default, an empty log (the
    /// counter waiters watch goes back to 0), the speech routes' defaults and an empty log. Recording stays as it was.
    pub(crate) fn reset(&self) {
        let mut inner = self.lock();
        inner.queue.clear();
        inner.default = Reply::text("ok");
        inner.requests.clear();
        self.count.send_replace(0);
        self.with_speech(|s| *s = SpeechState::default());
    }

    pub(crate) fn set_recording(&self, on: bool) {
        self.lock().recording = on;
    }

    /// Records the request (when recording is on), pops the next step (or the
    /// default) and hands out a fresh id, all under one lock so that the order
    /// of the log matches the order steps were consumed.
    pub(crate) fn take(&self, request: Option<RecordedRequest>) -> (Step, u64) {
        let mut inner = self.lock();
        let id = inner.next_id;
        inner.next_id += 1;
        let step = match inner.queue.pop_front() {
            Some(step) => step,
            None => Step::Reply(inner.default.clone()),
        };
        if let Some(request) = request {
            self.record_locked(&mut inner, request);
        }
        (step, id)
    }

    /// Records a request that will not consume a step (e.g. an unparseable body).
    pub(crate) fn record_only(&self, request: RecordedRequest) {
        let mut inner = self.lock();
        self.record_locked(&mut inner, request);
    }

    fn record_locked(&self, inner: &mut Inner, request: RecordedRequest) {
        if inner.recording {
            inner.requests.push(request);
            let n = inner.requests.len();
            self.count.send_replace(n);
        }
    }

    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    pub(crate) fn request_count(&self) -> usize {
        self.lock().requests.len()
    }

    pub(crate) fn is_recording(&self) -> bool {
        self.lock().recording
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<usize> {
        self.count.subscribe()
    }
}
