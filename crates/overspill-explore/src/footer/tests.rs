use super::*;

#[test]
fn footer_shape_is_pinned() {
    let footer = Footer {
        tool: "iterate_over",
        summary: "$.results (items [3..7) of 120 total, fields: [id,title])",
        notes: &[],
        tokens: 412,
        budget: WindowHint {
            remaining: 93_210,
            used: 9_190,
            baseline: 4_000,
            usable: 102_400,
        },
    };
    assert_eq!(
        footer.to_string(),
        "--- iterate_over: $.results (items [3..7) of 120 total, fields: [id,title]) | ~412 tokens | ~93,210 of 102,400 budget tokens left ---"
    );
}

fn hint(remaining: u64, usable: u64) -> WindowHint {
    WindowHint {
        remaining,
        used: usable - remaining,
        baseline: 0,
        usable,
    }
}

#[test]
fn notes_follow_the_summary() {
    let notes = ["invalid UTF-8 shown as \u{FFFD}".to_owned(), "x".to_owned()];
    let footer = Footer {
        tool: "head",
        summary: "lines 1-2 of 2",
        notes: &notes,
        tokens: 9,
        budget: hint(1, 10),
    };
    assert_eq!(
        footer.to_string(),
        "--- head: lines 1-2 of 2; invalid UTF-8 shown as \u{FFFD}; x | ~9 tokens | ~1 of 10 budget tokens left ---"
    );
}
