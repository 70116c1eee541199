//! The login: ask the server (the probe: its 401 names the protected resource metadata), discover
//! the authorization server, get a client id, send the user to the authorization URL, receive
//! the code on a loopback redirect, exchange it, and keep the tokens.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::response::{Html, IntoResponse, Response};
use reqwest::StatusCode;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession, CredentialStore,
    InMemoryCredentialStore,
};
use tokio::sync::mpsc;

use super::probe::{Probe, probe};
use super::store::SignInFile;
use super::{CLIENT_NAME, OAuthError, SignIn, TokenStore, normalize};

/// How long the login waits for the user by default.
const DEFAULT_WAIT: Duration = Duration::from_secs(300);

/// Who overspill is to the authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ClientIdentity {
    /// Register a client (RFC 7591 dynamic client registration).
    #[default]
    Register,
    /// A client registered beforehand with the authorization server.
    Preregistered {
        /// Its client id.
        client_id: String,
        /// Its secret, for a confidential client.
        secret: Option<ClientSecret>,
    },
    /// An HTTPS URL serving the client's metadata document (client ID metadata documents),
    /// used when the authorization server supports them, else registration.
    MetadataDocument(String),
}

/// A client secret; `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientSecret(String);

impl ClientSecret {
    /// The secret.
    pub fn new(secret: impl Into<String>) -> ClientSecret {
        ClientSecret(secret.into())
    }
}

impl std::fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientSecret(hidden)")
    }
}

/// Where the login tells the user which URL to open: the caller prints it (the library does
/// not print).
#[derive(Clone)]
pub struct Notice(Arc<dyn Fn(&str) + Send + Sync>);

impl Notice {
    /// Calls `show` with each line to show the user.
    pub fn new(show: impl Fn(&str) + Send + Sync + 'static) -> Notice {
        Notice(Arc::new(show))
    }

    fn show(&self, line: &str) {
        (self.0)(line);
    }
}

impl std::fmt::Debug for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notice")
    }
}

impl PartialEq for Notice {
    fn eq(&self, other: &Notice) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Notice {}

/// How to sign in to one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    url: String,
    scopes: Vec<String>,
    client: ClientIdentity,
    browser: bool,
    callback_port: u16,
    wait: Duration,
    notice: Notice,
}

impl Login {
    /// A login to the MCP endpoint `url` that registers a client, asks for the scopes the
    /// server names, opens a browser and waits up to 5 minutes; `notice` shows the user the
    /// authorization URL.
    ///
    /// # Errors
    ///
    /// [`OAuthError::InvalidUrl`] when `url` is not an absolute `http(s)` URL.
    pub fn new(url: &str, notice: Notice) -> Result<Login, OAuthError> {
        Ok(Login {
            url: normalize(url)?,
            scopes: Vec::new(),
            client: ClientIdentity::Register,
            browser: true,
            callback_port: 0,
            wait: DEFAULT_WAIT,
            notice,
        })
    }

    /// The same login asking for these scopes instead of the server's.
    #[must_use]
    pub fn with_scopes(mut self, scopes: Vec<String>) -> Login {
        self.scopes = scopes;
        self
    }

    /// The same login as another client.
    #[must_use]
    pub fn with_client(mut self, client: ClientIdentity) -> Login {
        self.client = client;
        self
    }

    /// The same login without opening a browser (the URL is only shown).
    #[must_use]
    pub fn without_browser(mut self) -> Login {
        self.browser = false;
        self
    }

    /// The same login receiving the redirect on this loopback port (0: a free one).
    #[must_use]
    pub fn with_callback_port(mut self, port: u16) -> Login {
        self.callback_port = port;
        self
    }

    /// The same login waiting this long for the user.
    #[must_use]
    pub fn with_wait(mut self, wait: Duration) -> Login {
        self.wait = wait;
        self
    }

    /// The endpoint signed in to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The same login for more scopes, as the client of an earlier sign-in, on its port (an
    /// authorization server may hold the client to the redirect it registered).
    pub(crate) fn step_up(
        &self,
        scopes: Vec<String>,
        client_id: &str,
        secret: Option<&str>,
        redirect_uri: &str,
    ) -> Login {
        let port = reqwest::Url::parse(redirect_uri)
            .ok()
            .and_then(|url| url.port())
            .unwrap_or(self.callback_port);
        let mut login =
            self.clone()
                .with_scopes(scopes)
                .with_client(ClientIdentity::Preregistered {
                    client_id: client_id.to_owned(),
                    secret: secret.map(ClientSecret::new),
                });
        if self.callback_port == 0 {
            login.callback_port = port;
        }
        login
    }
}

