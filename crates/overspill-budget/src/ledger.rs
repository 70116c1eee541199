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
}

/// A ledger that cannot be read or written, and why (no secret: a path and the system's
/// reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the budget's shared ledger cannot be used ({0}); this process counts on its own")]
pub struct LedgerError(pub String);
