//! A number in Redis that several processes update in turn: [`CounterFile`](crate::CounterFile)
//! for processes on several machines (docs/budget.md#one-agent-served-by-several-machines).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::{Commands, ConnectionLike};

/// [`RedisCounter::add_within`] as one step on the server: KEYS[1] the counter, ARGV[1] the
/// tokens, ARGV[2] the limit; `{1, sum}` when added, `{0, total}` when not. Numbers stay
/// below 2^53, which Lua's numbers hold exactly (a budget is a context window's size).
const ADD_WITHIN: &str = "local total = tonumber(redis.call('GET', KEYS[1]) or '0') \
     local sum = total + tonumber(ARGV[1]) \
     if sum <= tonumber(ARGV[2]) then redis.call('SET', KEYS[1], sum) return {1, sum} end \
     return {0, total}";

/// How long a readiness check waits to connect, and then for the answer.
const CHECK_TIMEOUT: Duration = Duration::from_millis(400);

/// How long connecting to Redis, and each command, may take.
const TIMEOUT: Duration = Duration::from_secs(2);

/// How many times an update is tried when other processes changed the number meanwhile. Eight
/// processes updating one counter as fast as they can settle within a few tries each; a
/// counter changed 1,000 times in a row under one update is not contention but a fault.
const MAX_ATTEMPTS: usize = 1_000;

/// A Redis server holding counters: what `--budget-store redis://…` names. Cheap to clone; its
/// one connection is shared, and made again after a failure.
#[derive(Clone)]
pub struct Redis {
    inner: Arc<Inner>,
}

struct Inner {
    client: redis::Client,
    /// The URL without a password, for messages.
    location: String,
    connection: Mutex<Option<redis::Connection>>,
}

impl fmt::Debug for Redis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redis")
            .field("location", &self.inner.location)
            .finish_non_exhaustive()
    }
}

/// Why Redis could not be used; the message names it (never its password) and what to check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the budget store {location} {what}; check that it is running, reachable from here and accepts the URL's credentials"
)]
pub struct RedisError {
    /// The URL, without a password.
    pub location: String,
    /// What failed.
    pub what: String,
}

impl Redis {
    /// The server `url` names (`redis://[user:password@]host[:port][/db]`, or `rediss://` for
    /// TLS). Nothing is contacted yet.
    ///
    /// # Errors
    ///
    /// [`RedisError`] for a URL that is not a Redis URL.
    pub fn open(url: &str) -> Result<Redis, RedisError> {
        let location = match url::Url::parse(url) {
            Ok(mut shown) => {
                let _ = shown.set_password(None);
                shown.to_string()
            }
            Err(_) => crate::shared::redacted(url),
        };
        // TLS on ring, as every client of the workspace (a provider already chosen stays).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = redis::Client::open(url).map_err(|error| RedisError {
            location: location.clone(),
            what: format!("is not a Redis URL ({error}); give one such as redis://host:6379/0"),
        })?;
        Ok(Redis {
            inner: Arc::new(Inner {
                client,
                location,
                connection: Mutex::new(None),
            }),
        })
    }

    /// Where it is, for messages.
    pub fn location(&self) -> &str {
        &self.inner.location
    }

    /// Whether it answers (`PING`), for a readiness check.
    ///
    /// # Errors
    ///
    /// [`RedisError`] saying what is wrong.
    pub fn check(&self) -> Result<(), RedisError> {
        // A connection of its own with short timeouts: a probe waits about a second at most.
        let checked = self
            .inner
            .client
            .get_connection_with_timeout(CHECK_TIMEOUT)
            .and_then(|mut connection| {
                connection.set_read_timeout(Some(CHECK_TIMEOUT))?;
                connection.set_write_timeout(Some(CHECK_TIMEOUT))?;
                redis::cmd("PING").query::<String>(&mut connection)
            });
        checked.map(drop).map_err(|error| RedisError {
            location: self.inner.location.clone(),
            what: format!("does not answer: {error}"),
        })
    }

    /// The counter `key` of this server.
    pub fn counter(&self, key: impl Into<String>) -> RedisCounter {
        RedisCounter {
            redis: self.clone(),
            key: key.into(),
        }
    }

    /// Runs `work` on the shared connection, connecting first if there is none; a failed
    /// command drops the connection, so the next call connects again.
    fn with_connection<T>(
        &self,
        work: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, RedisError> {
        let failed = |what: String| RedisError {
            location: self.inner.location.clone(),
            what,
        };
        let mut slot = self
            .inner
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if slot.as_ref().is_none_or(|connection| !connection.is_open()) {
            let connection = self
                .inner
                .client
                .get_connection_with_timeout(TIMEOUT)
                .and_then(|connection| {
                    connection.set_read_timeout(Some(TIMEOUT))?;
                    connection.set_write_timeout(Some(TIMEOUT))?;
                    Ok(connection)
                })
                .map_err(|error| failed(format!("cannot be reached: {error}")))?;
            *slot = Some(connection);
        }
        let Some(connection) = slot.as_mut() else {
            return Err(failed("has no connection".to_owned()));
        };
        work(connection).map_err(|error| {
            *slot = None;
            failed(format!("failed a command: {error}"))
        })
    }
}

