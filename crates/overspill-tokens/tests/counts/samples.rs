//! Texts the tests share: the sample tool outputs and hand-picked hard cases.

use std::path::PathBuf;

/// The sample tool outputs of `../shared/data/` (beside the workspace), or
/// `None` with a note on stderr when that folder is absent.
pub fn shared_data_files() -> Option<Vec<(String, String)>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping the sample files: {} is absent", dir.display());
        return None;
    };
    let mut files: Vec<(String, String)> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("json" | "txt" | "md" | "log")
            )
        })
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            Some((path.file_name()?.to_string_lossy().into_owned(), text))
        })
        .collect();
    files.sort();
    Some(files)
}

/// Short texts that have tripped tokenizers up: scripts, emoji sequences,
/// whitespace runs, special-token look-alikes.
pub fn hard_cases() -> Vec<(&'static str, String)> {
    vec![
        ("cjk", "漢字仮名交じり文、한국어 텍스트와 中文混排。".into()),
        ("emoji with zwj", "👩‍👩‍👧‍👦 👨🏽‍💻 🏳️‍🌈 ❤️‍🔥 🇯🇵🇫🇷".into()),
        (
            "whitespace runs",
            format!(
                "a{}b\t\t\tc\n\n\n\nd{}e\r\n\r\n f",
                " ".repeat(40),
                "\u{a0}".repeat(7)
            ),
        ),
        (
            "endoftext as text",
            "before<|endoftext|>after <|fim_prefix|><|im_start|>".into(),
        ),
        (
            "combining marks",
            "e\u{301}\u{302} n\u{303} Z\u{351}\u{35b}\u{34c}".into(),
        ),
        (
            "control characters",
            "\u{0}\u{1}\u{7}\u{1b}[31mred\u{1b}[0m\u{7f}\u{85}".into(),
        ),
        (
            "mixed scripts",
            "Ελληνικά Кириллица العربية हिन्दी ไทย עברית".into(),
        ),
        (
            "json",
            r#"{"items":[{"name":"api-7d9f","restarts":17,"ready":false}],"total":1}"#.into(),
        ),
        (
            "long digits",
            "31415926535897932384626433832795028841971693993751".into(),
        ),
        ("one char", "x".into()),
        ("empty", String::new()),
    ]
}
