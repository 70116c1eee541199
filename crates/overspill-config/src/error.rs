//! Why a configuration does not load.
//!
//! Every message names the key path and its line and column, and says what
//! to write instead. Messages are complete on their own (no `source()` chain
//! to walk), so a CLI prints `{error}` and is done.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::location::{KeyPath, Location, quoted};
use crate::pattern::PatternError;

/// A configuration that cannot be read, parsed or validated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error(
        "cannot read the config file {}: {cause}; check the path and its permissions",
        .path.display()
    )]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        cause: std::io::Error,
    },

    /// The text is not valid TOML; toml's message carries line, column and
    /// the offending line.
    #[error("{}{}", file_prefix(.file), .error.to_string().trim_end())]
    Syntax {
        /// The file, when the text came from one.
        file: Option<PathBuf>,
        /// The parser's error.
        error: Box<toml::de::Error>,
    },

    /// A tool-name pattern (a threshold key or an `mcp_filter` entry) does
    /// not compile.
    #[error("{at}: {key}: {problem}")]
    Pattern {
        /// Where the pattern is.
        key: KeyPath,
        /// Its position.
        at: Location,
        /// What is wrong with it.
        problem: PatternError,
    },

    /// A key that a scratchpad table does not know (docs/configuration.md: typos must not
    /// silently disable interception). The table is `key.parent()`.
    #[error("{at}: {key}: unknown key in [{}]{}", .key.parent(), unknown_key_hint(.did_you_mean, .belongs_in, .accepted))]
    UnknownKey {
        /// The unknown key.
        key: KeyPath,
        /// Its position.
        at: Location,
        /// The known key it most resembles, if any is close.
        did_you_mean: Option<&'static str>,
        /// Where this key does belong, when it is a known key of another
        /// table: `[agent.llm]` for a `context_window` in `[agent.scratchpad]`.
        belongs_in: Option<String>,
        /// Every key the table accepts.
        accepted: &'static [&'static str],
    },

    /// A value of the wrong TOML type.
    #[error("{at}: {key}: expected {expected}, found {found}")]
    WrongType {
        /// The key.
        key: KeyPath,
        /// The value's position.
        at: Location,
        /// What the key takes.
        expected: &'static str,
        /// The value found, with its type.
        found: String,
    },

    /// A pattern given a bare number instead of a `{ min_tokens = … }` table.
    #[error(
        "{at}: {key}: a pattern takes a table, not a bare number; write {} = {{ min_tokens = {value} }}",
        quoted(.pattern)
    )]
    BareThreshold {
        /// The pattern's key path.
        key: KeyPath,
        /// The value's position.
        at: Location,
        /// The pattern.
        pattern: String,
        /// The number as written.
        value: String,
    },

    /// A value of the right type that the key does not accept: a negative
    /// or zero count, a number too large, an empty path.
    #[error("{at}: {key}: expected {expected}, found {found}")]
    InvalidValue {
        /// The key.
        key: KeyPath,
        /// The value's position.
        at: Location,
        /// What the key takes.
        expected: &'static str,
        /// The value as written.
        found: String,
    },

    /// `context_safety_margin` outside `0.0..=0.95`.
    #[error(
        "{at}: {key}: must be from 0.0 to 0.95 (the fraction of the context window kept free \
         for reasoning and output), found {value}; the default is 0.2"
    )]
    MarginOutOfRange {
        /// The key.
        key: KeyPath,
        /// The value's position.
        at: Location,
        /// The value found.
        value: f64,
    },

    /// A scratchpad is enabled but there is no `memory_dir` to store into.
    #[error(
        "{at}: {enabled_by} = true needs a place to store outputs: add memory_dir = \"./.overspill\" \
         at the top of the file, before any [table]"
    )]
    MissingMemoryDir {
        /// The `enabled` key that turned the scratchpad on.
        enabled_by: KeyPath,
        /// Its position.
        at: Location,
    },

    /// A scratchpad is enabled for an agent that has no `context_window`.
    #[error("{at}: {}", missing_window(.worker.as_deref(), .enabled_by))]
    MissingContextWindow {
        /// The worker, or `None` for the main agent (`[agent]`).
        worker: Option<String>,
        /// The `enabled` key that turned the scratchpad on (the agent's, when
        /// a worker inherits it).
        enabled_by: KeyPath,
        /// Where the agent or worker is configured.
        at: Location,
    },

    /// A server entry `overspill mcp` cannot start from (docs/configuration.md#servers-to-front):
    /// of the overspill TOML (`mcp.servers.k8s.args`) or of a client's JSON
    /// (`mcpServers.k8s.args`).
    #[error("{}{}{problem}", server_place(.file, .at), key_prefix(.key))]
    Server {
        /// The file, when the text came from one.
        file: Option<PathBuf>,
        /// The server, or its key.
        key: KeyPath,
        /// The value's position, for a TOML file.
        at: Option<Location>,
        /// What is wrong, and what to write instead.
        problem: String,
    },

    /// A servers file that is not valid JSON; serde_json's message gives the line and column.
    #[error("{}{error}; a servers file is the JSON an MCP client keeps ({{\"mcpServers\": {{…}}}})", file_prefix(.file))]
    Json {
        /// The file, when the text came from one.
        file: Option<PathBuf>,
        /// The parser's error.
        error: serde_json::Error,
    },
}

