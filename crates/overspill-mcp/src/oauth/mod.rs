//! Signing in to OAuth-protected remote MCP servers (MCP authorization, 2025-06-18 to
//! 2026-07-28, servers of either era): the login ([`login`]), the stored sign-ins
//! ([`TokenStore`], [`sign_ins`]) and the bearer the `--url` upstream sends, refreshed before
//! expiry and after a 401, and signed in again for more scopes after a 403 `insufficient_scope`
//! (with `--oauth`).
//!
//! The OAuth itself (protected resource metadata from the 401's challenge, authorization
//! server discovery, client registration or a client ID metadata document, PKCE, the
//! `resource` parameter, token exchange and refresh) is rmcp's `auth` module; this module
//! owns what is the proxy's: where tokens live, the loopback redirect, and when to refresh.
//! No token is ever formatted into an error, a log line or `Debug` output.

mod bearer;
mod login;
mod probe;
mod store;

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oauth2::TokenResponse;

pub(crate) use bearer::Authorizer;
pub use login::{ClientIdentity, ClientSecret, Login, Notice, login, login_blocking};
pub(crate) use probe::asks_for_scope;
pub use store::TokenStore;

/// The name overspill registers under with an authorization server, and gives itself to the
/// MCP server it probes.
const CLIENT_NAME: &str = "overspill";

/// Why signing in, or using a sign-in, failed. Each message says what to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// No configuration dir to keep tokens in.
    #[error(
        "cannot find your configuration dir to keep the sign-in in: set HOME (or XDG_CONFIG_HOME)"
    )]
    NoConfigDir,
    /// A token file or the token dir cannot be read or written.
    #[error("cannot use the sign-in file {}: {error}; check its owner and permissions", path.display())]
    Store {
        /// The file or dir.
        path: PathBuf,
        /// Why, stated in the message (not returned by `source()`).
        error: std::io::Error,
    },
    /// A token file is not one this overspill wrote.
    #[error(
        "the sign-in file {} cannot be read ({reason}); remove it with `overspill auth logout \
         --all` (or delete the file) and sign in again", path.display()
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// `--url` is not an `http(s)` endpoint.
    #[error("invalid --url {url:?}: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The server answered without asking for authorization.
    #[error(
        "the MCP server at {url} answered without asking for authorization (HTTP {status}); \
         `overspill mcp --url {url}` needs no sign-in"
    )]
    NotProtected {
        /// The endpoint.
        url: String,
        /// Its answer's status.
        status: u16,
    },
    /// The server or its authorization server could not be reached.
    #[error("cannot reach {url}: {reason}; check the URL and your network")]
    Unreachable {
        /// What was asked.
        url: String,
        /// Why.
        reason: String,
    },
    /// A step of the OAuth flow failed (discovery, registration, the token exchange).
    #[error("signing in to {url} failed while {step}: {reason}{hint}")]
    Flow {
        /// The MCP endpoint.
        url: String,
        /// The step, e.g. "registering the client".
        step: &'static str,
        /// What the authorization server or rmcp said.
        reason: String,
        /// What to try, when there is something to try.
        hint: &'static str,
    },
    /// The authorization server sent the user back with an error (e.g. `access_denied`).
    #[error(
        "the authorization server of {url} refused the sign-in: {error}{}; run \
         `overspill auth login --url {url}` again to retry",
        description.as_deref().map(|text| format!(" ({text})")).unwrap_or_default()
    )]
    Denied {
        /// The MCP endpoint.
        url: String,
        /// The OAuth error code.
        error: String,
        /// Its description, if any.
        description: Option<String>,
    },
    /// The loopback redirect cannot be served.
    #[error(
        "cannot receive the sign-in on 127.0.0.1:{port}: {error}; pick a free port with \
         --callback-port, or leave it out for a random one"
    )]
    Callback {
        /// The port asked for (0: any).
        port: u16,
        /// Why, stated in the message (not returned by `source()`).
        error: std::io::Error,
    },
    /// Nobody completed the sign-in in the browser in time.
    #[error(
        "no sign-in arrived within {} s; run `overspill auth login --url {url}` again and \
         finish it in the browser", after.as_secs()
    )]
    TimedOut {
        /// The MCP endpoint.
        url: String,
        /// How long the login waited.
        after: Duration,
    },
    /// There is no sign-in for the server.
    #[error(
        "the MCP server at {url} requires signing in: run `overspill auth login --url {url}` \
         in a terminal, then restart the proxy (your MCP client reconnects it); for a server \
         that takes an API key instead, pass it with --header 'Authorization: Bearer ${{TOKEN}}'"
    )]
    SignInRequired {
        /// The endpoint.
        url: String,
    },
    /// The sign-in expired and could not be renewed.
    #[error(
        "the sign-in to {url} has expired and could not be renewed ({reason}); run \
         `overspill auth login --url {url}` in a terminal, then restart the proxy"
    )]
    Expired {
        /// The endpoint.
        url: String,
        /// Why the refresh failed.
        reason: String,
    },
    /// The server wants scopes the sign-in does not have.
    #[error(
        "the MCP server at {url} needs the scope(s) `{scopes}` for this; run `overspill auth \
         login --url {url}{flags}` and restart the proxy, or start it with --oauth"
    )]
    ScopeRequired {
        /// The endpoint.
        url: String,
        /// The scopes it named, space-separated.
        scopes: String,
        /// `--scope a --scope b` for every scope to ask for.
        flags: String,
    },
    /// The server still refuses after a sign-in with the scopes it named.
    #[error(
        "the MCP server at {url} still refuses with insufficient_scope after signing in with \
         `{scopes}`; the account may not be allowed this operation"
    )]
    ScopeRefused {
        /// The endpoint.
        url: String,
        /// The scopes signed in with.
        scopes: String,
    },
    /// No tokio runtime could be started.
    #[error("cannot start the async runtime: {0}; free some threads or file descriptors")]
    Runtime(std::io::Error),
}

