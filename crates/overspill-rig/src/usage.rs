//! [`UsageFeedback`]: the provider's reported usage of every completion, into the budget.

use overspill::Scratchpad;
use rig_agent::agent::{AgentHook, HookContext, ModelTurnAction, ModelTurnFinished, StepEventKind};
use rig_core::completion::Usage;

/// An agent hook that passes the usage the provider reports for each model turn to
/// [`Scratchpad::observe_llm_usage`], so the budget's estimate of the context follows the real
/// conversation (it rises to `input + output` when that is higher, and never falls).
///
/// Add it with `agent_builder.add_hook(UsageFeedback::new(&pad))`
/// ([`AgentBuilderExt::scratchpad`](crate::AgentBuilderExt::scratchpad) does). A host that
/// drives completions itself, outside an agent, calls [`observe_usage`] with each response's
/// `usage` instead.
#[derive(Clone, Debug)]
pub struct UsageFeedback {
    pad: Scratchpad,
}

impl UsageFeedback {
    /// A hook feeding `pad`'s budget.
    pub fn new(pad: &Scratchpad) -> UsageFeedback {
        UsageFeedback { pad: pad.clone() }
    }
}

impl AgentHook for UsageFeedback {
    fn name(&self) -> Option<String> {
        Some("overspill_rig::UsageFeedback".to_owned())
    }

    async fn on_model_turn_finished(
        &self,
        _context: &HookContext,
        event: ModelTurnFinished<'_>,
    ) -> ModelTurnAction {
        observe_usage(&self.pad, &event.usage);
        ModelTurnAction::continue_run()
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        kind == StepEventKind::ModelTurnFinished
    }
}

/// Feeds one completion's reported `usage` to `pad`'s budget. A counter the provider did not
/// report counts as 0; a turn that reports neither changes nothing.
pub fn observe_usage(pad: &Scratchpad, usage: &Usage) {
    if usage.input_tokens.is_none() && usage.output_tokens.is_none() {
        return;
    }
    pad.observe_llm_usage(
        usage.input_tokens.unwrap_or(0),
        usage.output_tokens.unwrap_or(0),
    );
}
