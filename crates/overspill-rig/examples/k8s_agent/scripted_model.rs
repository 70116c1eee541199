//! A completion model that plays a script, offline: each turn reads the conversation so far
//! and answers with one tool call or with text, reporting its usage as a provider would.
//!
//! In rig 0.44 a completion model is a [`Model`]: a [`Wire`] (what a request and a reply are)
//! bound to a [`Transport`] (how they travel). Here the wire passes the request through
//! untouched and the transport answers it from the script, so the agent runs its real loop —
//! tool dispatch, hooks, history — with no network.
//!
//! Also used by the crate's tests (`tests/agent.rs`).

#![allow(dead_code)] // each user of this module plays only part of it

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rig_core::Model;
use rig_core::completion::{
    Accepts, CompletionRequest, FinishReason, Message, ReplayTarget, Usage,
    options::{Mapping, OptionFields, OptionMap},
};
use rig_core::driver::{Exchange, Opened, Opening, Transport};
use rig_core::error::{EncodeError, ProviderError};
use rig_core::message::{Api, UserContent};
use rig_core::operation::{Block, CallFragment, Completion, Finish};
use rig_core::wire::document::{Reassemble, Serves};
use rig_core::wire::{Decoder, Descriptor, Flow, Mode, Out, Wire, WireEvent};
use serde_json::{Value, json};

/// What the model answers in one turn.
#[derive(Clone, Debug)]
pub enum Reply {
    /// Call `tool` with `arguments` (a JSON object).
    Call { tool: String, arguments: Value },
    /// Answer with text, ending the run.
    Text(String),
}

impl Reply {
    /// A call of `tool`.
    pub fn call(tool: &str, arguments: Value) -> Reply {
        Reply::Call {
            tool: tool.to_owned(),
            arguments,
        }
    }

    /// A final answer.
    pub fn text(text: impl Into<String>) -> Reply {
        Reply::Text(text.into())
    }
}

/// One turn of the script: the reply, given the request the agent sent, and the usage to report
/// (`None`: estimated from the request's size, as a stand-in for what a provider counts).
pub struct Turn {
    reply: Box<dyn FnOnce(&CompletionRequest) -> Reply + Send>,
    usage: Option<(u64, u64)>,
}

impl Turn {
    /// A turn that replies `reply(request)`.
    pub fn new(reply: impl FnOnce(&CompletionRequest) -> Reply + Send + 'static) -> Turn {
        Turn {
            reply: Box::new(reply),
            usage: None,
        }
    }

    /// A turn whose reply does not depend on the conversation.
    pub fn fixed(reply: Reply) -> Turn {
        Turn::new(move |_| reply)
    }

    /// The same turn, reporting `input` and `output` tokens.
    pub fn with_usage(mut self, input: u64, output: u64) -> Turn {
        self.usage = Some((input, output));
        self
    }
}

/// The scripted model: the pass-through wire over the script.
pub type ScriptedModel = Model<ScriptedWire, Script>;

/// A model that plays `turns`, one per completion request; a request past the end fails.
pub fn scripted(turns: impl IntoIterator<Item = Turn>) -> ScriptedModel {
    Model::new(
        ScriptedWire,
        Script {
            turns: Arc::new(Mutex::new(turns.into_iter().collect())),
            calls: Arc::new(AtomicUsize::new(0)),
        },
    )
}

