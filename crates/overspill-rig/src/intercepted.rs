//! [`InterceptedTool`]: a rig tool whose result goes through the scratchpad.

use std::sync::Arc;

use overspill::{Intercepted, Scratchpad};
use rig_core::tool::{
    DynamicTool, IntoToolOutput, Tool, ToolContext, ToolExecutionError, ToolOutput,
};
use rig_core::wasm_compat::WasmBoxedFuture;
use serde_json::Value;

use crate::offload;

/// A rig tool whose result passes through [`Scratchpad::intercept`], so a large one reaches the
/// model as a pointer, and whose `overspill://` references in the arguments are resolved before
/// the tool runs.
///
/// It keeps the inner tool's name, description and parameters. What the model gets:
///
/// - a text or JSON result below its threshold: the result, unchanged;
/// - one at or over it: the pointer (or, if it could not be stored, a short notice);
/// - an error, an image or several content blocks: unchanged (errors are never intercepted);
/// - a reference that cannot be resolved: an `invalid_args` error naming it, and the inner tool
///   does not run.
///
/// Wrap a typed tool ([`Tool`], or a [`PortableTool`](rig_core::tool::PortableTool), which is
/// one) and register the wrapper with `AgentBuilder::tool`; wrap a [`DynamicTool`] and register
/// [`into_dynamic`](InterceptedTool::into_dynamic) with `AgentBuilder::dynamic_tool`.
///
/// A rig tool belongs to no MCP server, so by default only
/// [`ScratchpadBuilder::intercept_all`](overspill::ScratchpadBuilder::intercept_all) or
/// [`min_tokens`](Self::min_tokens) give it a threshold; [`server`](Self::server) puts it under
/// a configured server's rules instead.
#[derive(Clone)]
pub struct InterceptedTool<T> {
    inner: T,
    route: Route,
}

/// Where a wrapped tool's results go: the scratchpad, and the threshold that applies to them.
#[derive(Clone)]
struct Route {
    pad: Scratchpad,
    server: String,
    min_tokens: Option<u64>,
}

impl<T> InterceptedTool<T> {
    /// `tool`, its results intercepted by `pad`.
    pub fn new(tool: T, pad: &Scratchpad) -> InterceptedTool<T> {
        InterceptedTool {
            inner: tool,
            route: Route {
                pad: pad.clone(),
                server: String::new(),
                min_tokens: None,
            },
        }
    }

    /// Attributes the tool to `server`, so the configuration's
    /// `[mcp.servers.<server>.scratchpad]` rules give its threshold.
    #[must_use]
    pub fn server(mut self, server: impl Into<String>) -> InterceptedTool<T> {
        self.route.server = server.into();
        self
    }

    /// Intercepts this tool's results from `min_tokens` tokens, whatever the rules say.
    #[must_use]
    pub fn min_tokens(mut self, min_tokens: u64) -> InterceptedTool<T> {
        self.route.min_tokens = Some(min_tokens);
        self
    }

    /// The wrapped tool.
    pub fn inner(&self) -> &T {
        &self.inner
    }
}

impl<T: Tool> Tool for InterceptedTool<T> {
    const NAME: &'static str = T::NAME;
    // Raw JSON, so references are resolved before the inner tool's typed arguments are read.
    type Args = Value;
    type Output = ToolOutput;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        self.inner.description()
    }

    fn parameters(&self) -> Value {
        self.inner.parameters()
    }

    async fn call(
        &self,
        context: &mut ToolContext,
        args: Value,
    ) -> Result<ToolOutput, ToolExecutionError> {
        let args = self.route.resolve(args, || self.inner.parameters())?;
        let args = typed_args::<T::Args>(args)?;
        let output = self
            .inner
            .call(context, args)
            .await
            .map_err(|error| self.inner.map_error(error))?
            .into_tool_output()?;
        Ok(self.route.intercept(T::NAME, output).await)
    }
}

impl InterceptedTool<DynamicTool> {
    /// The wrapped runtime-defined tool as a [`DynamicTool`] with the same definition (and the
    /// same liveness probe), for `AgentBuilder::dynamic_tool`.
    pub fn into_dynamic(self) -> DynamicTool {
        let definition = self.inner.definition();
        let this = Arc::new(self);
        let probe = Arc::clone(&this);
        let callback = contextual(move |context, args| {
            let this = Arc::clone(&this);
            Box::pin(async move { this.call_dynamic(context, args).await })
        });
        DynamicTool::new_with_context(
            definition.name,
            definition.description,
            definition.parameters,
            callback,
        )
        .with_liveness(move || probe.inner.is_live())
    }

    async fn call_dynamic(
        &self,
        context: &mut ToolContext,
        args: Value,
    ) -> Result<ToolOutput, ToolExecutionError> {
        let args = self
            .route
            .resolve(args, || self.inner.definition().parameters)?;
        let output = self.inner.execute_with(context, args).await?;
        Ok(self
            .route
            .intercept(self.inner.name().as_str(), output)
            .await)
    }
}

impl From<InterceptedTool<DynamicTool>> for DynamicTool {
    fn from(tool: InterceptedTool<DynamicTool>) -> DynamicTool {
        tool.into_dynamic()
    }
}

impl Route {
    /// `args` with every `overspill://` reference replaced by what it names, read as the inner
    /// tool's parameter `schema` declares each argument (docs/references.md).
    fn resolve(
        &self,
        args: Value,
        schema: impl FnOnce() -> Value,
    ) -> Result<Value, ToolExecutionError> {
        if !overspill::references::has_references(&args) {
            return Ok(args);
        }
        self.pad
            .resolve_references(&args, Some(&schema()))
            .map_err(|error| {
                ToolExecutionError::invalid_args(error.to_string())
                    .with_code(error.code())
                    .with_source(error)
            })
    }

    /// What the model gets for `output`: the output itself, or the pointer (or failure notice).
    async fn intercept(&self, tool: &str, output: ToolOutput) -> ToolOutput {
        let stored = if let Some(text) = output.as_text() {
            overspill::ToolOutput::text(text)
        } else if let Some(value) = output.as_json() {
            // Stored as the JSON text the model would have read.
            overspill::ToolOutput::text(value.to_string())
        } else {
            return output;
        };
        let stored = match self.min_tokens {
            Some(min_tokens) => stored.with_min_tokens(min_tokens),
            None => stored,
        };
        match offload::intercept(&self.pad, &self.server, tool, stored).await {
            Intercepted::Inline(_) => output,
            Intercepted::Pointer(text) | Intercepted::Failed(text) => ToolOutput::text(text),
        }
    }
}

/// The inner tool's typed arguments, read as rig reads them (a `null` is an empty object).
fn typed_args<A>(args: Value) -> Result<A, ToolExecutionError>
where
    A: for<'de> serde::Deserialize<'de>,
{
    let null = args.is_null();
    serde_json::from_value(args).or_else(|error| {
        let empty = null.then(|| serde_json::from_value(Value::Object(serde_json::Map::new())));
        match empty {
            Some(Ok(args)) => Ok(args),
            _ => Err(ToolExecutionError::invalid_args(format!(
                "failed to parse tool arguments: {error}"
            ))
            .with_source(error)),
        }
    })
}

/// Pins a closure to the higher-ranked signature of a contextual [`DynamicTool`] callback.
fn contextual<F>(callback: F) -> F
where
    F: for<'a> Fn(
        &'a mut ToolContext,
        Value,
    ) -> WasmBoxedFuture<'a, Result<ToolOutput, ToolExecutionError>>,
{
    callback
}