/// [`login`] on a runtime of its own, for a caller that has none (the CLI).
///
/// # Errors
///
/// As for [`login`], plus [`OAuthError::Runtime`].
pub fn login_blocking(store: &TokenStore, login: &Login) -> Result<SignIn, OAuthError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(OAuthError::Runtime)?;
    runtime.block_on(self::login(store, login, None))
}

/// Runs the login and keeps the tokens in `store` (replacing an earlier sign-in to the same
/// server only once the new one succeeded). `challenge` is the 401's `WWW-Authenticate`, when
/// the caller already has one; otherwise the server is asked.
///
/// # Errors
///
/// Every [`OAuthError`] of the flow: the server cannot be reached or is not protected,
/// discovery or registration fails, the user refuses or does not finish in time, the token
/// exchange fails, the file cannot be written.
pub async fn login(
    store: &TokenStore,
    login: &Login,
    challenge: Option<String>,
) -> Result<SignIn, OAuthError> {
    let url = &login.url;
    // reqwest is built without a compiled-in crypto provider: ring is this process's.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (challenge, open) = match challenge {
        Some(challenge) => (Some(challenge), None),
        None => match probe(url).await? {
            Probe::Refused(challenge) => (challenge, None),
            Probe::Open(status) => (None, Some(status)),
        },
    };
    let flow = |step: &'static str, hint: &'static str| {
        move |error: AuthError| OAuthError::Flow {
            url: url.clone(),
            step,
            reason: error.to_string(),
            hint,
        }
    };
    let mut manager = AuthorizationManager::new(url.as_str())
        .await
        .map_err(flow("setting up", ""))?;
    let resolution = manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
        .map_err(flow("discovering its authorization server", ""))?;
    if let Some(status) = open
        && !resolution.source.is_discovered()
    {
        return Err(OAuthError::NotProtected {
            url: url.clone(),
            status,
        });
    }
    let supports_metadata_documents = resolution
        .metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    manager.set_metadata(resolution.metadata);
    // The tokens stay in memory until the whole login succeeded.
    let memory = InMemoryCredentialStore::new();
    manager.set_credential_store(memory.clone());

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", login.callback_port))
        .await
        .map_err(|error| OAuthError::Callback {
            port: login.callback_port,
            error,
        })?;
    let port = listener
        .local_addr()
        .map_err(|error| OAuthError::Callback {
            port: login.callback_port,
            error,
        })?
        .port();
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");

    let mut request = AuthorizationRequest::new(redirect_uri.clone()).with_client_name(CLIENT_NAME);
    request = if login.scopes.is_empty() {
        request.with_initial_scope_selection()
    } else {
        request.with_scopes(login.scopes.clone())
    };
    let mut secret = None;
    match &login.client {
        ClientIdentity::Preregistered {
            client_id,
            secret: given,
        } => {
            request = request.with_preregistered_client(client_id.clone());
            if let Some(ClientSecret(given)) = given {
                request = request.with_client_secret(given.clone());
                secret = Some(given.clone());
            }
        }
        ClientIdentity::MetadataDocument(document) if supports_metadata_documents => {
            request = request.with_client_metadata_url(document.clone());
        }
        ClientIdentity::MetadataDocument(_) | ClientIdentity::Register => {
            // Registered here rather than inside rmcp's session so that a secret the
            // authorization server issues is kept for refreshes in later processes.
            let scopes = if login.scopes.is_empty() {
                manager.select_initial_scopes(&[]).await
            } else {
                login.scopes.clone()
            };
            let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
            let registered = manager
                .register_client(CLIENT_NAME, &redirect_uri, &scopes)
                .await
                .map_err(flow(
                    "registering overspill as a client",
                    "; if the authorization server does not register clients itself, register \
                     one there and pass --client-id (and --client-secret-env)",
                ))?;
            request = request.with_preregistered_client(registered.client_id.clone());
            if let Some(given) = registered.client_secret {
                request = request.with_client_secret(given.clone());
                secret = Some(given);
            }
        }
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, error)| flow("preparing the authorization request", "")(error))?;
    let authorization_url = session.get_authorization_url().to_owned();
    let state = query_value(&authorization_url, "state").unwrap_or_default();

    login.notice.show(&format!(
        "To sign in to {url}, open this URL in a browser (waiting up to {} s):",
        login.wait.as_secs()
    ));
    login.notice.show(&format!("  {authorization_url}"));
    if login.browser {
        open_browser(&authorization_url);
    }

    let (callbacks, mut received) = mpsc::channel::<String>(4);
    let router = axum::Router::new()
        .route("/callback", axum::routing::get(callback))
        .with_state(Arc::new(Callback {
            state: state.clone(),
            sender: callbacks,
        }));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    let answer = tokio::time::timeout(login.wait, received.recv()).await;
    let _ = stop.send(());
    let _ = tokio::time::timeout(Duration::from_secs(5), server).await;
    let query = match answer {
        Ok(Some(query)) => query,
        Ok(None) | Err(_) => {
            return Err(OAuthError::TimedOut {
                url: url.clone(),
                after: login.wait,
            });
        }
    };
    if let Some(error) =
        query_pairs(&query).find_map(|(key, value)| (key == "error").then_some(value))
    {
        return Err(OAuthError::Denied {
            url: url.clone(),
            error,
            description: query_pairs(&query)
                .find_map(|(key, value)| (key == "error_description").then_some(value)),
        });
    }
    session
        .handle_callback_url(&format!("{redirect_uri}?{query}"))
        .await
        .map_err(flow("exchanging the authorization code for tokens", ""))?;
    let (client_id, _) = session
        .get_credentials()
        .await
        .map_err(flow("reading the tokens", ""))?;
    let credentials = memory
        .load()
        .await
        .map_err(flow("reading the tokens", ""))?;
    let file = SignInFile {
        format: 1,
        server_url: url.clone(),
        client_id,
        client_secret: secret,
        redirect_uri,
        challenge,
        credentials,
    };
    let writer = store.clone();
    let written = file.clone();
    tokio::task::spawn_blocking(move || writer.save(&written))
        .await
        .map_err(|error| OAuthError::Runtime(std::io::Error::other(error.to_string())))??;
    Ok(SignIn::of(store, &file))
}