/// A counter in Redis, updated with compare and swap (`WATCH`, `MULTI`, `EXEC`, tried again
/// when another process changed it meanwhile): no update is lost, whichever processes and
/// machines update it.
#[derive(Debug, Clone)]
pub struct RedisCounter {
    redis: Redis,
    key: String,
}

impl RedisCounter {
    /// Its key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Where it is, for messages: the server and the key.
    pub fn location(&self) -> String {
        format!("{} (key {})", self.redis.location(), self.key)
    }

    /// The number (0 while the key is unset): one `GET`.
    ///
    /// # Errors
    ///
    /// [`RedisError`] when Redis cannot be reached or holds something that is not a number.
    pub fn total(&self) -> Result<u64, RedisError> {
        let key = self.key.as_str();
        self.redis
            .with_connection(|connection| connection.get::<_, Option<u64>>(key))
            .map(Option::unwrap_or_default)
    }

    /// Adds `tokens` to the number if the sum stays at most `limit`, in one request (a script
    /// Redis runs as one step): whether it added them, and the number after (as it stands
    /// when it did not).
    ///
    /// # Errors
    ///
    /// [`RedisError`] when Redis cannot be reached or holds something that is not a number.
    pub fn add_within(&self, tokens: u64, limit: u64) -> Result<(bool, u64), RedisError> {
        let key = self.key.as_str();
        let (added, total): (u8, u64) = self.redis.with_connection(|connection| {
            redis::cmd("EVAL")
                .arg(ADD_WITHIN)
                .arg(1)
                .arg(key)
                .arg(tokens)
                .arg(limit)
                .query(connection)
        })?;
        Ok((added == 1, total))
    }

    /// Calls `decide` with the number (0 while the key is unset); when it returns `Some(new)`,
    /// `new` is stored unless another process changed the number since it was read, in which
    /// case `decide` is called again with the newer number. Gives back the number kept.
    ///
    /// # Errors
    ///
    /// [`RedisError`] when Redis cannot be reached, holds something that is not a number
    /// under the key, or changed the number under every one of many tries.
    pub fn update(&self, decide: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, RedisError> {
        let key = self.key.as_str();
        let outcome = self.redis.with_connection(|connection| {
            // A read is one round trip: most updates are reads (what the others charged).
            let now: Option<u64> = connection.get(key)?;
            let now = now.unwrap_or(0);
            if decide(now).is_none() {
                return Ok(Some(now));
            }
            // A write: WATCH and GET in one round trip, the new total in a MULTI/EXEC that
            // Redis refuses if the key changed since the WATCH, in another.
            for _ in 0..MAX_ATTEMPTS {
                let (now,): (Option<u64>,) = redis::pipe()
                    .cmd("WATCH")
                    .arg(key)
                    .ignore()
                    .get(key)
                    .query(connection)?;
                let now = now.unwrap_or(0);
                let Some(new) = decide(now) else {
                    redis::cmd("UNWATCH").exec(connection)?;
                    return Ok(Some(now));
                };
                let stored: Option<()> = redis::pipe()
                    .atomic()
                    .set(key, new)
                    .ignore()
                    .query(connection)?;
                if stored.is_some() {
                    return Ok(Some(new));
                }
            }
            Ok(None)
        })?;
        outcome.ok_or_else(|| RedisError {
            location: self.location(),
            what: format!("changed under each of {MAX_ATTEMPTS} tries to update it"),
        })
    }
}

#[cfg(test)]
mod tests;
