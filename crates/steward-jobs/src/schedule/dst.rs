//! Local wall-clock time to an instant, with the DST rule every fixed-time schedule follows
//! (daily, weekly, and cron whose minute and hour are fixed). Owns that rule. Does not own
//! which local times a schedule names (`next.rs`, `cron.rs`).
//!
//! # The rule
//! - A local time that exists once is that instant.
//! - A local time that occurs twice (the repeated hour of a fall-back day) is its FIRST
//!   occurrence; the second is not a fire. A job at 02:30 runs once on that day.
//! - A local time that does not exist (the gap of a spring-forward day) is the first instant
//!   after the gap: 02:30 in Europe/Berlin on the last Sunday of March is 03:00 CEST, the
//!   instant 01:00 UTC. A job at 02:30 still runs once on that day, as soon as it can. Several
//!   local times in one gap (02:00 and 02:30) are the same instant, so they fire once.
//!
//! This is what Vixie cron and cronie do for fixed-time jobs, and what croner does for a cron
//! with a single minute and hour. The mapping never goes backwards (a later local time is
//! never an earlier instant), which is what lets `next.rs` search local times in order.

use chrono::{DateTime, Duration, LocalResult, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

/// The widest UTC offset change a zone has made (Pacific/Apia skipped a whole day in 2011),
/// with margin: where a gap's end is searched, and how far back `next.rs` looks.
pub(crate) const MAX_JUMP: Duration = Duration::hours(27);

/// The instant `local` (a wall-clock time in `tz`) fires at, by the rule above. `None` only
/// at the edges of chrono's representable range.
pub(crate) fn resolve_local(local: NaiveDateTime, tz: Tz) -> Option<DateTime<Utc>> {
    match tz.from_local_datetime(&local) {
        LocalResult::Single(at) => Some(at.with_timezone(&Utc)),
        LocalResult::Ambiguous(a, b) => Some(a.min(b).with_timezone(&Utc)),
        LocalResult::None => gap_end(local, tz),
    }
}

/// The first instant whose wall clock in `tz` is past `local`, a time inside a gap: the
/// instant the clock jumped. Found by bisection over whole seconds: before the jump the wall
/// clock reads earlier than `local`, from it on later.
fn gap_end(local: NaiveDateTime, tz: Tz) -> Option<DateTime<Utc>> {
    let past = |secs: i64| {
        Utc.timestamp_opt(secs, 0)
            .single()
            .is_some_and(|at| at.with_timezone(&tz).naive_local() > local)
    };
    // Whole seconds since the epoch, so the answer has no fraction: two local times in one
    // gap must resolve to the very same instant.
    let centre = local.and_utc().timestamp();
    let jump = MAX_JUMP.num_seconds();
    let mut before = centre.checked_sub(jump)?;
    let mut after = centre.checked_add(jump)?;
    if past(before) || !past(after) {
        return None;
    }
    // Invariant: !past(before) && past(after).
    while after - before > 1 {
        let mid = before + (after - before) / 2;
        if past(mid) {
            after = mid;
        } else {
            before = mid;
        }
    }
    Utc.timestamp_opt(after, 0).single()
}
