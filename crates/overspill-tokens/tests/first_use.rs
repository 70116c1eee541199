//! What a counter's first use costs, and when (docs/tokens.md#the-first-answer-does-not-wait): a
//! host picks its counter at start, and the tables or the model are built or loaded by
//! `prepare` on a thread of the host's, never by the picking. A process of its own, so that no
//! other test has counted first.

use overspill_tokens::counter_for;

#[test]
fn picking_a_counter_loads_nothing_and_prepare_loads_what_it_counts_with() {
    let counters = [
        counter_for("openai", "gpt-4o"),
        counter_for("anthropic", "claude-sonnet-4"),
        counter_for("gemini", "gemini-2.5-pro"),
    ];
    for counter in counters {
        assert!(
            !counter.is_prepared(),
            "{} was loaded when picked",
            counter.name()
        );
        // What needs no tables is answered without them.
        assert!(counter.fits_within("a short text", 100));
        assert!(
            !counter.is_prepared(),
            "{} was loaded for a short text",
            counter.name()
        );
    }
    for counter in counters {
        counter.prepare();
        assert!(counter.is_prepared(), "{}", counter.name());
        assert_eq!(
            counter.count_up_to("What is your name?", 10).map(|n| n > 0),
            Some(true)
        );
    }
}
