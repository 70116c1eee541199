//! The JSON-RPC envelope of a message, read once without copying the message: its members as
//! borrowed [`RawValue`]s, and where in the text each is. The one reading of the envelope:
//! `message.rs` routes on it, and `revision.rs` finds the result it completes and the error code
//! it gives a status with it.

use std::ops::Range;

use serde::Deserialize;
use serde_json::value::RawValue;

/// The members of an envelope; the rest (a result's or params' insides, unknown members) stay
/// unparsed in the original text.
#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(default, borrow)]
    pub(crate) jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) method: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) error: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) params: Option<&'a RawValue>,
}

impl<'a> Envelope<'a> {
    /// The envelope of one message (not a batch).
    pub(crate) fn read(text: &'a str) -> Result<Envelope<'a>, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// Where a response's `result` is in its text, so that a change to the result alone keeps the
/// envelope as it was written. `None` for an error response, or text that is not a response.
pub(crate) fn result_range(text: &str) -> Option<Range<usize>> {
    let envelope = Envelope::read(text).ok()?;
    envelope.result.map(|raw| span(text, raw))
}

/// The `error.code` of an error response; `None` for anything else.
pub(crate) fn error_code(text: &str) -> Option<i64> {
    #[derive(Deserialize)]
    struct Error {
        code: i64,
    }
    let error = Envelope::read(text).ok()?.error?;
    serde_json::from_str::<Error>(error.get())
        .ok()
        .map(|error| error.code)
}

/// Where `raw`, a member read from `text` on a borrowed [`RawValue`], is in `text`.
pub(crate) fn span(text: &str, raw: &RawValue) -> Range<usize> {
    let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    start..start + raw.get().len()
}
