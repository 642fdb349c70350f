//! Retry timing: the policy, exponential backoff with full jitter, and `Retry-After`
//! parsing (delta-seconds, OpenAI's `retry-after-ms`, or an IMF-fixdate HTTP date).
//!
//! Owns: how long to wait. Does not own: whether to retry (`LlmError::is_retryable`) or
//! the loop (`models`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (2 = three attempts in all).
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// A server's Retry-After is honoured up to this long.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// Wait before retry number `retry` (0-based). A server-given Retry-After wins (capped)
    /// because the server knows when it will take us back; otherwise full jitter spreads
    /// clients out so they do not all hammer the provider at the same instant.
    pub(crate) fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(ra) = retry_after {
            return ra.min(self.max_retry_after);
        }
        let factor = 1u32.checked_shl(retry.min(20)).unwrap_or(u32::MAX);
        let ceiling = self.base_delay.saturating_mul(factor).min(self.max_delay);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

/// Read the server's requested wait from response headers, if any.
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    parse_retry_after(text("retry-after")?, SystemTime::now())
}

/// `Retry-After` is either delta-seconds or an HTTP date.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = parse_imf_fixdate(value)?;
    // A date in the past means "now".
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// "Sun, 06 Nov 1994 08:49:37 GMT" (the only date form current servers send).
fn parse_imf_fixdate(s: &str) -> Option<SystemTime> {
    let mut it = s.split_ascii_whitespace();
    let _weekday = it.next()?.strip_suffix(',')?;
    let day: u32 = it.next()?.parse().ok()?;
    let month = match it.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i64 = it.next()?.parse().ok()?;
    let mut hms = it.next()?.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, sec) = (hms.next()??, hms.next()??, hms.next()??);
    if it.next()? != "GMT" || it.next().is_some() || hms.next().is_some() {
        return None;
    }
    if !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = u64::try_from(days).ok()? * 86_400 + h * 3600 + m * 60 + sec;
    UNIX_EPOCH.checked_add(Duration::from_secs(secs))
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_seconds_and_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(
            parse_retry_after("Sun, 06 Foo 1994 08:49:47 GMT", now),
            None
        );
    }

    #[test]
    fn epoch_date_math_is_right() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2024, 2, 29), 19_782);
    }

    #[test]
    fn backoff_stays_within_bounds_and_retry_after_is_capped() {
        let p = RetryPolicy::default();
        for retry in 0..40 {
            let d = p.delay(retry, None);
            let ceiling = (p.base_delay * 2u32.saturating_pow(retry.min(20))).min(p.max_delay);
            assert!(d <= ceiling, "retry {retry}: {d:?} > {ceiling:?}");
        }
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(999))),
            p.max_retry_after
        );
    }

    #[test]
    fn reads_headers() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "1500".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1500)));
    }
}
