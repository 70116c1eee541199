//! Fixtures shared by the unit tests: a temporary read root with files, a context over it,
//! and helpers to run a tool through the registry as a model would.

use std::path::Path;
use std::sync::Arc;

use overspill_budget::{Budget, BudgetSettings};
use overspill_store::ReadRoot;
use overspill_tokens::TokenCounter;
use serde_json::Value;

use crate::context::ExploreContext;
use crate::registry::Registry;

/// A read root in a temporary directory and a context over it.
pub(crate) struct Fixture {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) ctx: ExploreContext,
}

/// The realistic counter: `o200k_base`.
pub(crate) fn counter() -> &'static dyn TokenCounter {
    overspill_tokens::o200k()
}

impl Fixture {
    /// A 128,000-token window (102,400 usable) with a 10,000-token cap.
    pub(crate) fn new(files: &[(&str, &[u8])]) -> Fixture {
        Fixture::with_budget(files, 128_000, 10_000, 0)
    }

    /// A fixture with the given window, per-call cap and baseline.
    pub(crate) fn with_budget(
        files: &[(&str, &[u8])],
        window: u64,
        cap: u64,
        baseline: u64,
    ) -> Fixture {
        Fixture::with_counter(files, window, cap, baseline, counter())
    }

    /// A fixture counting with `counter`.
    pub(crate) fn with_counter(
        files: &[(&str, &[u8])],
        window: u64,
        cap: u64,
        baseline: u64,
        counter: &'static dyn TokenCounter,
    ) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in files {
            let path = dir.path().join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            std::fs::write(path, content).unwrap();
        }
        let settings = BudgetSettings {
            max_extraction_tokens: cap,
            ..BudgetSettings::for_window(window)
        };
        let budget = Arc::new(Budget::new(settings, baseline).unwrap());
        let root = ReadRoot::new(dir.path()).unwrap();
        Fixture {
            ctx: ExploreContext::new(root, counter, budget),
            dir,
        }
    }

    /// The directory of the read root.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `tool` with `arguments` through the full registry, as the model would.
    pub(crate) fn call(&self, tool: &str, arguments: Value) -> String {
        Registry::new().dispatch_value(&self.ctx, tool, &arguments)
    }

    /// Runs a call and parses the error JSON it must return.
    pub(crate) fn error(&self, tool: &str, arguments: Value) -> Value {
        let text = self.call(tool, arguments);
        serde_json::from_str(&text)
            .unwrap_or_else(|_| panic!("expected an error object, got:\n{text}"))
    }

    /// The body of a successful result: everything before the footer line.
    pub(crate) fn body(&self, tool: &str, arguments: Value) -> String {
        let text = self.call(tool, arguments);
        assert!(!text.starts_with("{\"error\""), "unexpected error: {text}");
        split(&text).0.to_owned()
    }

    /// The footer of a successful result.
    pub(crate) fn footer(&self, tool: &str, arguments: Value) -> String {
        let text = self.call(tool, arguments);
        assert!(!text.starts_with("{\"error\""), "unexpected error: {text}");
        split(&text).1.to_owned()
    }
}

/// `(body, footer)` of a result text.
pub(crate) fn split(text: &str) -> (&str, &str) {
    match text.rfind("\n--- ") {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => ("", text),
    }
}

/// The footer's "what was returned" part, without the token and budget figures, which
/// depend on the counter.
pub(crate) fn footer_summary(footer: &str) -> &str {
    let end = footer.find(" | ~").unwrap_or(footer.len());
    &footer[..end]
}

/// `n` numbered lines `line 1` … `line n`, newline-terminated.
pub(crate) fn numbered_text(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// Generated Kubernetes pod list JSON (`gen_samples.py pods n`), or `None` when the sample
/// generator is not available.
pub(crate) fn pods_json(n: usize) -> Option<String> {
    let script = Path::new("/work/shared/data/gen_samples.py");
    if !script.exists() {
        eprintln!("skipping: {} is not available", script.display());
        return None;
    }
    let output = std::process::Command::new("python3")
        .arg(script)
        .arg("pods")
        .arg(n.to_string())
        .output()
        .ok()?;
    if !output.status.success() {
        eprintln!("skipping: gen_samples.py failed");
        return None;
    }
    String::from_utf8(output.stdout).ok()
}

/// Whether this process is the parent of a test that needs the environment variable `var`
/// set to `value`: it then runs the test `test` of module `module` (`module_path!()`) again in a
/// child process that has it, asserts that the child passed, and returns `true`; the child
/// (which has it) gets `false` and goes on with the test. Setting a variable in this process
/// would need `unsafe` while other test threads read the environment.
pub(crate) fn ran_in_child_with_env(module: &str, test: &str, var: &str, value: &str) -> bool {
    if std::env::var(var).as_deref() == Ok(value) {
        return false;
    }
    // A test's name is its path below the crate.
    let path = module.split_once("::").map_or(module, |(_, path)| path);
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &format!("{path}::{test}"), "--test-threads=1"])
        .env(var, value)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{stdout}"
    );
    true
}
