//! Async variants (feature `tokio`, on by default): the file work runs on tokio's blocking
//! pool, so an async host never blocks its executor on a write or a parse.

use crate::builder::ScratchpadBuilder;
use crate::error::BuildError;
use crate::explore::ToolError;
use crate::intercept::Intercepted;
use crate::output::ToolOutput;
use crate::scratchpad::Scratchpad;

/// Runs `work` on the blocking pool. A panic in it resumes here; `None` when the runtime is
/// shutting down and cancelled it.
async fn blocking<T, F>(work: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(value) => Some(value),
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(_) => None,
    }
}

impl Scratchpad {
    /// [`intercept`](Self::intercept) on tokio's blocking pool. If the runtime shuts down
    /// first, the model gets a short notice, never the payload.
    pub async fn intercept_async(
        &self,
        server: &str,
        tool: &str,
        output: ToolOutput,
    ) -> Intercepted {
        let pad = self.clone();
        let (server, tool_name) = (server.to_owned(), tool.to_owned());
        blocking(move || pad.intercept(&server, &tool_name, output))
            .await
            .unwrap_or_else(|| {
                Intercepted::Failed(format!(
                    "[overspill] The result of `{tool}` was not shown: the host was shutting \
                     down while storing it. Call the tool again."
                ))
            })
    }

    /// [`call`](Self::call) on tokio's blocking pool.
    pub async fn call_async(&self, tool: &str, arguments: &str) -> String {
        let pad = self.clone();
        let (tool, arguments) = (tool.to_owned(), arguments.to_owned());
        blocking(move || pad.call(&tool, &arguments))
            .await
            .unwrap_or_else(|| {
                ToolError::invalid_argument(
                    None,
                    "the host was shutting down before the tool ran; call it again",
                )
                .render()
            })
    }
}

impl ScratchpadBuilder {
    /// [`build`](Self::build) on tokio's blocking pool (it creates directories).
    ///
    /// # Errors
    /// As [`build`](Self::build); a build cancelled by a runtime shutdown reports
    /// [`BuildError::Mode`].
    pub async fn build_async(self) -> Result<Scratchpad, BuildError> {
        blocking(move || self.build())
            .await
            .unwrap_or(Err(BuildError::Mode(
                "the runtime shut down before the scratchpad was built",
            )))
    }
}

#[cfg(test)]
mod tests;
