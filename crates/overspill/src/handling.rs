//! What a host asks of one tool output besides its content (docs/facade.md#2-intercepting).

use crate::store::TextLayout;

/// What the host asked of one output besides its content: a [`ToolOutput`]'s, or the default
/// for a result the proxy reads from its JSON-RPC text, which asks nothing beyond the rules.
///
/// [`ToolOutput`]: crate::ToolOutput
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Handling {
    /// It passes whatever its size: an error, or a result that is not final.
    pub(crate) must_pass: bool,
    /// Its own threshold, before the configured ones.
    pub(crate) min_tokens: Option<u64>,
    /// How its text is laid out if it is stored.
    pub(crate) text_layout: TextLayout,
}
