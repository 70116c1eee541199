//! The exploration context of the explore benches: the bench directory as read root,
//! `o200k_base`, and a budget no call can exhaust (a bench measures tools, not refusals).

use std::path::Path;
use std::sync::Arc;

use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::ExploreContext;
use overspill_store::ReadRoot;

/// A fresh context, with a file cache of its own, reading `dir`.
pub fn context(dir: &Path) -> ExploreContext {
    let settings = BudgetSettings {
        max_extraction_tokens: 1 << 30,
        ..BudgetSettings::for_window(1 << 40)
    };
    let budget = Arc::new(Budget::new(settings, 0).unwrap());
    ExploreContext::new(
        ReadRoot::new(dir).unwrap(),
        overspill_tokens::o200k(),
        budget,
    )
}
