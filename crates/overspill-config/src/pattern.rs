//! Tool-name patterns (docs/configuration.md#tool-name-patterns) and the `mcp_filter` built from them.
//!
//! One syntax serves both the keys of `[mcp.servers.<name>.scratchpad]` and
//! the entries of an agent's `mcp_filter`: a glob anchored to the whole tool
//! name, case-sensitive, with `*`, `?`, `[abc]`/`[a-z]`/`[!a]` classes and
//! `{a,b}` alternation. `/` is an ordinary character (globset's literal
//! separators are off), `\` escapes the next character on every platform, and
//! an alternation may hold an empty branch (`fetch{,_all}`).

use std::fmt;
use std::hash::{Hash, Hasher};

use globset::{Candidate, Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

/// A compiled tool-name pattern.
///
/// Built once, then only read; cheap to clone. Two patterns are equal when
/// their texts are.
///
/// ```
/// use overspill_config::ToolPattern;
///
/// let pattern = ToolPattern::new("k8s_{list,get}_*")?;
/// assert!(pattern.matches("k8s_list_pods"));
/// assert!(!pattern.matches("K8S_LIST_PODS")); // case-sensitive
/// assert!(!pattern.matches("x_k8s_list_pods")); // anchored
/// assert_eq!(pattern.len_chars(), 16);
/// # Ok::<(), overspill_config::PatternError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ToolPattern {
    glob: Glob,
    matcher: GlobMatcher,
    chars: usize,
}

/// Why a tool-name pattern does not compile. Each message says how to fix it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The pattern is the empty string.
    #[error("a tool-name pattern cannot be empty; use \"*\" to match every tool")]
    Empty,
    /// A `[` opens a character class that no `]` closes.
    #[error(
        "unclosed character class; a `[` opens a class that no `]` closes \
         (to match a literal `[`, write it as `[[]`)"
    )]
    UnclosedClass,
    /// A class range runs backwards, like `[z-a]`.
    #[error(
        "invalid character range `{start}-{end}` (it starts after it ends); \
         write it as `{end}-{start}`"
    )]
    InvalidRange {
        /// The first character of the range.
        start: char,
        /// The last character of the range.
        end: char,
    },
    /// A `}` closes an alternation that no `{` opened.
    #[error(
        "unopened alternation; a `}}` closes a group that no `{{` opened \
         (to match a literal `}}`, write it as `[}}]`)"
    )]
    UnopenedAlternates,
    /// A `{` opens an alternation that no `}` closes.
    #[error(
        "unclosed alternation; a `{{` opens a group that no `}}` closes \
         (to match a literal `{{`, write it as `[{{]`)"
    )]
    UnclosedAlternates,
    /// Alternations are nested deeper than globset allows.
    #[error("alternations `{{…}}` are nested too deeply; flatten them into one group")]
    NestedTooDeep,
    /// The pattern ends with a single `\`, which escapes nothing.
    #[error(
        "the pattern ends with a lone `\\`, which escapes nothing \
         (to match a literal backslash, write it as `\\\\`)"
    )]
    DanglingEscape,
    /// Any other compile failure reported by globset.
    #[error("the pattern does not compile: {0}")]
    Other(String),
}