impl ConfigError {
    /// The key path the error is about, when it is about one key (a server entry's error is
    /// about its server when it names no key of it).
    pub fn key(&self) -> Option<&KeyPath> {
        self.place().0
    }

    /// Where in the text the error is, when it points at a position
    /// (syntax errors carry theirs inside toml's message).
    pub fn location(&self) -> Option<&Location> {
        self.place().1
    }

    /// The key the error is about and where it is in the text, in one match so that a new
    /// variant says both at once.
    fn place(&self) -> (Option<&KeyPath>, Option<&Location>) {
        match self {
            Self::Pattern { key, at, .. }
            | Self::UnknownKey { key, at, .. }
            | Self::WrongType { key, at, .. }
            | Self::BareThreshold { key, at, .. }
            | Self::InvalidValue { key, at, .. }
            | Self::MarginOutOfRange { key, at, .. } => (Some(key), Some(at)),
            Self::MissingMemoryDir { enabled_by, at, .. }
            | Self::MissingContextWindow { enabled_by, at, .. } => (Some(enabled_by), Some(at)),
            Self::Server { key, at, .. } => (Some(key), at.as_ref()),
            Self::Read { .. } | Self::Syntax { .. } | Self::Json { .. } => (None, None),
        }
    }
}

/// `key: `, or nothing for the whole file.
fn key_prefix(key: &KeyPath) -> String {
    if key.is_root() {
        String::new()
    } else {
        format!("{key}: ")
    }
}

/// `file:line:column: ` for a TOML entry, `file: ` for a JSON one.
fn server_place(file: &Option<PathBuf>, at: &Option<Location>) -> String {
    match at {
        Some(at) => format!("{at}: "),
        None => file_prefix(file),
    }
}

fn file_prefix(file: &Option<PathBuf>) -> String {
    file.as_ref()
        .map(|file| format!("{}: ", file.display()))
        .unwrap_or_default()
}

fn unknown_key_hint(
    did_you_mean: &Option<&'static str>,
    belongs_in: &Option<String>,
    accepted: &[&str],
) -> String {
    let mut hint = String::new();
    if let Some(table) = belongs_in {
        let _ = write!(hint, "; this key belongs in {table}");
    } else if let Some(known) = did_you_mean {
        let _ = write!(hint, "; did you mean `{known}`?");
    }
    let _ = write!(hint, " (accepted keys: {})", accepted.join(", "));
    hint
}

fn missing_window(worker: Option<&str>, enabled_by: &KeyPath) -> String {
    match worker {
        None => format!(
            "the scratchpad of the agent is enabled ({enabled_by} = true) but [agent.llm] has no \
             context_window; add context_window = <the model's context size in tokens> to [agent.llm]"
        ),
        Some(name) => {
            let llm = KeyPath::root()
                .key("orchestration")
                .key("worker")
                .key(name)
                .key("llm");
            format!(
                "the scratchpad of worker {} is enabled ({enabled_by} = true) but neither [{llm}] \
                 nor [agent.llm] sets context_window; add context_window = <the model's context \
                 size in tokens> to one of them",
                quoted(name)
            )
        }
    }
}
