use super::*;

#[test]
fn scratchpad_defaults_are_the_spec_values() {
    let d = ScratchpadSettings::default();
    assert!(!d.enabled);
    assert_eq!(d.context_safety_margin, 0.20);
    assert_eq!(d.max_extraction_tokens, 10_000);
    assert_eq!(d.turn_depth_bonus, 6);
}

#[test]
fn override_replaces_only_the_fields_it_sets() {
    let base = ScratchpadSettings {
        enabled: true,
        ..ScratchpadSettings::default()
    };
    let over = ScratchpadOverride {
        max_extraction_tokens: Some(5000),
        ..ScratchpadOverride::default()
    };
    let merged = over.apply_to(&base);
    assert!(merged.enabled);
    assert_eq!(merged.max_extraction_tokens, 5000);
    assert_eq!(merged.turn_depth_bonus, 6);
}

#[test]
fn llm_merge_takes_unset_fields_from_the_base() {
    let base = LlmSettings {
        provider: Some("openai".into()),
        model: Some("gpt-4o".into()),
        context_window: Some(128_000),
    };
    let worker = LlmSettings {
        context_window: Some(200_000),
        ..LlmSettings::default()
    };
    let merged = worker.merged_over(&base);
    assert_eq!(merged.provider.as_deref(), Some("openai"));
    assert_eq!(merged.model.as_deref(), Some("gpt-4o"));
    assert_eq!(merged.context_window, Some(200_000));
}
