use super::*;

#[test]
fn refusal_messages_name_the_limit_and_the_next_step() {
    let over_cap = Refusal {
        reason: RefusalReason::OverCallLimit,
        estimated_tokens: 12_400,
        per_call_limit: 10_000,
        remaining_budget_tokens: 80_000,
    };
    assert_eq!(
        over_cap.to_string(),
        "~12,400 tokens is over the per-call limit of 10,000 tokens; ask for a smaller part \
             (at most 10,000 tokens)"
    );
    let over_budget = Refusal {
        reason: RefusalReason::OverBudget,
        remaining_budget_tokens: 3_000,
        ..over_cap
    };
    assert_eq!(
        over_budget.to_string(),
        "~12,400 tokens is more than the ~3,000 budget tokens left; ask for a smaller part \
             (at most 3,000 tokens)"
    );
    let used_up = Refusal {
        remaining_budget_tokens: 0,
        ..over_budget
    };
    assert_eq!(
        used_up.to_string(),
        "~12,400 tokens is more than the ~0 budget tokens left; the context budget is used \
             up, so answer with what you have"
    );
    assert_eq!(over_budget.fits_at_most(), 3_000);
    assert_eq!(RefusalReason::OverCallLimit.to_string(), "over_call_limit");
    assert_eq!(RefusalReason::OverBudget.as_str(), "over_budget");
}
