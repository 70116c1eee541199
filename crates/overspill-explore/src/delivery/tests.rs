use std::sync::Arc;

use overspill_tokens::TokenCounter;
use serde_json::json;

use super::*;
use crate::test_support::{Fixture, counter, numbered_text, split};

/// The figure a footer states: `~412 tokens` → 412.
fn stated_tokens(text: &str) -> u64 {
    let footer = split(text).1;
    let at = footer.find(" | ~").unwrap();
    let rest = &footer[at + 4..];
    rest[..rest.find(" tokens").unwrap()]
        .replace(',', "")
        .parse()
        .unwrap()
}

#[test]
fn the_budget_is_charged_exactly_the_tokens_of_the_final_text() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(400).as_bytes())]);
    let mut charged = 0;
    for arguments in [
        json!({"file": "a.txt", "lines": 7}),
        json!({"file": "a.txt", "lines": 300}),
        json!({"file": "a.txt"}),
    ] {
        let text = fixture.call("head", arguments);
        let tokens = counter().count(&text) as u64;
        assert_eq!(
            stated_tokens(&text),
            tokens,
            "the footer states its own text's count"
        );
        charged += tokens;
        assert_eq!(fixture.ctx.budget().tokens_extracted(), charged);
        assert_eq!(fixture.ctx.budget().remaining(), 102_400 - charged);
    }
}

#[test]
fn the_footer_states_the_budget_left_after_the_charge() {
    let fixture = Fixture::new(&[("a.txt", b"one\ntwo\n")]);
    let text = fixture.call("read", json!({"file": "a.txt"}));
    let left = fixture.ctx.budget().remaining();
    assert!(
        text.ends_with(&format!(
            "| ~{} of 102,400 budget tokens left ---",
            overspill_budget::thousands(left)
        )),
        "{text}"
    );
}

#[test]
fn nothing_is_charged_for_an_error() {
    let fixture = Fixture::with_budget(
        &[("a.txt", numbered_text(5_000).as_bytes())],
        128_000,
        500,
        0,
    );
    for (tool, arguments) in [
        ("head", json!({"file": "a.txt", "lines": 4_000})),
        ("head", json!({"file": "missing.txt"})),
        ("head", json!({"file": "a.txt", "lines": -4})),
        ("grep", json!({"file": "a.txt", "pattern": "line"})),
        ("read", json!({"file": "a.txt"})),
    ] {
        assert!(fixture.call(tool, arguments).starts_with("{\"error\""));
    }
    assert_eq!(fixture.ctx.budget().tokens_extracted(), 0);
    assert_eq!(fixture.ctx.budget().remaining(), 102_400);
}

#[test]
fn over_the_remaining_budget_is_too_large_with_the_remaining_figure_and_a_fitting_retry() {
    // 10,000 usable, 9,400 of it baseline: 600 left, under the 10,000 cap.
    let fixture = Fixture::with_budget(
        &[("a.txt", numbered_text(2_000).as_bytes())],
        12_500,
        10_000,
        9_400,
    );
    assert_eq!(fixture.ctx.budget().remaining(), 600);
    let error = fixture.error("head", json!({"file": "a.txt", "lines": 400}));
    assert_eq!(error["error"], "head_too_large");
    assert_eq!(error["per_call_limit"], 10_000);
    assert_eq!(error["remaining_budget_tokens"], 600);
    assert!(error["estimated_tokens"].as_u64().unwrap() > 600);
    let suggestions = error["suggestions"].to_string();
    assert!(
        suggestions.contains("Only about 600 tokens of your budget are left"),
        "{suggestions}"
    );
    let retried = fixture.call("head", error["retry"]["arguments"].clone());
    assert!(retried.contains("--- head: lines 1-"), "{retried}");
}

#[test]
fn a_spent_budget_refuses_everything_and_says_nothing_smaller_fits() {
    let fixture = Fixture::with_budget(
        &[("a.txt", numbered_text(50).as_bytes())],
        1_000,
        10_000,
        800,
    );
    assert_eq!(fixture.ctx.budget().remaining(), 0);
    let error = fixture.error("head", json!({"file": "a.txt", "lines": 8}));
    assert_eq!(error["error"], "head_too_large");
    assert_eq!(error["remaining_budget_tokens"], 0);
    assert_eq!(error["retry"]["arguments"]["lines"], 1);
    assert!(
        error["suggestions"]
            .to_string()
            .contains("Nothing smaller fits")
    );
}

/// A counter whose count flips between 10 and 11 depending on the figure the footer
/// states, so no figure is self-consistent.
struct Flipping;

