//! The JSON path parser on arbitrary text: it never panics, and a path it accepts prints as
//! text that parses back to the same path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use overspill_json::JsonPath;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = JsonPath::parse_relative(&text);
    if let Ok(path) = JsonPath::parse(&text) {
        let printed = path.to_string();
        let again = JsonPath::parse(&printed).unwrap_or_else(|e| {
            panic!("{text:?} printed as {printed:?}, which does not parse: {e}")
        });
        assert_eq!(again, path, "{text:?} printed as {printed:?}");
    }
});
