//! Per-user limits (`[limits]`): a request rate (a token bucket per user: a sustained rate and a
//! burst) and a cap on open streams. Each refusal is RESOURCE_EXHAUSTED with the time to wait as
//! a `google.rpc.RetryInfo`, so one user's flood is refused at the door and costs nobody else.
//! Applied where every request is authenticated ([`crate::grpc::AppState::caller`]) and to each
//! message on a `Chat` stream — with `auth = "api-key"`. In local mode the one implicit user is the
//! machine's owner, with nobody to share with: no limits.

use crate::config::Limits;
use aware_core::Error;
use aware_domain::fair::{Open, OpenPerUser};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::num::NonZeroU32;
use std::sync::Arc;

pub struct UserLimits {
    rate: Option<DefaultKeyedRateLimiter<String>>,
    max_streams: usize,
    streams: OpenPerUser,
}

/// One open stream, counted against its user while it lives.
pub type StreamGuard = Open;

impl UserLimits {
    /// The configured limits; `enforced` false (local mode) allows everything.
    pub fn new(limits: &Limits, enforced: bool) -> Arc<Self> {
        if !enforced {
            return Arc::new(Self { rate: None, max_streams: usize::MAX, streams: OpenPerUser::default() });
        }
        let rate = NonZeroU32::new(limits.requests_per_second_per_user).map(|per_second| {
            let burst = NonZeroU32::new(limits.request_burst_per_user).unwrap_or(per_second).max(per_second);
            DefaultKeyedRateLimiter::keyed(Quota::per_second(per_second).allow_burst(burst))
        });
        Arc::new(Self { rate, max_streams: limits.max_streams_per_user as usize, streams: OpenPerUser::default() })
    }

    /// Takes one request from `user`'s allowance.
    pub fn request(&self, user: &str) -> Result<(), Error> {
        let Some(rate) = &self.rate else { return Ok(()) };
        rate.check_key(&user.to_owned()).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            metrics::counter!("aware_limit_refusals_total", "limit" => "rate").increment(1);
            Error::resource_exhausted(format!(
                "too many requests from this user; retry in {} ms",
                wait.as_millis().max(1)
            ))
            .with_retry_after(wait)
        })
    }

    /// Counts an open stream of `user` until the guard is dropped.
    pub fn open_stream(&self, user: &str) -> Result<StreamGuard, Error> {
        self.streams.open(user, self.max_streams).ok_or_else(|| {
            metrics::counter!("aware_limit_refusals_total", "limit" => "streams").increment(1);
            Error::resource_exhausted(format!(
                "this user already has {} streams open (the limit); close one, or resume several runs on one Chat stream",
                self.max_streams
            ))
            .with_retry_after(std::time::Duration::from_secs(1))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_second: u32, burst: u32, streams: u32) -> Arc<UserLimits> {
        UserLimits::new(
            &Limits {
                requests_per_second_per_user: per_second,
                request_burst_per_user: burst,
                max_streams_per_user: streams,
                ..Limits::default()
            },
            true,
        )
    }

    #[test]
    fn a_burst_passes_then_the_next_request_is_told_when_to_retry_and_other_users_are_untouched() {
        let l = limits(1, 3, 10);
        for _ in 0..3 {
            l.request("ana").expect("within the burst");
        }
        let e = l.request("ana").expect_err("over the burst");
        assert_eq!(e.code, aware_core::ErrorCode::ResourceExhausted);
        let wait = e.retry_after.expect("a retry hint");
        assert!(wait > std::time::Duration::ZERO && wait <= std::time::Duration::from_secs(1), "{wait:?}");
        assert!(e.message.contains("retry in"), "{}", e.message);
        l.request("bo").expect("another user has their own allowance");
    }

    #[test]
    fn zero_turns_the_rate_off_and_streams_are_counted_until_their_guards_drop() {
        let l = limits(0, 0, 2);
        for _ in 0..10_000 {
            l.request("ana").expect("no rate limit");
        }
        let a = l.open_stream("ana").unwrap();
        let _b = l.open_stream("ana").unwrap();
        assert!(l.open_stream("ana").is_err(), "the third stream is refused");
        let _c = l.open_stream("bo").expect("per user");
        drop(a);
        l.open_stream("ana").expect("a closed stream frees its place");
    }

    #[test]
    fn local_mode_is_not_limited() {
        let l = UserLimits::new(&Limits::default(), false);
        let guards: Vec<_> = (0..1000).map(|_| l.open_stream("local").unwrap()).collect();
        for _ in 0..10_000 {
            l.request("local").unwrap();
        }
        assert_eq!(guards.len(), 1000);
    }
}
