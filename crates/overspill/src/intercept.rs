//! Interception: the decision of docs/facade.md#2-intercepting, step by step, and what the model gets instead.

use std::borrow::Cow;
use std::sync::Arc;

use crate::budget::{Budget, thousands};
use crate::explore::{Pointer, Summary};
use crate::handling::Handling;
use crate::mcp_result::{Normalised, ToolResult};
use crate::observe::Event;
use crate::output::ToolOutput;
use crate::session::Session;
use crate::store::{Output, Store, StoreError, TextLayout, TokenTally};
use crate::tokens::TokenCounter;

/// What the host passes on to the model in place of a tool output. `T` is what comes back
/// inline: the [`ToolOutput`] the host gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Intercepted<T = ToolOutput> {
    /// Pass the original output on unchanged: an error result, a tool that is not
    /// intercepted, an image or binary content, or an output below its threshold.
    Inline(T),
    /// The output was stored; give the model this pointer text instead.
    Pointer(String),
    /// The output was over its threshold but could not be stored; give the model this short
    /// notice (tool, size, cause, what to do) instead. It never holds the payload.
    Failed(String),
}

impl<T> Intercepted<T> {
    /// The text that replaces the output, taken (`None` when the original passes through).
    pub fn into_replacement(self) -> Option<String> {
        match self {
            Intercepted::Inline(_) => None,
            Intercepted::Pointer(text) | Intercepted::Failed(text) => Some(text),
        }
    }

    /// Whether the output was replaced by a pointer.
    pub fn is_pointer(&self) -> bool {
        matches!(self, Intercepted::Pointer(_))
    }

    /// The text that replaces the output (a pointer or a failure notice); `None` when the
    /// original passes through.
    pub fn replacement(&self) -> Option<&str> {
        match self {
            Intercepted::Inline(_) => None,
            Intercepted::Pointer(text) | Intercepted::Failed(text) => Some(text),
        }
    }
}

impl Intercepted {
    /// The result to hand back to an MCP client: the original result, or one text block with
    /// the pointer or notice.
    pub fn into_mcp(self) -> serde_json::Value {
        match self {
            Intercepted::Inline(output) => output.into_mcp(),
            Intercepted::Pointer(text) | Intercepted::Failed(text) => {
                ToolResult::text(text).into_value()
            }
        }
    }
}

impl Session {
    /// [`Session::decide`] for an output the host holds as a [`ToolOutput`], handed back inline.
    pub(crate) fn intercept(&self, server: &str, tool: &str, output: ToolOutput) -> Intercepted {
        let decided = self.decide(server, tool, output.handling(), |footer| {
            output.normalise(footer)
        });
        match decided {
            Intercepted::Inline(()) => Intercepted::Inline(output),
            Intercepted::Pointer(text) => Intercepted::Pointer(text),
            Intercepted::Failed(text) => Intercepted::Failed(text),
        }
    }

    /// The interception rules, in order (docs/configuration.md, "Thresholds"; docs/storage.md):
    /// an error result passes (`handling.must_pass`), a tool without a threshold passes
    /// (`handling.min_tokens`, the output's own, comes first), the content is normalised by
    /// `normalise` (given the host's persistence footer), an output below its threshold passes,
    /// anything else is stored (laid out as `handling.text_layout` says) and pointed to. The
    /// host's observer hears which.
    pub(crate) fn decide<'a>(
        &self,
        server: &str,
        tool: &str,
        handling: Handling,
        normalise: impl FnOnce(Option<&str>) -> Normalised<'a>,
    ) -> Intercepted<()> {
        match self.to_store(server, tool, handling, normalise) {
            Some(held) => self.store_and_point(server, tool, held),
            None => {
                self.passed(server, tool);
                Intercepted::Inline(())
            }
        }
    }

    /// Tells the host's observer that a result of `tool` passed unchanged.
    pub(crate) fn passed(&self, server: &str, tool: &str) {
        self.observe(&Event::Passed { server, tool });
    }

    /// Steps 1–5 of [`Session::decide`]: what to store and where, or `None` when the result
    /// passes.
    fn to_store<'a>(
        &self,
        server: &str,
        tool: &str,
        handling: Handling,
        normalise: impl FnOnce(Option<&str>) -> Normalised<'a>,
    ) -> Option<Held<'_, 'a>> {
        let Handling {
            must_pass,
            min_tokens,
            text_layout,
        } = handling;
        // 1. Errors (and what is not a final result) are never diverted.
        if must_pass {
            return None;
        }
        // Coordinator: nowhere to store, no budget.
        let (Some(store), Some(budget)) = (self.store(), self.budget()) else {
            return None;
        };
        // 2. No resolved threshold: never intercepted.
        let min_tokens = min_tokens.or_else(|| self.thresholds.threshold(server, tool))?;
        // 3–4. Normalise MCP content; strip the host's persistence footer.
        let text = match normalise(self.footer.as_deref()) {
            Normalised::Store(text) => text,
            Normalised::PassThrough(why) => {
                tracing::debug!(tool, why, "passed through without storing");
                return None;
            }
        };
        // 5. Below the threshold: O(threshold), and no tokenizing when the bytes settle it.
        let threshold = usize::try_from(min_tokens).unwrap_or(usize::MAX);
        if self.counter.is_below(&text, threshold) {
            return None;
        }
        Some(Held {
            store,
            budget,
            text,
            text_layout,
        })
    }

    /// Steps 6–7 of [`Session::decide`]: `held` stored, counted and pointed to, or a notice of
    /// why it could not be stored.
    fn store_and_point(&self, server: &str, tool: &str, held: Held<'_, '_>) -> Intercepted<()> {
        let Held {
            store,
            budget,
            text,
            text_layout,
        } = held;
        // 6. Store, count, point.
        let mut output = Output {
            tool,
            server: (!server.is_empty()).then_some(server),
            content: &text,
            tokens: None,
            text_layout,
        };
        // The pointer's summary is one more parse of a JSON output: it runs beside the count.
        let (tokens, written) = count_while(self.counter, &text, || {
            let stored = store.write_content(&output)?;
            let summary = Summary::of(stored.format, &text);
            Ok::<_, StoreError>((stored, summary))
        });
        output.tokens = Some(TokenTally {
            tokens,
            counter: self.counter.name().to_owned(),
        });
        let stored = written.and_then(|(stored, summary)| {
            store.record_metadata(&output, &stored)?;
            Ok((stored, summary))
        });
        let tokens = u64::try_from(tokens).unwrap_or(u64::MAX);
        match stored {
            Ok((stored, summary)) => {
                budget.record_intercepted(tokens);
                self.observe(&Event::Stored {
                    server,
                    tool,
                    tokens,
                    bytes: u64::try_from(text.len()).unwrap_or(u64::MAX),
                });
                let names = self.registry.exploration_names();
                let prefix = self.tool_prefix();
                let pointer = Pointer::new(tool, &stored, tokens, self.counter)
                    .with_summary(summary)
                    .with_tools(&names)
                    .with_tool_prefix(&prefix)
                    .with_reference_line()
                    .render();
                Intercepted::Pointer(pointer)
            }
            // 7. A short notice, never the payload; the counter stays as it was.
            Err(error) => {
                tracing::warn!(tool, %error, "could not store an intercepted output");
                self.observe(&Event::StoreFailed { server, tool });
                Intercepted::Failed(failure_notice(tool, text.len(), tokens, &error))
            }
        }
    }
}

