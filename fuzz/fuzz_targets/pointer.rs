//! The pointer renderer on arbitrary output text and tool names: never a panic, never more
//! than `MAX_POINTER_TOKENS` tokens (docs/tools.md#5-the-pointer).
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use overspill_explore::Pointer;
use overspill_explore::MAX_POINTER_TOKENS;
use overspill_store::{Format, Stored, content_hash, count_lines, sanitize_name};

fuzz_target!(|data: &[u8]| {
    // The first line is the tool's name, the rest the output.
    let text = String::from_utf8_lossy(data);
    let (tool, content) = text.split_once('\n').unwrap_or(("tool", &text));
    let format = Format::detect(content);
    let file_name = format!(
        "{}-{}.{}",
        sanitize_name(tool, "output"),
        content_hash(content.as_bytes()),
        format.extension()
    );
    let stored = Stored {
        path: PathBuf::from("/nonexistent").join(&file_name),
        file_name,
        format,
        bytes: content.len() as u64,
        lines: count_lines(content),
        companions: Vec::new(),
        already_existed: false,
    };
    let counter = overspill_tokens::o200k();
    let tokens = counter.count(content) as u64;
    let pointer = Pointer::new(tool, &stored, tokens, counter)
        .with_content(content)
        .render();
    let cost = counter.count(&pointer);
    assert!(cost <= MAX_POINTER_TOKENS, "{cost} tokens: {pointer}");
});
