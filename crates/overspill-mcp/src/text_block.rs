//! A large tool result's one text block, taken out of the message it arrived in without a
//! second copy: the JSON string is unescaped in place, in the message's own buffer.
//!
//! Parsing a 60 MB result into a `serde_json::Value` holds the message, serde_json's unescape
//! buffer and the string at once (about 3× the result); taking the text in place holds it
//! once. Only the shape interception cares about takes this path — one text content block and
//! no structured content — and any doubt falls back to the ordinary parse.

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Messages at least this long take the in-place path.
pub(crate) const IN_PLACE_BYTES: usize = 4 << 20;

/// The result of `message` (a response's text) as a value whose one text block owns the
/// message's buffer; `Err` gives the message back when it does not have that shape.
pub(crate) fn take(message: String) -> Result<Value, String> {
    let Some(plan) = plan(&message) else {
        return Err(message);
    };
    let mut bytes = message.into_bytes();
    let (start, end) = plan.text;
    let length = unescape_in_place(&mut bytes[start..end]);
    bytes.copy_within(start..start + length, 0);
    bytes.truncate(length);
    // The message was UTF-8 and its escapes were checked, so the text is too; should that
    // ever not hold, the text is shown with replacement characters rather than lost.
    let text = String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
    let mut block = plan.block;
    block.insert("text".to_owned(), Value::String(text));
    let mut result = Map::new();
    result.insert(
        "content".to_owned(),
        Value::Array(vec![Value::Object(block)]),
    );
    result.extend(plan.others);
    Ok(Value::Object(result))
}

/// What [`take`] found: the text's byte range inside the message (between the quotes), the
/// block's other fields, the result's other fields.
struct Plan {
    text: (usize, usize),
    block: Map<String, Value>,
    others: Map<String, Value>,
}

fn plan(message: &str) -> Option<Plan> {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        result: &'a RawValue,
    }
    let envelope: Envelope = serde_json::from_str(message).ok()?;
    let fields: IndexMap<String, &RawValue> = serde_json::from_str(envelope.result.get()).ok()?;
    let mut others = Map::new();
    let mut content = None;
    for (key, raw) in fields {
        match key.as_str() {
            "content" => content = Some(raw),
            // The facade stores structured content rather than the text: the ordinary path.
            "structuredContent" if raw.get() != "null" => return None,
            _ => {
                others.insert(key, serde_json::from_str(raw.get()).ok()?);
            }
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
    let mut rest = Map::new();
    let mut text = None;
    for (key, raw) in block {
        if key == "text" {
            text = Some(raw);
        } else {
            rest.insert(key, serde_json::from_str(raw.get()).ok()?);
        }
    }
    let text = text?.get();
    let quoted = text.as_bytes();
    if quoted.len() < 2 || quoted[0] != b'"' || !escapes_are_valid(&quoted[1..quoted.len() - 1]) {
        return None;
    }
    let start = offset(message, text)? + 1;
    Some(Plan {
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

/// Whether every escape in the body of a JSON string (between its quotes, already checked to
/// be JSON by the parser) decodes: known letters, four hex digits, surrogates in pairs.
fn escapes_are_valid(body: &[u8]) -> bool {
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &body[at..]) {
        at += found;
        match body.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
            Some(b'u') => {
                let Some(unit) = hex4(body, at + 2) else {
                    return false;
                };
                match unit {
                    0xD800..=0xDBFF => {
                        let low = (body.get(at + 6) == Some(&b'\\')
                            && body.get(at + 7) == Some(&b'u'))
                        .then(|| hex4(body, at + 8))
                        .flatten();
                        if !matches!(low, Some(0xDC00..=0xDFFF)) {
                            return false;
                        }
                        at += 12;
                    }
                    0xDC00..=0xDFFF => return false,
                    _ => at += 6,
                }
            }
            _ => return false,
        }
    }
    true
}

/// Unescapes a JSON string body in place (escapes never grow when decoded); returns the new
/// length. The body must have passed [`escapes_are_valid`].
fn unescape_in_place(body: &mut [u8]) -> usize {
    let mut read = 0;
    let mut write = 0;
    while let Some(found) = memchr::memchr(b'\\', &body[read..]) {
        body.copy_within(read..read + found, write);
        write += found;
        read += found;
        let (decoded, used) = match body[read + 1] {
            b'u' => {
                let unit = hex4(body, read + 2).unwrap_or(0xFFFD);
                if (0xD800..=0xDBFF).contains(&unit) {
                    let low = hex4(body, read + 8).unwrap_or(0xDC00);
                    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    (char::from_u32(code).unwrap_or('\u{FFFD}'), 12)
                } else {
                    (char::from_u32(unit).unwrap_or('\u{FFFD}'), 6)
                }
            }
            letter => (
                match letter {
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    other => char::from(other),
                },
                2,
            ),
        };
        let mut utf8 = [0u8; 4];
        let encoded = decoded.encode_utf8(&mut utf8).as_bytes();
        body[write..write + encoded.len()].copy_from_slice(encoded);
        write += encoded.len();
        read += used;
    }
    let rest = body.len() - read;
    body.copy_within(read.., write);
    write + rest
}

fn hex4(body: &[u8], at: usize) -> Option<u32> {
    let digits = body.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn response(result: &Value) -> String {
        json!({"jsonrpc": "2.0", "id": 7, "result": result}).to_string()
    }

    #[test]
    fn one_text_block_is_taken_with_the_other_fields() {
        let result = json!({"content": [{"type": "text", "text": "a\n\"b\" \u{e9} 😀", "annotations": {"p": 1}}],
                            "_meta": {"m": 1}, "x-vendor": [1]});
        let taken = take(response(&result)).unwrap();
        assert_eq!(taken, result);
    }

    #[test]
    fn other_shapes_are_given_back_unchanged() {
        for result in [
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
            json!({"content": [{"type": "image", "data": "x", "mimeType": "image/png"}]}),
            json!({"content": [{"type": "text", "text": "a"}], "structuredContent": {"a": 1}}),
        ] {
            let message = response(&result);
            assert_eq!(take(message.clone()), Err(message));
        }
        let lone_surrogate =
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\ud800x"}]}}"#;
        assert!(take(lone_surrogate.to_owned()).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn unescaping_in_place_equals_serde_json(text in "(?s).{0,200}") {
            let quoted = serde_json::to_string(&text).unwrap();
            // Also with every non-ASCII character written as \u escapes.
            let ascii: String = quoted.chars().map(|c| {
                if c.is_ascii() { c.to_string() } else {
                    let mut units = [0u16; 2];
                    c.encode_utf16(&mut units).iter().map(|u| format!("\\u{u:04x}")).collect()
                }
            }).collect();
            for form in [quoted, ascii] {
                let mut body = form.as_bytes()[1..form.len() - 1].to_vec();
                prop_assert!(escapes_are_valid(&body));
                let length = unescape_in_place(&mut body);
                body.truncate(length);
                prop_assert_eq!(String::from_utf8(body).unwrap(), text.clone());
            }
        }
    }
}