/// An output over its threshold, with where it goes: the session's store and budget, laid out
/// as the host asked.
struct Held<'s, 'a> {
    store: &'s Store,
    budget: &'s Arc<Budget>,
    text: Cow<'a, str>,
    text_layout: TextLayout,
}

/// Outputs at least this large are counted on a second thread while their content is written:
/// below it, starting a thread costs more than it saves.
const PARALLEL_COUNT_BYTES: usize = 1 << 20;

/// `counter.count(text)` and `write()`, side by side on two threads when `text` is large (an
/// interception then costs about the longer of the two, not their sum; docs/performance.md), one after
/// the other otherwise. The count stays on the caller's thread: it allocates as it goes, and a
/// new thread starts with a cold allocator arena, which made a count on it ~25 % slower (see
/// docs/performance.md). A panic in `write` is resumed on the caller's thread; when no thread
/// can be started (the process is at its limit), `write` runs after the count instead.
fn count_while<T: Send>(
    counter: &'static dyn TokenCounter,
    text: &str,
    write: impl FnOnce() -> T + Send,
) -> (usize, T) {
    if text.len() < PARALLEL_COUNT_BYTES {
        return (counter.count(text), write());
    }
    let mut pending = Some(write);
    let (tokens, written) = std::thread::scope(|scope| {
        let slot = &mut pending;
        let writing = std::thread::Builder::new()
            .name("overspill-store".to_owned())
            .spawn_scoped(scope, move || slot.take().map(|write| write()));
        let tokens = counter.count(text);
        let written = match writing.map(std::thread::ScopedJoinHandle::join) {
            Ok(Ok(written)) => written,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(error) => {
                tracing::debug!(%error, "no thread to write on; writing after the count");
                None
            }
        };
        (tokens, written)
    });
    match (written, pending) {
        (Some(written), _) => (tokens, written),
        (None, Some(write)) => (tokens, write()),
        // The thread takes `write` and returns what it gave; one of the two is always there.
        (None, None) => unreachable!("the write ran but returned nothing"),
    }
}

/// The notice the model gets when an output over its threshold cannot be stored. The cause is
/// the operating system's error only: the host's paths stay out of the model's context.
pub(crate) fn failure_notice(tool: &str, bytes: usize, tokens: u64, error: &StoreError) -> String {
    let tool = crate::explore::tool_label(tool);
    let cause = error.reason();
    let tell = if error.is_shared() {
        "Tell the user the shared store cannot be written"
    } else {
        "Tell the user the scratchpad directory is not writable"
    };
    format!(
        "[overspill] The result of `{tool}` ({} bytes, {} tokens) was too large to show you and \
         could not be stored, so it is left out: {cause}. Do not rely on its content. {tell}, \
         or call the tool again with narrower arguments so that its result is smaller.",
        thousands(u64::try_from(bytes).unwrap_or(u64::MAX)),
        thousands(tokens),
    )
}

#[cfg(test)]
mod tests;
