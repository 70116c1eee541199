//! Where the scratchpad's file work runs: on tokio's blocking pool when a tokio runtime is
//! running (the facade's async calls), on the calling task otherwise, so a rig agent driven by
//! any executor works and a tokio one is never blocked on a write or a parse.

use overspill::{Intercepted, Scratchpad, ToolOutput};

fn on_tokio() -> bool {
    tokio::runtime::Handle::try_current().is_ok()
}

/// [`Scratchpad::intercept`], off the executor when there is a tokio runtime.
pub(crate) async fn intercept(
    pad: &Scratchpad,
    server: &str,
    tool: &str,
    output: ToolOutput,
) -> Intercepted {
    if on_tokio() {
        pad.intercept_async(server, tool, output).await
    } else {
        pad.intercept(server, tool, output)
    }
}

/// [`Scratchpad::call`], off the executor when there is a tokio runtime.
pub(crate) async fn call(pad: &Scratchpad, tool: &str, arguments: &serde_json::Value) -> String {
    if on_tokio() {
        pad.call_async(tool, &arguments.to_string()).await
    } else {
        pad.call_value(tool, arguments)
    }
}
