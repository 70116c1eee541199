//! What every tool call runs against: the read root, the token counter, the agent's budget
//! and the shared file cache.

use std::io;
use std::sync::Arc;

use overspill_budget::Budget;
use overspill_store::{PathError, ReadRoot};
use overspill_tokens::TokenCounter;

use crate::cache::{CachedFile, FileCache};
use crate::error::ToolError;

/// Tokens kept free for the footer and a cut-line note when a single line is cut to fit.
pub const LINE_RESERVE_TOKENS: u64 = 256;

/// The smallest per-line token cap, used when the limit leaves less than that.
pub const MIN_LINE_CAP_TOKENS: u64 = 32;

/// The environment of one agent's tool calls. Cheap to clone; share it between threads.
///
/// Each agent has its own budget; several contexts may share one [`FileCache`] (see
/// [`ExploreContext::with_cache`]) so a file read by one agent is not read again by the next.
#[derive(Clone)]
pub struct ExploreContext {
    root: ReadRoot,
    counter: &'static dyn TokenCounter,
    budget: Arc<Budget>,
    cache: Arc<FileCache>,
}

impl ExploreContext {
    /// A context reading under `root`, counting with `counter`, charging `budget`, with a
    /// cache of its own (`DEFAULT_CAPACITY_BYTES`, 1 GiB).
    pub fn new(
        root: ReadRoot,
        counter: &'static dyn TokenCounter,
        budget: Arc<Budget>,
    ) -> ExploreContext {
        ExploreContext {
            root,
            counter,
            budget,
            cache: Arc::new(FileCache::default()),
        }
    }

    /// The same context using `cache` (e.g. one shared by all agents of a process).
    #[must_use]
    pub fn with_cache(mut self, cache: Arc<FileCache>) -> ExploreContext {
        self.cache = cache;
        self
    }

    /// The directory reads are confined to.
    pub fn root(&self) -> &ReadRoot {
        &self.root
    }

    /// The token counter of the agent's model.
    pub fn counter(&self) -> &'static dyn TokenCounter {
        self.counter
    }

    /// The agent's budget.
    pub fn budget(&self) -> &Arc<Budget> {
        &self.budget
    }

    /// The file cache.
    pub fn cache(&self) -> &Arc<FileCache> {
        &self.cache
    }

    /// Opens `file` through the read root (validated and opened in one lookup, see
    /// [`ReadRoot::open`]) and reads it through the cache.
    ///
    /// A path that leaves the root is refused before anything is opened or read; a FIFO,
    /// socket or device is refused without waiting on it.
    ///
    /// # Errors
    /// `path_outside_root`, `not_found`, `invalid_argument` (empty path, a directory, not a
    /// regular file) or `io_error`, each naming `file` as the caller gave it.
    pub fn open(&self, file: &str) -> Result<Arc<CachedFile>, ToolError> {
        let opened = self
            .root
            .open(file)
            .map_err(|error| path_error(file, &error))?;
        self.cache
            .open(opened)
            .map_err(|error| read_error(file, &error))
    }

    /// The most tokens one result may cost right now: the per-call cap or what remains of the
    /// budget, whichever is smaller.
    pub fn token_limit(&self) -> u64 {
        self.budget
            .max_extraction_tokens()
            .min(self.budget.remaining())
    }

    /// The most tokens one displayed line may cost before it is cut: the token limit less room
    /// for the footer and the cut note, so that a window of one line always fits.
    pub fn line_cap(&self) -> u64 {
        self.token_limit()
            .saturating_sub(LINE_RESERVE_TOKENS)
            .max(MIN_LINE_CAP_TOKENS)
    }
}

impl std::fmt::Debug for ExploreContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExploreContext")
            .field("root", &self.root)
            .field("counter", &self.counter.name())
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

fn path_error(file: &str, error: &PathError) -> ToolError {
    let message = format!("`{file}`: {error}");
    match error.code() {
        "path_outside_root" => ToolError::PathOutsideRoot {
            file: file.to_owned(),
            message,
        },
        "not_found" => ToolError::NotFound {
            file: file.to_owned(),
            message,
        },
        "io_error" => ToolError::Io {
            file: file.to_owned(),
            message,
        },
        _ => ToolError::invalid_argument(Some("file"), message),
    }
}

fn read_error(file: &str, error: &io::Error) -> ToolError {
    ToolError::Io {
        file: file.to_owned(),
        message: format!(
            "cannot read `{file}`: {error}; try again, or check the file's permissions"
        ),
    }
}

#[cfg(test)]
mod tests;
