//! An agent's extractions kept where every process that serves the agent sees them
//! (docs/budget.md#one-agent-served-by-several-processes).

/// The tokens one agent has extracted, kept outside the process: when several processes serve
/// one agent (several proxy instances sharing a directory), each charge is checked against what
/// all of them charged. A [`Budget`](crate::Budget) given one
/// ([`with_ledger`](crate::Budget::with_ledger)) checks and charges through it.
///
/// The implementation owns the I/O (this crate does none): the facade's is a file under the
/// agent's directory, locked while a charge is decided.
pub trait Ledger: Send + Sync {
    /// Calls `decide` with the tokens extracted so far by every process, with every other
    /// update kept out until it returns; when it returns `Some(total)`, `total` is kept. Gives
    /// back the total kept (the one `decide` saw when it returned `None`).
    ///
    /// # Errors
    ///
    /// [`LedgerError`] when the ledger cannot be read or written; the budget then charges on
    /// its own account.
    fn update(&self, decide: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, LedgerError>;

    /// The total now. By default an [`update`](Self::update) that keeps it; a ledger that can
    /// read without taking its lock (one round trip to a server) does so.
    ///
    /// # Errors
    ///
    /// [`LedgerError`] when the ledger cannot be read.
    fn total(&self) -> Result<u64, LedgerError> {
        self.update(&mut |_| None)
    }

    /// Adds `tokens` to the total if the sum stays at most `limit`, as one step: the total
    /// after, and whether it was added (the total as it stands when not). By default an
    /// [`update`](Self::update); a ledger on a server does it in one request.
    ///
    /// # Errors
    ///
    /// [`LedgerError`] when the ledger cannot be read or written.
    fn add_within(&self, tokens: u64, limit: u64) -> Result<Added, LedgerError> {
        let mut added = false;
        let total = self.update(&mut |total| {
            let sum = total.checked_add(tokens).filter(|sum| *sum <= limit);
            added = sum.is_some();
            sum
        })?;
        Ok(Added { added, total })
    }
}

/// What [`Ledger::add_within`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Added {
    /// Whether the tokens were added.
    pub added: bool,
    /// The total after (as it stands, when they were not).
    pub total: u64,
}

/// A ledger that cannot be read or written, and why (no secret: a path and the system's
/// reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the budget's shared ledger cannot be used ({0}); this process counts on its own")]
pub struct LedgerError(pub String);
