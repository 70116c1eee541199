use super::*;

fn routed(provider: &str, model: &str) -> &'static str {
    counter_for(provider, model).name()
}

#[test]
fn current_openai_models_route_to_o200k() {
    for model in [
        "gpt-5.1",
        "gpt-4o-mini",
        "o3",
        "gpt-5",
        "gpt-4.1",
        "o1",
        "o4-mini",
    ] {
        assert_eq!(routed("openai", model), "o200k_base", "{model}");
    }
}

#[test]
fn older_openai_models_route_to_cl100k() {
    for model in [
        "gpt-4",
        "gpt-3.5-turbo",
        "gpt-4-0613",
        "text-embedding-3-small",
        "davinci",
    ] {
        assert_eq!(routed("openai", model), "cl100k_base", "{model}");
    }
}

#[test]
fn fine_tunes_route_like_their_base_model() {
    assert_eq!(
        routed("openai", "ft:gpt-3.5-turbo-0613:acme::8abc"),
        "cl100k_base"
    );
    assert_eq!(
        routed("openai", "ft:gpt-4o-mini-2024-07-18:acme:x:9z"),
        "o200k_base"
    );
}

#[test]
fn unknown_openai_models_route_to_o200k() {
    for model in ["gpt-6-preview", "o9", "", "my-deployment"] {
        assert_eq!(routed("openai", model), "o200k_base", "{model:?}");
    }
}

#[test]
fn gemini_models_route_to_gemma3() {
    assert_eq!(routed("gemini", "gemini-2.5-pro"), "gemma3");
    assert_eq!(routed("gemini", "models/gemini-2.0-flash"), "gemma3");
    assert_eq!(routed("openrouter", "google/gemini-2.5-flash"), "gemma3");
    assert_eq!(routed("other", "gemini-3-pro-preview"), "gemma3");
    assert_eq!(routed("ollama", "gemma3:27b"), "gemma3");
    assert_eq!(routed("gemini", "gemma-3-27b-it"), "gemma3");
}

#[test]
fn anthropic_and_bedrock_claude_route_to_claude() {
    let claude = "claude≈cl100k×1.1";
    assert_eq!(routed("anthropic", "claude-sonnet-4-5"), claude);
    assert_eq!(routed("anthropic", "whatever-they-ship-next"), claude);
    assert_eq!(routed("bedrock", "anthropic.claude-3-5-sonnet"), claude);
    assert_eq!(
        routed("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        claude
    );
    assert_eq!(routed("bedrock", "Anthropic.Claude-3-Haiku"), claude);
    assert_eq!(routed("openrouter", "anthropic/claude-sonnet-4.5"), claude);
}

#[test]
fn other_bedrock_models_route_to_o200k() {
    assert_eq!(
        routed("bedrock", "meta.llama3-70b-instruct-v1:0"),
        "o200k_base"
    );
    assert_eq!(routed("bedrock", "amazon.nova-pro-v1:0"), "o200k_base");
}

#[test]
fn local_and_unknown_models_route_to_o200k() {
    assert_eq!(routed("ollama", "llama3"), "o200k_base");
    assert_eq!(routed("ollama", "qwen2.5-coder:7b"), "o200k_base");
    assert_eq!(routed("no-such-provider", "mystery"), "o200k_base");
}

#[test]
fn model_ids_compare_case_insensitively() {
    assert_eq!(routed("openai", "GPT-4"), "cl100k_base");
    assert_eq!(routed("OpenAI", " gpt-3.5-turbo "), "cl100k_base");
    assert_eq!(routed("gemini", "Gemini-2.5-Pro"), "gemma3");
}

#[test]
fn openrouter_ids_route_by_their_model_segment() {
    assert_eq!(routed("openrouter", "openai/gpt-4"), "cl100k_base");
    assert_eq!(routed("openrouter", "openai/gpt-4o"), "o200k_base");
    assert_eq!(
        routed("openrouter", "meta-llama/llama-3.1-70b"),
        "o200k_base"
    );
}

#[test]
fn provider_names_parse_case_insensitively_and_round_trip() {
    for provider in Provider::ALL {
        assert_eq!(provider.as_str().parse(), Ok(provider));
        assert_eq!(provider.as_str().to_uppercase().parse(), Ok(provider));
        assert_eq!(provider.to_string(), provider.as_str());
    }
}

#[test]
fn unknown_provider_error_lists_the_valid_names() {
    let err = "azure".parse::<Provider>().unwrap_err();
    assert_eq!(err.name, "azure");
    let message = err.to_string();
    for provider in Provider::ALL {
        assert!(message.contains(provider.as_str()), "{message}");
    }
}
