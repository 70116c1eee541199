//! The one way the proxy takes a lock.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, also when a thread panicked while holding it: every critical section of the
/// proxy leaves its state whole at each step (a map entry inserted or removed, a counter set),
/// so a panic elsewhere must not take every later request down with it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
