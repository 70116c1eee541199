//! The bearer a `--url` upstream sends: the stored access token, renewed with the refresh
//! token before it expires and after the server answers 401, or (with `--oauth`) a new login.

use std::sync::{PoisonError, RwLock};

use oauth2::TokenResponse;
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, OAuthClientConfig, WWWAuthenticateParams,
};

use super::store::SignInFile;
use super::{Login, OAuthError, TokenStore, now_secs};
use crate::sync::lock;

/// Refresh this long before the access token expires (or at half its life, if shorter).
const EARLY_SECS: u64 = 60;

/// The access token in use and when to renew it; `Debug` is not implemented on purpose.
struct Current {
    token: String,
    renew_at: Option<u64>,
}

/// One upstream's authorization.
pub(crate) struct Authorizer {
    url: String,
    store: TokenStore,
    login: Option<Login>,
    current: RwLock<Option<Current>>,
    /// Held while renewing, so concurrent requests wait for one renewal.
    renewing: tokio::sync::Mutex<()>,
    /// The scope sets already signed in with for a step-up: each is tried once.
    stepped_up: std::sync::Mutex<Vec<Vec<String>>>,
    /// Told of each refresh and whether it worked (the metrics).
    refreshed: Option<Box<dyn Fn(bool) + Send + Sync>>,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer")
            .field("url", &self.url)
            .field("interactive", &self.login.is_some())
            .finish_non_exhaustive()
    }
}

impl Authorizer {
    /// The authorization of `url` from `store`; `login` runs when there is no usable sign-in.
    pub(crate) fn new(url: String, store: TokenStore, login: Option<Login>) -> Authorizer {
        let current = store
            .load(&url)
            .ok()
            .flatten()
            .and_then(|file| current_of(&file));
        Authorizer {
            url,
            store,
            login,
            current: RwLock::new(current),
            renewing: tokio::sync::Mutex::new(()),
            stepped_up: std::sync::Mutex::new(Vec::new()),
            refreshed: None,
        }
    }

    /// The same authorization, telling `refreshed` of each refresh and whether it worked.
    pub(crate) fn on_refresh(
        mut self,
        refreshed: impl Fn(bool) + Send + Sync + 'static,
    ) -> Authorizer {
        self.refreshed = Some(Box::new(refreshed));
        self
    }

    /// The token for the next request (renewed first when it is about to expire), or `None`
    /// when there is no sign-in yet. A renewal that fails for a reason that may pass (the
    /// authorization server is down) keeps the old token until the server refuses it.
    pub(crate) async fn bearer(&self) -> Result<Option<String>, OAuthError> {
        let (token, due) = match &*self.read() {
            Some(current) => (
                current.token.clone(),
                current.renew_at.is_some_and(|at| at <= now_secs()),
            ),
            None => return Ok(None),
        };
        if !due {
            return Ok(Some(token));
        }
        match self.renew(Some(&token), None).await {
            Ok(token) => Ok(Some(token)),
            Err(error @ (OAuthError::Expired { .. } | OAuthError::SignInRequired { .. })) => {
                Err(error)
            }
            Err(error) => {
                tracing::warn!(%error, "renewing the access token early failed; using it as is");
                Ok(Some(token))
            }
        }
    }

    /// After a 401 to a request sent with `used`: a token to retry with, or why there is none.
    pub(crate) async fn after_unauthorized(
        &self,
        used: Option<&str>,
        challenge: Option<&str>,
    ) -> Result<String, OAuthError> {
        self.renew(used, challenge).await
    }

    /// After a 403 `insufficient_scope` whose challenge is `challenge`: a token with the
    /// scopes it names added to those granted (a new login, with `--oauth`), or why not. Each
    /// set of scopes is signed in for once, so a server that keeps refusing ends the loop.
    pub(crate) async fn step_up(&self, challenge: &str) -> Result<String, OAuthError> {
        let base = reqwest::Url::parse(&self.url).map_err(|error| OAuthError::InvalidUrl {
            url: self.url.clone(),
            reason: error.to_string(),
        })?;
        let params = WWWAuthenticateParams::parse(challenge, &base);
        let _turn = self.renewing.lock().await;
        let file = self.load().await?;
        let granted = file
            .as_ref()
            .and_then(|file| file.credentials.as_ref())
            .map(|credentials| credentials.granted_scopes.as_slice())
            .unwrap_or_default();
        let wanted = union(granted, params.scope.as_deref().unwrap_or_default());
        let joined = wanted.join(" ");
        let (Some(login), Some(file)) = (&self.login, &file) else {
            return Err(OAuthError::ScopeRequired {
                url: self.url.clone(),
                scopes: joined,
                flags: wanted
                    .iter()
                    .map(|scope| format!(" --scope {scope}"))
                    .collect(),
            });
        };
        {
            let mut tried = lock(&self.stepped_up);
            if tried.contains(&wanted) {
                return Err(OAuthError::ScopeRefused {
                    url: self.url.clone(),
                    scopes: joined,
                });
            }
            tried.push(wanted.clone());
        }
        let login = login.step_up(
            wanted,
            &file.client_id,
            file.client_secret.as_deref(),
            &file.redirect_uri,
        );
        super::login(&self.store, &login, Some(challenge.to_owned())).await?;
        match self.load().await?.as_ref().and_then(current_of) {
            Some(current) => Ok(self.adopt(current)),
            None => Err(OAuthError::SignInRequired {
                url: self.url.clone(),
            }),
        }
    }

