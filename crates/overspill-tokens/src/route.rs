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
mod tests;
