//! A large tool result's one text block, taken out of the response it arrived in without a
//! second copy: the JSON string is decoded in place, in the response's own buffer.
//!
//! Parsing a 60 MB result into a `serde_json::Value` holds the response, serde_json's unescape
//! buffer and the string at once (about 3× the result); decoding in place holds it once. Only
//! the shape interception cares about takes this path — one text content block and no
//! structured content — and any doubt falls back to reading the response as text.

use std::borrow::Cow;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Normalised, is_final, replaced_response, response, strip_footer};
use crate::session::Session;

/// Responses at least this long take the in-place path.
pub(crate) const IN_PLACE_BYTES: usize = 4 << 20;

/// A response whose one text block was decoded in place.
pub(crate) struct Taken {
    /// The response's id, as written.
    id: Box<RawValue>,
    /// The result's fields other than `content`, as written.
    others: Vec<(String, Box<RawValue>)>,
    /// The text block's fields other than `text`, as written.
    block: Vec<(String, Box<RawValue>)>,
    /// The block's text, decoded.
    text: String,
}

/// The response's one text block decoded in place, or the response back when it is shorter
/// than [`IN_PLACE_BYTES`] or not of that shape.
pub(crate) fn take(response: String) -> Result<Taken, String> {
    if response.len() < IN_PLACE_BYTES {
        return Err(response);
    }
    let Some(plan) = plan(&response) else {
        return Err(response);
    };
    let mut bytes = response.into_bytes();
    let (start, end) = plan.text;
    let length = overspill_json::unescape_in_place(&mut bytes[start..end]);
    bytes.copy_within(start..start + length, 0);
    bytes.truncate(length);
    // The response was UTF-8 and its escapes were checked, so the text is too; should that
    // ever not hold, the text is shown with replacement characters rather than lost.
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
    Ok(Taken {
        id: plan.id,
        others: plan.others,
        block: plan.block,
        text,
    })
}

impl Taken {
    /// The response to send: the same result written anew when it passes, else the pointer's.
    pub(crate) fn respond(self, inner: &Session, server: &str, tool: &str) -> String {
        let field = |name: &str| {
            self.others
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, raw)| raw.get())
        };
        // A result that is not final (an error, a task handle, a request for input) passes.
        let passes = !is_final(field);
        let decided = inner.decide(server, tool, passes, None, |footer| {
            Normalised::Store(strip_footer(Cow::Borrowed(&self.text), footer))
        });
        if let Some(pointer) = decided.into_replacement() {
            let kept = self
                .others
                .iter()
                .map(|(key, raw)| (key.as_str(), raw.get()));
            return replaced_response(self.id.get(), kept, &pointer);
        }
        self.written_anew()
    }

    /// The response as it came, from its parts: the same JSON, though the text's escapes may
    /// be spelled differently.
    fn written_anew(self) -> String {
        let mut block = String::from("{");
        for (key, raw) in &self.block {
            push_member(&mut block, key, raw.get());
        }
        let text = serde_json::Value::String(self.text).to_string();
        push_member(&mut block, "text", &text);
        block.push('}');
        let mut result = String::from("{");
        push_member(&mut result, "content", &format!("[{block}]"));
        for (key, raw) in &self.others {
            push_member(&mut result, key, raw.get());
        }
        result.push('}');
        response(self.id.get(), &result)
    }
}

/// Appends `"key":raw` to an object being written (after a comma unless it is the first).
fn push_member(object: &mut String, key: &str, raw: &str) {
    if !object.ends_with('{') {
        object.push(',');
    }
    object.push_str(&serde_json::Value::from(key).to_string());
    object.push(':');
    object.push_str(raw);
}

/// What [`take`] found: the text's byte range inside the response (between the quotes), and
/// the other parts as written.
struct Plan {
    id: Box<RawValue>,
    text: (usize, usize),
    block: Vec<(String, Box<RawValue>)>,
    others: Vec<(String, Box<RawValue>)>,
}

fn plan(response: &str) -> Option<Plan> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
        #[serde(borrow)]
        result: &'a RawValue,
    }
    let envelope: Envelope = serde_json::from_str(response).ok()?;
    let fields: IndexMap<String, &RawValue> = serde_json::from_str(envelope.result.get()).ok()?;
    let mut others = Vec::new();
    let mut content = None;
    for (key, raw) in fields {
        match key.as_str() {
            "content" => content = Some(raw),
            // The structured content is what gets stored: the text path.
            "structuredContent" if raw.get().trim() != "null" => return None,
            _ => others.push((key, raw.to_owned())),
        }
    }
    let blocks: Vec<&RawValue> = serde_json::from_str(content?.get()).ok()?;
    let [block] = blocks.as_slice() else {
        return None;
    };
    let block: IndexMap<String, &RawValue> = serde_json::from_str(block.get()).ok()?;
    if block.get("type").map(|raw| raw.get()) != Some("\"text\"") {
        return None;
    }
    let mut rest = Vec::new();
    let mut text = None;
    for (key, raw) in block {
        if key == "text" {
            text = Some(raw);
        } else {
            rest.push((key, raw.to_owned()));
        }
    }
    let text = text?.get();
    let quoted = text.as_bytes();
    if quoted.len() < 2
        || quoted[0] != b'"'
        || !overspill_json::escapes_decode(&quoted[1..quoted.len() - 1])
    {
        return None;
    }
    let start = offset(response, text)? + 1;
    Some(Plan {
        id: envelope.id.to_owned(),
        text: (start, start + quoted.len() - 2),
        block: rest,
        others,
    })
}

/// Where `part` (a slice of `whole`) starts in `whole`.
fn offset(whole: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

#[cfg(test)]
mod tests;