    /// A token other than `used`: one another request (or process, or a new login) already
    /// got, else a refreshed one, else (with `--oauth`) a new login.
    async fn renew(
        &self,
        used: Option<&str>,
        challenge: Option<&str>,
    ) -> Result<String, OAuthError> {
        let _turn = self.renewing.lock().await;
        if let Some(current) = &*self.read()
            && Some(current.token.as_str()) != used
            && current.renew_at.is_none_or(|at| at > now_secs())
        {
            return Ok(current.token.clone());
        }
        let file = self.load().await?;
        if let Some(file) = &file
            && let Some(current) = current_of(file)
            && Some(current.token.as_str()) != used
            && current.renew_at.is_none_or(|at| at > now_secs())
        {
            return Ok(self.adopt(current));
        }
        let refreshed = match &file {
            Some(file) if refreshable(file) => {
                let refreshed = self.refresh(file, challenge).await;
                if let Some(tell) = &self.refreshed {
                    tell(refreshed.is_ok());
                }
                refreshed
            }
            Some(_) => Err(OAuthError::Expired {
                url: self.url.clone(),
                reason: "the authorization server gave no refresh token".to_owned(),
            }),
            None => Err(OAuthError::SignInRequired {
                url: self.url.clone(),
            }),
        };
        match (refreshed, &self.login) {
            (Ok(current), _) => Ok(self.adopt(current)),
            (Err(error), Some(login)) => {
                tracing::warn!(%error, "signing in again (--oauth)");
                super::login(&self.store, login, challenge.map(str::to_owned)).await?;
                match self.load().await?.as_ref().and_then(current_of) {
                    Some(current) => Ok(self.adopt(current)),
                    None => Err(OAuthError::SignInRequired {
                        url: self.url.clone(),
                    }),
                }
            }
            (Err(error), None) => Err(error),
        }
    }

    /// Refreshes with rmcp (discovery again, from the newest challenge), which saves the new
    /// tokens through the store under the store's lock.
    async fn refresh(
        &self,
        file: &SignInFile,
        challenge: Option<&str>,
    ) -> Result<Current, OAuthError> {
        let failed = |error: AuthError| match error {
            AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_) => {
                OAuthError::Expired {
                    url: self.url.clone(),
                    reason: "the authorization server refused the refresh token".to_owned(),
                }
            }
            other => OAuthError::Flow {
                url: self.url.clone(),
                step: "refreshing the access token",
                reason: other.to_string(),
                hint: "",
            },
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut manager = AuthorizationManager::new(self.url.as_str())
            .await
            .map_err(failed)?;
        let challenge = challenge.or(file.challenge.as_deref());
        let resolution = manager
            .resolve_metadata_from_challenge(challenge)
            .await
            .map_err(failed)?;
        manager.set_metadata(resolution.metadata);
        manager.set_credential_store(self.store.credentials(&self.url));
        let mut client = OAuthClientConfig::new(file.client_id.clone(), file.redirect_uri.clone());
        if let Some(secret) = &file.client_secret {
            client = client.with_client_secret(secret.clone());
        }
        manager.configure_client(client).map_err(failed)?;
        manager.refresh_token().await.map_err(failed)?;
        tracing::info!(url = %self.url, "refreshed the access token");
        self.load()
            .await?
            .as_ref()
            .and_then(current_of)
            .ok_or_else(|| OAuthError::SignInRequired {
                url: self.url.clone(),
            })
    }

    async fn load(&self) -> Result<Option<SignInFile>, OAuthError> {
        let store = self.store.clone();
        let url = self.url.clone();
        tokio::task::spawn_blocking(move || store.load(&url))
            .await
            .map_err(|error| OAuthError::Runtime(std::io::Error::other(error.to_string())))?
    }

    fn adopt(&self, current: Current) -> String {
        let token = current.token.clone();
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Some(current);
        token
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Option<Current>> {
        self.current.read().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The scopes a step-up signs in with: those granted and those `challenged` (space-separated),
/// each once, sorted — the union the authorization spec asks for, so that the sign-in for one
/// operation does not lose what the others need
/// (docs/mcp-proxy.md#signing-in-to-a-hosted-server-oauth).
fn union(granted: &[String], challenged: &str) -> Vec<String> {
    let mut scopes: Vec<String> = granted
        .iter()
        .map(String::as_str)
        .chain(challenged.split_whitespace())
        .map(str::to_owned)
        .collect();
    scopes.sort();
    scopes.dedup();
    scopes
}

fn refreshable(file: &SignInFile) -> bool {
    file.credentials
        .as_ref()
        .and_then(|credentials| credentials.token_response.as_ref())
        .is_some_and(|tokens| tokens.refresh_token().is_some())
}

/// The access token of a stored sign-in and when to renew it.
fn current_of(file: &SignInFile) -> Option<Current> {
    let credentials = file.credentials.as_ref()?;
    let tokens = credentials.token_response.as_ref()?;
    let renew_at = match (tokens.expires_in(), credentials.token_received_at) {
        (Some(lifetime), Some(received)) => {
            let lifetime = lifetime.as_secs();
            Some(received.saturating_add(lifetime - EARLY_SECS.min(lifetime / 2)))
        }
        _ => None,
    };
    Some(Current {
        token: tokens.access_token().secret().clone(),
        renew_at,
    })
}

#[cfg(test)]
mod tests;
