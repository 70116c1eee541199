//! Which counter a provider and model id use (docs/tokens.md).

use std::fmt;
use std::str::FromStr;

use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

use crate::{TokenCounter, cl100k, claude, gemma3, o200k};

/// The LLM providers a configuration can name (`[agent.llm].provider`).
///
/// Parse one with [`str::parse`] (case-insensitive); list them all with
/// [`Provider::ALL`] and [`Provider::as_str`], e.g. for a CLI's help text.
///
/// ```
/// use overspill_tokens::Provider;
///
/// let names: Vec<&str> = Provider::ALL.iter().map(|p| p.as_str()).collect();
/// assert_eq!(names, ["openai", "anthropic", "bedrock", "gemini", "ollama", "openrouter", "other"]);
/// assert_eq!("Anthropic".parse::<Provider>(), Ok(Provider::Anthropic));
/// assert!("azure".parse::<Provider>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI's API.
    OpenAi,
    /// Anthropic's API.
    Anthropic,
    /// AWS Bedrock, which serves Claude and other model families.
    Bedrock,
    /// Google's Gemini API.
    Gemini,
    /// A local Ollama server.
    Ollama,
    /// OpenRouter, whose model ids carry the vendor (`openai/gpt-4o`).
    OpenRouter,
    /// Any other OpenAI-compatible endpoint.
    Other,
}

impl Provider {
    /// Every provider, in the order the configuration documents them.
    pub const ALL: [Provider; 7] = [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::Bedrock,
        Provider::Gemini,
        Provider::Ollama,
        Provider::OpenRouter,
        Provider::Other,
    ];

    /// The name used in configuration files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Bedrock => "bedrock",
            Provider::Gemini => "gemini",
            Provider::Ollama => "ollama",
            Provider::OpenRouter => "openrouter",
            Provider::Other => "other",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(name: &str) -> Result<Provider, UnknownProvider> {
        let wanted = name.trim();
        Provider::ALL
            .into_iter()
            .find(|provider| provider.as_str().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownProvider {
                name: name.to_owned(),
            })
    }
}

/// A provider name that is not one of [`Provider::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown provider `{name}`; use one of openai, anthropic, bedrock, gemini, ollama, \
     openrouter or other (`other` counts with o200k_base unless the model id says otherwise)"
)]
pub struct UnknownProvider {
    /// The name as given.
    pub name: String,
}

/// The counter for a provider and model id, as named in configuration.
///
/// Never fails: an unknown provider name counts as [`Provider::Other`], and
/// an unrecognised model as `o200k_base`. See [`counter_for_provider`] for
/// the rules.
///
/// ```
/// use overspill_tokens::counter_for;
///
/// assert_eq!(counter_for("openai", "gpt-4o-mini").name(), "o200k_base");
/// assert_eq!(counter_for("openai", "gpt-3.5-turbo").name(), "cl100k_base");
/// assert_eq!(counter_for("gemini", "gemini-2.5-pro").name(), "gemma3");
/// assert_eq!(counter_for("bedrock", "anthropic.claude-3-5-sonnet").name(), "claude≈cl100k×1.1");
/// assert_eq!(counter_for("ollama", "llama3").name(), "o200k_base");
/// ```
pub fn counter_for(provider: &str, model: &str) -> &'static dyn TokenCounter {
    let provider = provider.parse().unwrap_or(Provider::Other);
    counter_for_provider(provider, model)
}

/// The counter for a known provider and a model id.
///
/// The model id is compared case-insensitively, and only its last
/// `/`-separated segment names the model (`openai/gpt-4o`,
/// `models/gemini-2.5-pro`). The first rule that matches decides:
///
/// 1. provider `anthropic`, or a model id containing `claude` (Bedrock's
///    `anthropic.claude-…` and `us.anthropic.claude-…`, OpenRouter's
///    `anthropic/claude-…`) → `claude≈cl100k×1.1`;
/// 2. provider `gemini`, a `gemini` or `gemini-*` model, or a Gemma 3 model
///    (`gemma3…`, `gemma-3…`, as Ollama names them) → `gemma3`;
/// 3. a model in `tiktoken`'s OpenAI table (`ft:` fine-tunes resolve to
///    their base): `o200k_base` models → `o200k_base`; `cl100k_base` models
///    and the older GPT-3 era models (`p50k`/`r50k` encodings, not shipped
///    here) → `cl100k_base`;
/// 4. everything else → `o200k_base`.
pub fn counter_for_provider(provider: Provider, model: &str) -> &'static dyn TokenCounter {
    let model = model.trim().to_ascii_lowercase();
    let name = model.rsplit('/').next().unwrap_or(&model);
    if provider == Provider::Anthropic || model.contains("claude") {
        return claude();
    }
    if provider == Provider::Gemini || is_gemini_family(name) {
        return gemma3();
    }
    match get_tokenizer(name) {
        Some(Tokenizer::O200kBase | Tokenizer::O200kHarmony) | None => o200k(),
        Some(
            Tokenizer::Cl100kBase
            | Tokenizer::P50kBase
            | Tokenizer::R50kBase
            | Tokenizer::P50kEdit
            | Tokenizer::Gpt2,
        ) => cl100k(),
    }
}

/// Gemini models, and the open Gemma 3 models that share their tokenizer.
fn is_gemini_family(name: &str) -> bool {
    name == "gemini"
        || name.starts_with("gemini-")
        || name.starts_with("gemma3")
        || name.starts_with("gemma-3")
}

#[cfg(test)]
mod tests {
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
}