impl ToolPattern {
    /// Compiles `text` with the syntax of docs/configuration.md#tool-name-patterns.
    ///
    /// # Errors
    ///
    /// [`PatternError`] when `text` is empty or is not a valid glob.
    pub fn new(text: &str) -> Result<Self, PatternError> {
        if text.is_empty() {
            return Err(PatternError::Empty);
        }
        let glob = GlobBuilder::new(text)
            .literal_separator(false)
            .case_insensitive(false)
            // Explicit so the syntax is the same on every platform (globset
            // turns escapes off on Windows by default).
            .backslash_escape(true)
            .empty_alternates(true)
            .build()
            .map_err(|err| PatternError::from_glob(&err))?;
        Ok(Self {
            matcher: glob.compile_matcher(),
            chars: text.chars().count(),
            glob,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        self.glob.glob()
    }

    /// The length of the pattern in characters: the measure of docs/configuration.md#threshold-resolution's
    /// "longest pattern wins".
    pub fn len_chars(&self) -> usize {
        self.chars
    }

    /// Whether the pattern matches the whole of `tool`.
    pub fn matches(&self, tool: &str) -> bool {
        self.matcher
            .is_match_candidate(&Candidate::from_bytes(tool.as_bytes()))
    }

    pub(crate) fn glob(&self) -> &Glob {
        &self.glob
    }
}

impl PatternError {
    fn from_glob(err: &globset::Error) -> Self {
        use globset::ErrorKind;
        match err.kind() {
            ErrorKind::UnclosedClass => Self::UnclosedClass,
            ErrorKind::InvalidRange(start, end) => Self::InvalidRange {
                start: *start,
                end: *end,
            },
            ErrorKind::UnopenedAlternates => Self::UnopenedAlternates,
            ErrorKind::UnclosedAlternates => Self::UnclosedAlternates,
            ErrorKind::TooManyNestedAlternates | ErrorKind::NestedAlternates => Self::NestedTooDeep,
            ErrorKind::DanglingEscape => Self::DanglingEscape,
            ErrorKind::Regex(message) => Self::Other(message.clone()),
            other => Self::Other(other.to_string()),
        }
    }
}

impl PartialEq for ToolPattern {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ToolPattern {}

impl Hash for ToolPattern {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for ToolPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ToolPattern {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// An agent's `mcp_filter`: the tools it may use, as a list of patterns.
///
/// A tool is allowed when any pattern matches it. An empty filter allows no
/// tool; an *absent* filter (`None` where one is taken) allows every tool.
///
/// ```
/// use overspill_config::{ToolFilter, ToolPattern};
///
/// let filter = ToolFilter::new(vec![ToolPattern::new("k8s_*")?, ToolPattern::new("grep")?])?;
/// assert!(filter.allows("k8s_list_pods"));
/// assert!(!filter.allows("web_search"));
/// # Ok::<(), overspill_config::PatternError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ToolFilter {
    patterns: Vec<ToolPattern>,
    set: GlobSet,
}

impl ToolFilter {
    /// A filter allowing the tools any of `patterns` matches.
    ///
    /// # Errors
    ///
    /// [`PatternError::Other`] in the rare case globset cannot combine the
    /// patterns into one matcher (a size limit).
    pub fn new(patterns: Vec<ToolPattern>) -> Result<Self, PatternError> {
        let set = glob_set(&patterns)?;
        Ok(Self { patterns, set })
    }

    /// Whether the filter allows `tool`.
    pub fn allows(&self, tool: &str) -> bool {
        self.set
            .is_match_candidate(&Candidate::from_bytes(tool.as_bytes()))
    }

    /// The patterns, in the order written.
    pub fn patterns(&self) -> &[ToolPattern] {
        &self.patterns
    }

    /// Whether the filter has no pattern (and so allows no tool).
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

impl PartialEq for ToolFilter {
    fn eq(&self, other: &Self) -> bool {
        self.patterns == other.patterns
    }
}

impl Eq for ToolFilter {}

impl fmt::Display for ToolFilter {
    /// The filter as TOML would write it: `["k8s_*", "grep"]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, pattern) in self.patterns.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            crate::location::write_quoted(f, pattern.as_str())?;
        }
        f.write_str("]")
    }
}

impl serde::Serialize for ToolFilter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.patterns.serialize(serializer)
    }
}

/// The tools among `tools` that `filter` lets an agent use: all of them when
/// the filter is absent, none when it is empty (docs/configuration.md#threshold-resolution).
///
/// Pass the intercepted tools to learn whether an agent has anything to
/// intercept at all.
///
/// ```
/// use overspill_config::{reachable, ToolFilter, ToolPattern};
///
/// let tools = ["k8s_list_pods", "web_search"];
/// assert_eq!(reachable(None, tools), tools);
/// let none = ToolFilter::new(vec![])?;
/// assert!(reachable(Some(&none), tools).is_empty());
/// let k8s = ToolFilter::new(vec![ToolPattern::new("k8s_*")?])?;
/// assert_eq!(reachable(Some(&k8s), tools), ["k8s_list_pods"]);
/// # Ok::<(), overspill_config::PatternError>(())
/// ```
pub fn reachable<'t>(
    filter: Option<&ToolFilter>,
    tools: impl IntoIterator<Item = &'t str>,
) -> Vec<&'t str> {
    tools
        .into_iter()
        .filter(|tool| filter.is_none_or(|filter| filter.allows(tool)))
        .collect()
}

/// One globset over `patterns`, indices in the same order.
pub(crate) fn glob_set(patterns: &[ToolPattern]) -> Result<GlobSet, PatternError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        builder.add(pattern.glob().clone());
    }
    builder
        .build()
        .map_err(|err| PatternError::Other(err.to_string()))
}

#[cfg(test)]
mod tests;
