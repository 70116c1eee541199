//! Watching what a scratchpad does, for a host that keeps count of it (the proxy's metrics,
//! docs/mcp-proxy.md#metrics).
//!
//! A host hands [`ScratchpadBuilder::observer`](crate::ScratchpadBuilder::observer) an
//! [`Observer`]; the scratchpad tells it of every tool result it judges and every exploration
//! call it answers, on the thread that did the work. The events carry names and numbers, never
//! a tool's arguments or output.
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use overspill::{Event, Observer, Scratchpad, ToolOutput};
//!
//! #[derive(Default)]
//! struct Stored(AtomicU64);
//!
//! impl Observer for Stored {
//!     fn observe(&self, event: &Event<'_>) {
//!         if let Event::Stored { tokens, .. } = event {
//!             self.0.fetch_add(*tokens, Ordering::Relaxed);
//!         }
//!     }
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let stored = Arc::new(Stored::default());
//! let pad = Scratchpad::builder()
//!     .scratchpad_dir(dir.path())
//!     .context_window(128_000)
//!     .intercept_all(100)
//!     .observer(stored.clone())
//!     .build()?;
//! let log: String = (0..200).map(|i| format!("GET /api/items/{i} 200\n")).collect();
//! pad.intercept("web", "fetch_log", ToolOutput::text(log));
//! let usage = pad.finish().expect("something was intercepted");
//! assert_eq!(stored.0.load(Ordering::Relaxed), usage.tokens_intercepted);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use overspill_explore::Outcome;

/// The `tool` of [`Event::Explored`] for a call of a tool the scratchpad does not have.
pub const UNKNOWN_TOOL: &str = "unknown";

/// Told of what a scratchpad does. Called on the thread that did it, so keep it quick (a
/// counter's increment, not a write).
pub trait Observer: Send + Sync + 'static {
    /// One thing the scratchpad did.
    fn observe(&self, event: &Event<'_>);
}

/// One thing a scratchpad did. `server` is the name the host gave the tool's server (`""` for
/// none); `tool` is the tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A tool result was stored and the model given a pointer: `tokens` were kept out of its
    /// context (the usage event's `tokens_intercepted` grows by as many), `bytes` written.
    Stored {
        /// The tool's server.
        server: &'a str,
        /// The tool.
        tool: &'a str,
        /// Its tokens.
        tokens: u64,
        /// The bytes of content stored.
        bytes: u64,
    },
    /// A tool result went to the model as it was: below its threshold, an error, an image, or
    /// a tool with no threshold.
    Passed {
        /// The tool's server.
        server: &'a str,
        /// The tool.
        tool: &'a str,
    },
    /// A tool result over its threshold could not be stored; the model got a short notice.
    StoreFailed {
        /// The tool's server.
        server: &'a str,
        /// The tool.
        tool: &'a str,
    },
    /// An exploration tool was called: delivered (its tokens charged, the usage event's
    /// `tokens_extracted` grows by as many), refused by the budget, or failed.
    Explored {
        /// The exploration tool, without the host's prefix; [`UNKNOWN_TOOL`] for a name the
        /// scratchpad has no tool of (so that what a model calls never becomes a label).
        tool: &'static str,
        /// What the call came to.
        outcome: Outcome,
    },
}
