//! JSON string bodies (the text between the quotes): the one decoder of their escapes, into a
//! new `String` for a token the tape hands out, or in place in the buffer a large text arrived
//! in, where decoding never needs more room than the escapes took.

/// Decodes the escapes of a JSON string body (already checked to be JSON by a parser); an
/// escape that does not decode (a lone surrogate) becomes U+FFFD.
pub fn unescape(body: &str) -> String {
    let bytes = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut read = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[read..]) {
        out.push_str(&body[read..read + found]);
        read += found;
        let (decoded, used) = decode_escape(bytes, read);
        out.push(decoded);
        read += used;
    }
    out.push_str(&body[read..]);
    out
}

/// Decodes the escapes of a JSON string body in place and returns its decoded length: the
/// decoded text is `body[..length]`. The body must have passed [`escapes_decode`] (so that it
/// is the same text [`unescape`] gives).
pub fn unescape_in_place(body: &mut [u8]) -> usize {
    let mut read = 0;
    let mut write = 0;
    while let Some(found) = memchr::memchr(b'\\', &body[read..]) {
        body.copy_within(read..read + found, write);
        write += found;
        read += found;
        let (decoded, used) = decode_escape(body, read);
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

/// Whether every escape of a JSON string body decodes to what it names: a known letter, four
/// hex digits, surrogates only in pairs. A body that fails is not decoded in place.
pub fn escapes_decode(body: &[u8]) -> bool {
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &body[at..]) {
        at += found;
        let used = match body.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 2,
            Some(b'u') => match (hex4(body, at + 2), low_surrogate(body, at + 6)) {
                (Some(0xD800..=0xDBFF), Some(_)) => 12,
                (Some(0xD800..=0xDFFF) | None, _) => return false,
                (Some(_), _) => 6,
            },
            _ => return false,
        };
        at += used;
    }
    true
}

/// The character of the escape at `at` (a `\`) and the bytes it takes.
fn decode_escape(body: &[u8], at: usize) -> (char, usize) {
    let letter = match body.get(at + 1) {
        Some(b'u') => return unicode_escape(body, at),
        Some(letter) => *letter,
        None => return (char::REPLACEMENT_CHARACTER, 1),
    };
    let decoded = match letter {
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        other => char::from(other),
    };
    (decoded, 2)
}

/// `\uXXXX` at `at`, with a following `\uXXXX` low surrogate when the first is a high one.
fn unicode_escape(body: &[u8], at: usize) -> (char, usize) {
    let Some(first) = hex4(body, at + 2) else {
        return (char::REPLACEMENT_CHARACTER, 2);
    };
    if (0xD800..0xDC00).contains(&first)
        && let Some(low) = low_surrogate(body, at + 6)
    {
        let code = 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00);
        return (
            char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER),
            12,
        );
    }
    (
        char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER),
        6,
    )
}

/// The low surrogate of a `\uXXXX` escape at `at`, if one is there.
fn low_surrogate(body: &[u8], at: usize) -> Option<u32> {
    if body.get(at) != Some(&b'\\') || body.get(at + 1) != Some(&b'u') {
        return None;
    }
    hex4(body, at + 2).filter(|low| (0xDC00..0xE000).contains(low))
}

/// Four hex digits at `at`.
fn hex4(body: &[u8], at: usize) -> Option<u32> {
    let digits = body.get(at..at + 4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests;