impl TokenCounter for Flipping {
    fn count(&self, text: &str) -> usize {
        if text.contains("~10 tokens") { 11 } else { 10 }
    }
    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        Some(self.count(text)).filter(|&n| n <= limit)
    }
    fn name(&self) -> &'static str {
        "flipping"
    }
}

static FLIPPING: Flipping = Flipping;

#[test]
fn an_oscillating_count_is_still_charged_exactly() {
    let fixture = Fixture::with_counter(&[("a.txt", b"x\n")], 128_000, 10_000, 0, &FLIPPING);
    let text = fixture.call("head", json!({"file": "a.txt"}));
    let charged = fixture.ctx.budget().tokens_extracted();
    assert_eq!(charged, FLIPPING.count(&text) as u64);
    assert!(stated_tokens(&text).abs_diff(charged) <= 1);
}

#[test]
fn large_refused_results_get_an_extrapolated_estimate() {
    let text = "word ".repeat(2_000_000);
    let fixture = Fixture::new(&[]);
    let estimate = estimate(&fixture.ctx, &text);
    let exact = counter().count(&text) as u64;
    assert!(
        estimate.abs_diff(exact) * 20 < exact,
        "{estimate} vs {exact}"
    );
}

#[test]
fn concurrent_calls_never_overspend_the_budget_and_each_is_charged_its_text() {
    // 8,000 usable, no baseline: far less than 8 threads × 10 calls of ~900 tokens.
    let fixture = Fixture::with_budget(
        &[("a.txt", numbered_text(2_000).as_bytes())],
        10_000,
        10_000,
        0,
    );
    let charged: u64 = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let fixture = &fixture;
                scope.spawn(move || {
                    let mut mine = 0;
                    for i in 0..10 {
                        let start = 1 + (t * 10 + i) * 20;
                        let text = fixture.call(
                            "slice",
                            json!({"file": "a.txt", "start": start, "end": start + 79}),
                        );
                        if !text.starts_with("{\"error\"") {
                            mine += counter().count(&text) as u64;
                        }
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    let budget = fixture.ctx.budget();
    assert_eq!(budget.tokens_extracted(), charged);
    assert!(charged <= budget.usable() - budget.baseline());
}

/// A ledger another process also charges: before each request this one makes, the other has
/// charged `elsewhere` tokens. Counts the requests.
struct Shared {
    total: std::sync::Mutex<u64>,
    elsewhere: u64,
    requests: std::sync::atomic::AtomicU64,
}

impl Shared {
    fn new(total: u64, elsewhere: u64) -> Arc<Shared> {
        Arc::new(Shared {
            total: std::sync::Mutex::new(total),
            elsewhere,
            requests: std::sync::atomic::AtomicU64::new(0),
        })
    }

    fn requests(&self) -> u64 {
        self.requests.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn total(&self) -> u64 {
        *self.total.lock().unwrap()
    }
}

impl overspill_budget::Ledger for Shared {
    fn update(
        &self,
        decide: &mut dyn FnMut(u64) -> Option<u64>,
    ) -> Result<u64, overspill_budget::LedgerError> {
        self.requests
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut total = self.total.lock().unwrap();
        *total += self.elsewhere;
        if let Some(kept) = decide(*total) {
            *total = kept;
        }
        Ok(*total)
    }
}

/// Files in a read root, explored through a budget (102,400 usable, `baseline`) that keeps its
/// extractions in `ledger`.
struct Ledgered {
    _fixture: Fixture,
    ledger: Arc<Shared>,
    ctx: ExploreContext,
}

fn ledgered(files: &[(&str, &[u8])], ledger: Arc<Shared>, baseline: u64) -> Ledgered {
    let fixture = Fixture::new(files);
    let settings = overspill_budget::BudgetSettings::for_window(128_000);
    let budget = overspill_budget::Budget::new(settings, baseline)
        .unwrap()
        .with_ledger(ledger.clone());
    let root = overspill_store::ReadRoot::new(fixture.path()).unwrap();
    Ledgered {
        ctx: ExploreContext::new(root, counter(), Arc::new(budget)),
        _fixture: fixture,
        ledger,
    }
}

impl Ledgered {
    /// Runs `tool` through the full registry, as the model would.
    fn call(&self, tool: &str, arguments: serde_json::Value) -> String {
        crate::registry::Registry::new().dispatch_value(&self.ctx, tool, &arguments)
    }
}

#[test]
fn a_footer_states_the_budget_left_after_what_other_processes_charged_meanwhile() {
    let pad = ledgered(
        &[("a.txt", numbered_text(400).as_bytes())],
        Shared::new(0, 1_000),
        0,
    );
    for lines in [5, 50, 7] {
        let text = pad.call("head", json!({"file": "a.txt", "lines": lines}));
        let left = 102_400 - pad.ledger.total();
        assert!(
            text.ends_with(&format!(
                "| ~{} of 102,400 budget tokens left ---",
                overspill_budget::thousands(left)
            )),
            "the ledger leaves {left}: {text}"
        );
        assert_eq!(stated_tokens(&text), counter().count(&text) as u64);
    }
    assert_eq!(
        pad.ledger.total(),
        3 * 1_000 + pad.ctx.budget().tokens_extracted()
    );
}

#[test]
fn a_call_with_a_shared_ledger_makes_one_request_to_it() {
    let pad = ledgered(
        &[("a.txt", numbered_text(400).as_bytes())],
        Shared::new(0, 0),
        0,
    );
    for (call, arguments) in [
        ("head", json!({"file": "a.txt", "lines": 5})),
        ("grep", json!({"file": "a.txt", "pattern": "1"})),
        ("slice", json!({"file": "a.txt", "start": 10, "end": 20})),
    ] {
        let before = pad.ledger.requests();
        let text = pad.call(call, arguments);
        assert!(!text.starts_with("{\"error\""), "{text}");
        assert_eq!(pad.ledger.requests() - before, 1, "{call}");
    }
}

#[test]
fn a_refusal_for_the_budget_states_what_is_left_after_other_processes_charges() {
    // A 100,000-token baseline leaves 2,400; others charged 1,000 of it, unknown here yet.
    let pad = ledgered(
        &[("a.txt", numbered_text(4_000).as_bytes())],
        Shared::new(1_000, 0),
        100_000,
    );
    assert_eq!(pad.ctx.budget().remaining(), 2_400);
    let text = pad.call("head", json!({"file": "a.txt", "lines": 600}));
    let error: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"], "head_too_large", "{text}");
    assert_eq!(error["remaining_budget_tokens"], 1_400, "{text}");
    let retry = pad.call("head", error["retry"]["arguments"].clone());
    assert!(
        !retry.starts_with("{\"error\""),
        "the retry fits what is left: {retry}"
    );
}

#[test]
fn a_figure_that_crosses_a_token_boundary_is_charged_as_the_text_it_ends_in() {
    // 2,000 left as this process knows it; the others have charged 1,500 of them meanwhile, so
    // the figure falls from four digits (`1,9xx`: three tokens) to three (`4xx`: one).
    let pad = ledgered(
        &[("a.txt", numbered_text(400).as_bytes())],
        Shared::new(1_500, 0),
        100_400,
    );
    let text = pad.call("head", json!({"file": "a.txt", "lines": 2}));
    let left = 102_400 - 100_400 - pad.ledger.total();
    assert!(left < 1_000, "{left}");
    assert!(
        text.ends_with(&format!("| ~{left} of 102,400 budget tokens left ---")),
        "the ledger leaves {left}: {text}"
    );
    let count = counter().count(&text) as u64;
    assert_eq!(stated_tokens(&text), count);
    assert_eq!(
        pad.ctx.budget().tokens_extracted(),
        count,
        "charged its exact count"
    );
    assert_eq!(pad.ledger.total(), 1_500 + count);
}

#[test]
fn a_result_cut_to_a_budget_others_spent_is_cut_again_to_what_is_left() {
    let headings: String = (0..3_000)
        .map(|i| format!("# Heading {i}\n\ntext\n\n"))
        .collect();
    // This process knows of none of the 101,000 tokens the others charged: 1,400 are left.
    let pad = ledgered(&[("a.md", headings.as_bytes())], Shared::new(101_000, 0), 0);
    let text = pad.call("schema", json!({"file": "a.md"}));
    assert!(
        !text.starts_with("{\"error\""),
        "cut to what is left: {text}"
    );
    let count = counter().count(&text) as u64;
    assert!(count <= 1_400, "{count}");
    assert_eq!(pad.ledger.total(), 101_000 + count);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn every_delivered_text_states_and_is_charged_its_own_count(lines in proptest::collection::vec("[ -~]{0,80}", 1..40)) {
        let content = lines.join("\n");
        let fixture = Fixture::new(&[("p.txt", content.as_bytes())]);
        let text = fixture.call("read", json!({"file": "p.txt"}));
        let tokens = counter().count(&text) as u64;
        proptest::prop_assert_eq!(fixture.ctx.budget().tokens_extracted(), tokens);
        proptest::prop_assert_eq!(stated_tokens(&text), tokens);
    }
}
