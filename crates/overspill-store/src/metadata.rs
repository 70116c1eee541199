//! The metadata record kept for each stored output, for listing (`overspill ls`).
//!
//! Records live in `{store dir}/.overspill-meta/{file name}.json`. The directory name carries
//! the reserved prefix, so [`crate::ReadRoot`] refuses every path into it and exploration tools
//! never see or list it.

use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::companion::Companion;
use crate::format::Format;
use crate::time::{format_rfc3339, parse_rfc3339};

/// Name of the metadata directory inside a store directory.
pub const METADATA_DIR: &str = ".overspill-meta";

/// Version of the on-disk record layout.
const RECORD_VERSION: u32 = 1;

/// A token count as the caller measured it; the store never counts tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenTally {
    /// Tokens in the output.
    pub tokens: usize,
    /// The counter that produced it (`o200k_base`, `gemma3`, …).
    pub counter: String,
}

/// What is known about one stored output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// The stored file's name, `{tool}-{hash}.{ext}`.
    pub file_name: String,
    /// The tool name as the caller gave it (unsanitised).
    pub tool: String,
    /// The server the tool belongs to, if any.
    pub server: Option<String>,
    /// When the output was first stored.
    pub created: SystemTime,
    /// Bytes in the stored file.
    pub bytes: u64,
    /// Lines in the stored file.
    pub lines: usize,
    /// The token count, if the caller gave one.
    pub tokens: Option<TokenTally>,
    /// The stored file's format.
    pub format: Format,
    /// Companion files written beside it.
    pub companions: Vec<Companion>,
}

impl Metadata {
    /// `created` as UTC RFC 3339, e.g. `2026-12-02T09:41:07.123Z`.
    pub fn created_rfc3339(&self) -> String {
        format_rfc3339(self.created)
    }
}

/// The on-disk form: flat, versioned, human-readable.
#[derive(Serialize, Deserialize)]
struct Record {
    version: u32,
    file_name: String,
    tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    server: Option<String>,
    created: String,
    bytes: u64,
    lines: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tokens: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    counter: Option<String>,
    format: Format,
    #[serde(default)]
    companions: Vec<Companion>,
}

/// The record's file name for a stored output.
pub(crate) fn record_name(file_name: &str) -> String {
    format!("{file_name}.json")
}

/// Serialises `meta` as a pretty JSON record.
pub(crate) fn encode(meta: &Metadata) -> String {
    let record = Record {
        version: RECORD_VERSION,
        file_name: meta.file_name.clone(),
        tool: meta.tool.clone(),
        server: meta.server.clone(),
        created: format_rfc3339(meta.created),
        bytes: meta.bytes,
        lines: meta.lines,
        tokens: meta.tokens.as_ref().map(|t| t.tokens),
        counter: meta.tokens.as_ref().map(|t| t.counter.clone()),
        format: meta.format,
        companions: meta.companions.clone(),
    };
    // A struct of strings and integers always serialises.
    let mut text = serde_json::to_string_pretty(&record).unwrap_or_default();
    text.push('\n');
    text
}

/// Puts `records` in listing order: oldest first, ties by file name.
pub(crate) fn oldest_first(records: &mut [Metadata]) {
    records.sort_by(|a, b| {
        a.created
            .cmp(&b.created)
            .then_with(|| a.file_name.cmp(&b.file_name))
    });
}

/// Parses a record; `None` (with a warning) if it is not one this version understands.
pub(crate) fn decode(text: &str, path: &Path) -> Option<Metadata> {
    let record: Record = match serde_json::from_str(text) {
        Ok(record) => record,
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "skipping an unreadable metadata record");
            return None;
        }
    };
    let Some(created) = parse_rfc3339(&record.created) else {
        tracing::warn!(path = %path.display(), "skipping a metadata record with a bad `created` time");
        return None;
    };
    let tokens = match (record.tokens, record.counter) {
        (Some(tokens), Some(counter)) => Some(TokenTally { tokens, counter }),
        _ => None,
    };
    Some(Metadata {
        file_name: record.file_name,
        tool: record.tool,
        server: record.server,
        created,
        bytes: record.bytes,
        lines: record.lines,
        tokens,
        format: record.format,
        companions: record.companions,
    })
}

#[cfg(test)]
mod tests;
