//! Argument parsing and dispatch: any tool name (from the first byte) with any argument text
//! answers with a well-formed error object or a result ending in its footer, within the
//! per-call cap (docs/budget.md, docs/security.md).
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use overspill_store::ReadRoot;

const CAP: u64 = 2_000;

struct Fixture {
    _dir: tempfile::TempDir,
    root: ReadRoot,
    registry: Registry,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let files: [(&str, &[u8]); 4] = [
            ("app.log", b"boot\nGET /api 500\nok\n\xff\xfe broken\n"),
            (
                "doc.json",
                br#"{"items": [{"id": 1, "tags": ["a"]}, {"id": 2}], "meta": {"n": 2}}"#,
            ),
            ("empty.txt", b""),
            ("notes.md", b"# Title\n\n## Part\ntext\n"),
        ];
        for (name, content) in files {
            std::fs::write(dir.path().join(name), content).expect("write");
        }
        let root = ReadRoot::new(dir.path()).expect("root");
        Fixture {
            _dir: dir,
            root,
            registry: Registry::new(),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    let Some((selector, arguments)) = data.split_first() else {
        return;
    };
    let names = fixture.registry.names();
    // One selector value past the list reaches the unknown-tool path.
    let tool = names
        .get(usize::from(*selector) % (names.len() + 1))
        .copied()
        .unwrap_or("cat");
    let arguments = String::from_utf8_lossy(arguments);

    // A fresh budget each time, so the fuzzer cannot just exhaust it.
    let settings = BudgetSettings {
        max_extraction_tokens: CAP,
        ..BudgetSettings::for_window(128_000)
    };
    let budget = Arc::new(Budget::new(settings, 0).expect("budget"));
    let ctx = ExploreContext::new(fixture.root.clone(), overspill_tokens::o200k(), budget);
    let text = fixture.registry.dispatch(&ctx, tool, &arguments);

    let tokens = overspill_tokens::o200k().count(&text) as u64;
    assert!(tokens <= CAP, "{tool} {arguments}: {tokens} tokens");
    if text.starts_with('{') {
        let error: serde_json::Value = serde_json::from_str(&text).expect("error JSON parses");
        assert!(error["error"].is_string(), "{text}");
    } else {
        let footer = text.rsplit('\n').next().unwrap_or(&text);
        assert!(
            footer.starts_with(&format!("--- {tool}: ")) && footer.ends_with(" ---"),
            "{text}"
        );
    }
});
