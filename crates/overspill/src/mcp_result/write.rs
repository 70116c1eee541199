//! The one writer of the tool results overspill writes itself: an exploration tool's answer,
//! why a call could not be made, a pointer in place of a stored result. Each is one text block,
//! written for the MCP revision the client speaks (what it asks of a result: [`ResultType`]).

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The member that says whether a 2026-07-28 result is complete, and its value when it is.
pub(crate) const RESULT_TYPE: &str = "resultType";
pub(crate) const COMPLETE: &str = "complete";

/// Whether the MCP revision a result is written for has a complete result say so in
/// `resultType` (docs/mcp-proxy.md#revisions). The relay knows the revisions; this is all of
/// them a result's own members depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ResultType {
    /// The revisions with sessions (2024-11-05 to 2025-11-25): a result is complete by being
    /// one, and no member says so.
    #[default]
    Implicit,
    /// 2026-07-28: a complete result says so, `"resultType": "complete"`.
    Stated,
}

impl ResultType {
    /// `result` as a complete result of this revision: with `"resultType": "complete"` when
    /// the revision asks for it and the result does not say already; otherwise as it is.
    ///
    /// ```
    /// use overspill::mcp_result::ResultType;
    /// use serde_json::json;
    ///
    /// let listed = json!({"tools": []});
    /// assert_eq!(ResultType::Stated.complete(listed.clone()), json!({"tools": [], "resultType": "complete"}));
    /// assert_eq!(ResultType::Implicit.complete(listed.clone()), listed);
    /// ```
    pub fn complete(self, mut result: Value) -> Value {
        if self == ResultType::Stated
            && let Some(fields) = result.as_object_mut()
        {
            fields
                .entry(RESULT_TYPE)
                .or_insert_with(|| Value::from(COMPLETE));
        }
        result
    }
}

/// A `CallToolResult` as overspill writes it: one text block, an error result or not, for a
/// revision ([`ResultType`]); in place of a stored result, that result's other members as they
/// were written.
///
/// ```
/// use overspill::mcp_result::{ResultType, ToolResult};
/// use serde_json::json;
///
/// let refused = ToolResult::text("no server offers `fetch`").with_error(true);
/// assert_eq!(
///     refused.written_for(ResultType::Stated).into_value(),
///     json!({"content": [{"type": "text", "text": "no server offers `fetch`"}],
///            "isError": true, "resultType": "complete"})
/// );
/// ```
#[derive(Debug, Clone)]
pub struct ToolResult<'a> {
    text: Cow<'a, str>,
    is_error: bool,
    result_type: ResultType,
    /// Members of the result it replaces, as written (never `content`).
    kept: Vec<(&'a str, &'a RawValue)>,
}

impl<'a> ToolResult<'a> {
    /// A result whose one text block is `text`: not an error, for a revision with sessions.
    pub fn text(text: impl Into<Cow<'a, str>>) -> ToolResult<'a> {
        ToolResult {
            text: text.into(),
            is_error: false,
            result_type: ResultType::Implicit,
            kept: Vec::new(),
        }
    }

    /// The same result, an error result (`isError: true`: the model reads why; the call itself
    /// succeeded) or not.
    #[must_use]
    pub fn with_error(mut self, is_error: bool) -> ToolResult<'a> {
        self.is_error = is_error;
        self
    }

    /// The same result, written for a revision whose results are `result_type`.
    #[must_use]
    pub fn written_for(mut self, result_type: ResultType) -> ToolResult<'a> {
        self.result_type = result_type;
        self
    }

    /// The same result with `members` of the result it replaces, as they were written.
    pub(crate) fn keeping(
        mut self,
        members: impl Iterator<Item = (&'a str, &'a RawValue)>,
    ) -> ToolResult<'a> {
        self.kept
            .extend(members.filter(|(key, _)| *key != "content"));
        self
    }

    /// The result as a JSON value.
    pub fn into_value(self) -> Value {
        // Only a kept member can fail to be a value (a number no `f64` holds); results that
        // keep members are written as text (`to_json`).
        serde_json::to_value(&self).unwrap_or_else(|_| Value::Object(Map::new()))
    }

    /// The result as JSON text; `None` only if a kept member cannot be written.
    pub(crate) fn to_json(&self) -> Option<String> {
        serde_json::to_string(self).ok()
    }

    /// Whether a kept member already says `key`.
    fn keeps(&self, key: &str) -> bool {
        self.kept.iter().any(|(kept, _)| *kept == key)
    }
}

impl Serialize for ToolResult<'_> {
    /// `content` first, then the kept members in their order, then `isError` and `resultType`
    /// unless a kept member says them already.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct TextBlock<'t> {
            #[serde(rename = "type")]
            kind: &'static str,
            text: &'t str,
        }
        let mut map = serializer.serialize_map(None)?;
        let block = TextBlock {
            kind: "text",
            text: &self.text,
        };
        map.serialize_entry("content", &[block])?;
        for (key, raw) in &self.kept {
            map.serialize_entry(key, raw)?;
        }
        if self.is_error && !self.keeps("isError") {
            map.serialize_entry("isError", &true)?;
        }
        if self.result_type == ResultType::Stated && !self.keeps(RESULT_TYPE) {
            map.serialize_entry(RESULT_TYPE, COMPLETE)?;
        }
        map.end()
    }
}