/// What the loopback redirect expects and where it sends what it gets.
struct Callback {
    state: String,
    sender: mpsc::Sender<String>,
}

/// The redirect: the query is the answer when it carries our `state`; anything else (a stale
/// tab, another program) is turned away and the login keeps waiting.
async fn callback(State(expect): State<Arc<Callback>>, RawQuery(query): RawQuery) -> Response {
    let query = query.unwrap_or_default();
    let state = query_pairs(&query).find_map(|(key, value)| (key == "state").then_some(value));
    if state.as_deref() != Some(expect.state.as_str()) {
        return (
            StatusCode::BAD_REQUEST,
            Html("<p>This is not the sign-in overspill is waiting for.</p>"),
        )
            .into_response();
    }
    let refused = query_pairs(&query).any(|(key, _)| key == "error");
    let _ = expect.sender.send(query).await;
    let text = if refused {
        "<p>The sign-in was refused; see the terminal for what to do.</p>"
    } else {
        "<p>Signed in: overspill has the authorization. You can close this window.</p>"
    };
    Html(text).into_response()
}

fn query_pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    reqwest::Url::parse(&format!("http://127.0.0.1/?{query}"))
        .map(|url| {
            url.query_pairs()
                .map(|(key, value)| (key.into_owned(), value.into_owned()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
}

fn query_value(url: &str, name: &str) -> Option<String> {
    reqwest::Url::parse(url).ok().and_then(|url| {
        url.query_pairs()
            .find_map(|(key, value)| (key == name).then(|| value.into_owned()))
    })
}

/// Opens `url` in the user's browser when there is one to open; the URL was shown anyway.
fn open_browser(url: &str) {
    let program = if cfg!(target_os = "macos") {
        Some(("open", vec![url]))
    } else if cfg!(windows) {
        Some(("rundll32", vec!["url.dll,FileProtocolHandler", url]))
    } else if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
    {
        Some(("xdg-open", vec![url]))
    } else {
        None
    };
    if let Some((program, args)) = program {
        let spawned = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Err(error) = spawned {
            tracing::info!(%error, program, "no browser opened");
        }
    }
}