/// The text of every tool result in `request`'s history (pointers, exploration answers …),
/// oldest first.
pub fn tool_results(request: &CompletionRequest) -> Vec<String> {
    request
        .chat_history
        .iter()
        .filter_map(|message| match message {
            Message::User { content } => Some(content),
            _ => None,
        })
        .flatten()
        .filter_map(|part| match part {
            UserContent::ToolResult(result) => Some(
                result
                    .content
                    .iter()
                    .filter_map(|block| block.as_text())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        })
        .collect()
}

/// The latest tool result's text, or `""`.
pub fn last_tool_result(request: &CompletionRequest) -> String {
    tool_results(request).pop().unwrap_or_default()
}

/// The stored file a pointer names on its `file: ` line, or `""`.
pub fn pointer_file(pointer: &str) -> String {
    pointer
        .lines()
        .find_map(|line| line.strip_prefix("file: "))
        .unwrap_or_default()
        .to_owned()
}

/// The transport: it answers each request with the script's next turn.
#[derive(Clone)]
pub struct Script {
    turns: Arc<Mutex<VecDeque<Turn>>>,
    calls: Arc<AtomicUsize>,
}

impl Transport<ScriptedWire> for Script {
    fn send(&self, request: CompletionRequest, _exchange: Exchange) -> Opening<Frame> {
        let turn = self
            .turns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        let Some(turn) = turn else {
            return Opening::failed(ProviderError::Provider(
                "the script has no more turns".to_owned(),
            ));
        };
        let (input, output) = turn.usage.unwrap_or_else(|| estimated_usage(&request));
        let call = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let frame = Frame {
            reply: (turn.reply)(&request),
            call_id: format!("call_{call}"),
            usage: Usage::new()
                .input_tokens(input)
                .output_tokens(output)
                .total_tokens(input + output),
        };
        Opening::ready(Opened::new(futures::stream::iter([Ok(frame)])))
    }
}

/// About four bytes a token, over everything the request carries.
fn estimated_usage(request: &CompletionRequest) -> (u64, u64) {
    let bytes = serde_json::to_string(&request.chat_history).map_or(0, |s| s.len())
        + serde_json::to_string(&request.tools).map_or(0, |s| s.len())
        + request
            .documents
            .iter()
            .map(|d| d.text.len())
            .sum::<usize>();
    ((bytes / 4) as u64, 40)
}

/// One reply, whole: the script's transport sends each in a single frame.
pub struct Frame {
    reply: Reply,
    call_id: String,
    usage: Usage,
}

/// The pass-through wire: the payload is the request itself, each frame one whole reply.
#[derive(Clone, Debug, Default)]
pub struct ScriptedWire;

impl ReplayTarget for ScriptedWire {
    fn api(&self) -> Api {
        Api::from_static("scripted")
    }

    fn provider(&self) -> &str {
        "scripted"
    }

    fn model(&self) -> &str {
        "scripted"
    }

    fn accepts(&self, _model: &str) -> Accepts {
        Accepts::ALL
    }

    /// A script has no sampling to tune: every option it is given is honoured by ignoring it.
    fn map_options(&self, _request: &CompletionRequest, fields: OptionFields<'_>) -> OptionMap {
        let ignored = |set: bool| {
            if set {
                Mapping::Omit("a script ignores sampling options")
            } else {
                Mapping::Nothing
            }
        };
        OptionMap {
            reasoning: ignored(fields.reasoning.is_some()),
            cache: ignored(fields.cache.is_some()),
            service_tier: ignored(fields.service_tier.is_some()),
            verbosity: ignored(fields.verbosity.is_some()),
            parallel_tool_calls: ignored(fields.parallel_tool_calls.is_some()),
            top_p: ignored(fields.top_p.is_some()),
            seed: ignored(fields.seed.is_some()),
            stop: ignored(!fields.stop.is_empty()),
        }
    }
}

impl Wire for ScriptedWire {
    type Op = Completion;
    type Payload = CompletionRequest;
    type Frame = Frame;
    type Decoder<'id> = FrameDecoder;
    type Reassembler = FrameDocument;

    fn describe(&self) -> Descriptor<'_> {
        Descriptor::new("scripted").model("scripted").replay(self)
    }

    fn encode(
        &self,
        request: CompletionRequest,
        _mode: Mode,
    ) -> Result<CompletionRequest, EncodeError> {
        Ok(request)
    }

    fn decoder<'id>(&self) -> Self::Decoder<'id> {
        FrameDecoder
    }
}

/// Writes a frame's reply into rig's completion response, then ends it with the usage.
pub struct FrameDecoder;

impl<'id> Decoder<'id, Completion, Frame> for FrameDecoder {
    type Event = Frame;

    fn classify(&self, frame: Frame) -> WireEvent<Frame> {
        WireEvent::Known(frame)
    }

    fn decode(
        &mut self,
        frame: Frame,
        mut out: Out<'id, Completion>,
    ) -> Result<Flow, ProviderError> {
        let reason = match frame.reply {
            Reply::Text(text) => {
                out.run(Block::Text, &text)?;
                out.end_run()?;
                FinishReason::Stop
            }
            Reply::Call { tool, arguments } => {
                let index = out.fresh_index();
                out.fragment(
                    Some(index),
                    CallFragment {
                        id: Some(&frame.call_id),
                        name: Some(&tool),
                        ..CallFragment::default()
                    },
                )?;
                out.announce(index, arguments)?;
                out.finish(index)?;
                FinishReason::ToolCalls
            }
        };
        Ok(out.end(Finish {
            usage: frame.usage,
            reason: Some(reason),
            ..Finish::default()
        }))
    }
}

/// The provider document of a reply (rig keeps it as the response's `raw`).
#[derive(Default)]
pub struct FrameDocument(Value);

impl Serves<Completion> for FrameDocument {}

impl Reassemble<Frame> for FrameDocument {
    fn absorb(&mut self, frame: &Frame) {
        self.0 = match &frame.reply {
            Reply::Text(text) => json!({"text": text}),
            Reply::Call { tool, arguments } => {
                json!({"call": {"id": frame.call_id, "tool": tool, "arguments": arguments}})
            }
        };
    }

    fn finish(self) -> Value {
        self.0
    }
}
