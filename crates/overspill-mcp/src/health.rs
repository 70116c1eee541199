//! The `--listen` server's health checks: `/healthz` (the process serves) and `/readyz` (new
//! sessions are taken and could work), for load balancers and probes
//! (docs/mcp-proxy.md#health-checks-and-stopping-without-losing-work).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::sync::lock;
use crate::{ProxyOptions, Upstream, child};

/// The health check's path: 200 while the process serves.
pub const HEALTH_PATH: &str = "/healthz";

/// The readiness check's path: 200 while new sessions are taken and the server a plain proxy
/// fronts can be reached (a `--url` server accepts a connection, a command's program is
/// found); 503 while draining, or while it cannot.
pub const READY_PATH: &str = "/readyz";

/// Whether `path` is one of the health checks' paths, which the MCP endpoint cannot take.
pub fn is_health_path(path: &str) -> bool {
    [HEALTH_PATH, READY_PATH].contains(&path)
}

/// How long `/readyz` waits for a `--url` server to accept a connection: below the 1 s a
/// Kubernetes probe waits by default.
const UPSTREAM_PROBE: Duration = Duration::from_millis(800);

/// How long one check of the upstream stands: probes from several balancers, or from anyone
/// who can reach the port, cost one connection a second at most.
const CHECK_STANDS: Duration = Duration::from_secs(1);

/// A check of [`Listen::ready_check`](crate::Listen::ready_check): what else a new session
/// needs, `Err` saying what is missing.
pub type ReadyCheck = std::sync::Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

/// What `/readyz` found of the upstream, kept for [`CHECK_STANDS`].
#[derive(Default)]
pub(crate) struct Readiness {
    last: Mutex<Option<(Instant, Result<(), String>)>>,
}

impl Readiness {
    /// Whether a new session of `options` could reach the server it needs: `Err` names it
    /// (the reason goes to the debug log, not to whoever probes). A plain proxy's one server is
    /// needed, since a session is nothing without it; a gateway's are not, since a session
    /// goes on without a missing server (docs/mcp-proxy.md#when-a-server-fails), and every
    /// instance shares them: one server down must not take every instance out of rotation.
    ///
    /// `also`, the listener's [`ready_check`](crate::Listen::ready_check), is needed by every
    /// session, a gateway's too: it runs on the blocking pool, and its `Err` is the answer.
    pub(crate) async fn check(
        &self,
        options: &ProxyOptions,
        also: Option<&ReadyCheck>,
    ) -> Result<(), String> {
        if options.namespace.is_some() && also.is_none() {
            return Ok(());
        }
        if let Some((at, found)) = &*lock(&self.last)
            && at.elapsed() < CHECK_STANDS
        {
            return found.clone();
        }
        let found = match (options.namespace.is_some(), options.servers.first()) {
            (false, Some(server)) => {
                let checked = match &server.upstream {
                    Upstream::Http(remote) => remote.reachable(UPSTREAM_PROBE).await,
                    Upstream::Command(command) => child::findable(command),
                    Upstream::Invalid(problem) => Err(problem.clone()),
                };
                checked.map_err(|why| {
                    tracing::debug!(server = %server.name, %why, "not ready");
                    format!("the server `{}` cannot be reached or started", server.name)
                })
            }
            _ => Ok(()),
        };
        let found = match (found, also) {
            (Ok(()), Some(also)) => {
                let also = std::sync::Arc::clone(also);
                tokio::task::spawn_blocking(move || also())
                    .await
                    .unwrap_or_else(|_| Err("the readiness check failed".to_owned()))
            }
            (found, _) => found,
        };
        *lock(&self.last) = Some((Instant::now(), found.clone()));
        found
    }
}