/// One stored sign-in as `overspill auth status` shows it; never a token.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SignIn {
    /// The MCP endpoint.
    pub server_url: String,
    /// The client id the tokens were issued to.
    pub client_id: String,
    /// The scopes granted.
    pub scopes: Vec<String>,
    /// When the access token expires, if the server said.
    pub expires_at: Option<SystemTime>,
    /// Whether a refresh token is kept (the proxy renews the access token itself).
    pub refreshable: bool,
    /// Whether there are tokens at all (a sign-in whose refresh was rejected has none).
    pub has_tokens: bool,
    /// The file it is kept in.
    pub file: PathBuf,
}

impl SignIn {
    fn of(store: &TokenStore, file: &store::SignInFile) -> SignIn {
        let credentials = file.credentials.as_ref();
        let tokens = credentials.and_then(|credentials| credentials.token_response.as_ref());
        let expires_at = credentials.and_then(|credentials| {
            let received = credentials.token_received_at?;
            let lifetime = tokens?.expires_in()?;
            Some(UNIX_EPOCH + Duration::from_secs(received) + lifetime)
        });
        SignIn {
            server_url: file.server_url.clone(),
            client_id: file.client_id.clone(),
            scopes: credentials
                .map(|credentials| credentials.granted_scopes.clone())
                .unwrap_or_default(),
            expires_at,
            refreshable: tokens.is_some_and(|tokens| tokens.refresh_token().is_some()),
            has_tokens: tokens.is_some(),
            file: store.file_for(&file.server_url),
        }
    }
}

/// Every sign-in in `store`; a file that cannot be read is an `Err` in its place.
///
/// # Errors
///
/// [`OAuthError::Store`] when the dir cannot be listed.
pub fn sign_ins(store: &TokenStore) -> Result<Vec<Result<SignIn, OAuthError>>, OAuthError> {
    Ok(store
        .all()?
        .into_iter()
        .map(|file| file.map(|file| SignIn::of(store, &file)))
        .collect())
}

/// The sign-in to `server_url`, if any.
///
/// # Errors
///
/// [`OAuthError::Store`] or [`OAuthError::Corrupt`] when its file cannot be read.
pub fn sign_in(store: &TokenStore, server_url: &str) -> Result<Option<SignIn>, OAuthError> {
    let url = normalize(server_url)?;
    Ok(store.load(&url)?.map(|file| SignIn::of(store, &file)))
}

/// The endpoint as the key of its sign-in: parsed and printed back, without a fragment, so
/// `HTTP://Host:443/mcp#x` and `http://host:443/mcp` are one server.
///
/// # Errors
///
/// [`OAuthError::InvalidUrl`] when it is not an absolute `http(s)` URL.
pub fn normalize(server_url: &str) -> Result<String, OAuthError> {
    let invalid = |reason: String| OAuthError::InvalidUrl {
        url: server_url.to_owned(),
        reason,
    };
    let mut url = reqwest::Url::parse(server_url).map_err(|error| invalid(error.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(invalid(
            "give the server's http:// or https:// endpoint, e.g. https://host/mcp".to_owned(),
        ));
    }
    url.set_fragment(None);
    Ok(url.to_string())
}

/// Now, in seconds since the epoch (what rmcp stores as `token_received_at`).
fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}
