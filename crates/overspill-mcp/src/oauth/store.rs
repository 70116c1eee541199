//! Where sign-ins live: one JSON file per server and resource under
//! `$XDG_CONFIG_HOME/overspill/oauth/` (else `~/.config/overspill/oauth/`), the dir 0700 and
//! each file 0600, every write a new file renamed over the old one.
//!
//! A file holds the client registration (id, and secret when the authorization server issued
//! one), the challenge the sign-in started from, and rmcp's [`StoredCredentials`] (the token
//! response). Nothing here prints, logs or formats a token: `Debug` shows names and times only.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use serde::{Deserialize, Serialize};

use super::OAuthError;

/// The largest token file read: a token response is a few kB; anything bigger is not ours.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// The format of the files; a newer one is refused with a message, never misread.
const FORMAT: u32 = 1;

/// The directory of sign-ins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenStore {
    dir: PathBuf,
}

/// One server's sign-in as stored.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct SignInFile {
    pub(crate) format: u32,
    /// The MCP endpoint (the `--url`), which is also the resource (RFC 8707) tokens are for.
    pub(crate) server_url: String,
    pub(crate) client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_secret: Option<String>,
    /// The loopback redirect the client was registered with.
    pub(crate) redirect_uri: String,
    /// The `WWW-Authenticate` challenge discovery started from, for discovery at refresh time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) challenge: Option<String>,
    #[serde(default)]
    pub(crate) credentials: Option<StoredCredentials>,
}

impl std::fmt::Debug for SignInFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInFile")
            .field("server_url", &self.server_url)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "hidden"),
            )
            .field("credentials", &self.credentials.as_ref().map(|_| "hidden"))
            .finish_non_exhaustive()
    }
}

impl TokenStore {
    /// The user's store: `oauth` in the user's configuration directory for overspill
    /// ([`crate::config_dir`]: `$XDG_CONFIG_HOME/overspill/oauth`, else
    /// `~/.config/overspill/oauth`, on Linux).
    ///
    /// # Errors
    ///
    /// [`OAuthError::NoConfigDir`] when the user has no home directory.
    pub fn user() -> Result<TokenStore, OAuthError> {
        let base = crate::user_dirs::config_dir().ok_or(OAuthError::NoConfigDir)?;
        Ok(TokenStore::at(base.join("oauth")))
    }

    /// A store in `dir` (created 0700 at the first sign-in).
    pub fn at(dir: impl Into<PathBuf>) -> TokenStore {
        TokenStore { dir: dir.into() }
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the sign-in to `server_url`: the host and port to read, a hash of the whole
    /// URL to keep two endpoints of one host apart.
    pub fn file_for(&self, server_url: &str) -> PathBuf {
        let readable: String = reqwest::Url::parse(server_url)
            .ok()
            .and_then(|url| {
                let host = url.host_str()?.to_owned();
                Some(match url.port_or_known_default() {
                    Some(port) => format!("{host}_{port}"),
                    None => host,
                })
            })
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        self.dir.join(format!(
            "{readable}-{:016x}.json",
            fnv1a(server_url.as_bytes())
        ))
    }

    /// The sign-in to `server_url`, if there is one.
    pub(crate) fn load(&self, server_url: &str) -> Result<Option<SignInFile>, OAuthError> {
        read_file(&self.file_for(server_url))
    }

    /// Writes the sign-in (0600, atomically), creating the dir (0700) when needed.
    pub(crate) fn save(&self, file: &SignInFile) -> Result<(), OAuthError> {
        let path = self.file_for(&file.server_url);
        let failed = |error| OAuthError::Store {
            path: path.clone(),
            error,
        };
        create_private_dir(&self.dir).map_err(|error| OAuthError::Store {
            path: self.dir.clone(),
            error,
        })?;
        let text = serde_json::to_vec_pretty(file)
            .map_err(std::io::Error::from)
            .map_err(failed)?;
        // tempfile creates the file 0600 on Unix, in the same dir so the rename is atomic.
        let mut temp = tempfile::Builder::new()
            .prefix(".signin-")
            .suffix(".tmp")
            .tempfile_in(&self.dir)
            .map_err(failed)?;
        temp.write_all(&text).map_err(failed)?;
        temp.as_file().sync_all().map_err(failed)?;
        temp.persist(&path)
            .map_err(|persist| failed(persist.error))?;
        Ok(())
    }

    /// Removes the sign-in to `server_url`; `false` when there was none.
    ///
    /// # Errors
    ///
    /// [`OAuthError::Store`] when the file exists but cannot be removed.
    pub fn remove(&self, server_url: &str) -> Result<bool, OAuthError> {
        let path = self.file_for(server_url);
        match fs::remove_file(&path) {
            Ok(()) => {
                let _ = fs::remove_file(path.with_extension("lock"));
                Ok(true)
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(OAuthError::Store { path, error }),
        }
    }

    /// Every stored sign-in, in file-name order; a file that cannot be read is reported as an
    /// error in its place, so one bad file does not hide the others.
    pub(crate) fn all(&self) -> Result<Vec<Result<SignInFile, OAuthError>>, OAuthError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => {
                return Err(OAuthError::Store {
                    path: self.dir.clone(),
                    error,
                });
            }
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                path.extension().is_some_and(|ext| ext == "json")
                    && !path
                        .file_name()
                        .is_some_and(|name| name.to_string_lossy().starts_with('.'))
            })
            .collect();
        paths.sort();
        Ok(paths
            .iter()
            .filter_map(|path| read_file(path).transpose())
            .collect())
    }

    /// rmcp's view of one server's credentials in this store.
    pub(crate) fn credentials(&self, server_url: &str) -> FileCredentials {
        FileCredentials {
            store: self.clone(),
            server_url: server_url.to_owned(),
        }
    }
}

/// The dir with mode 0700 (also when it already existed with a wider one).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    {
        fs::create_dir_all(dir)
    }
}

fn read_file(path: &Path) -> Result<Option<SignInFile>, OAuthError> {
    use std::io::Read;
    let file = match File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(OAuthError::Store {
                path: path.to_owned(),
                error,
            });
        }
    };
    let mut text = Vec::new();
    file.take(MAX_FILE_BYTES)
        .read_to_end(&mut text)
        .map_err(|error| OAuthError::Store {
            path: path.to_owned(),
            error,
        })?;
    let corrupt = |reason: String| OAuthError::Corrupt {
        path: path.to_owned(),
        reason,
    };
    let file: SignInFile =
        serde_json::from_slice(&text).map_err(|error| corrupt(error.to_string()))?;
    if file.format != FORMAT {
        return Err(corrupt(format!(
            "it is in format {}, this overspill reads format {FORMAT}",
            file.format
        )));
    }
    Ok(Some(file))
}

/// 64-bit FNV-1a: a stable file-name hash (not a security boundary: the dir is private).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One server's sign-in as rmcp's [`CredentialStore`]: loads and saves the credentials part
/// of the file and keeps the rest (the login writes whole files itself).
#[derive(Clone)]
pub(crate) struct FileCredentials {
    store: TokenStore,
    server_url: String,
}

impl FileCredentials {
    fn failed(error: &OAuthError) -> AuthError {
        AuthError::CredentialStoreError(error.to_string())
    }
}

#[async_trait::async_trait]
impl CredentialStore for FileCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let store = self.store.clone();
        let url = self.server_url.clone();
        let file = tokio::task::spawn_blocking(move || store.load(&url))
            .await
            .map_err(|error| AuthError::CredentialStoreError(error.to_string()))?
            .map_err(|error| Self::failed(&error))?;
        Ok(file.and_then(|file| file.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let store = self.store.clone();
        let url = self.server_url.clone();
        tokio::task::spawn_blocking(move || match store.load(&url)? {
            Some(mut file) => {
                file.credentials = Some(credentials);
                store.save(&file)
            }
            // Signed out meanwhile: the refreshed tokens are not kept.
            None => Ok(()),
        })
        .await
        .map_err(|error| AuthError::CredentialStoreError(error.to_string()))?
        .map_err(|error| Self::failed(&error))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let store = self.store.clone();
        let url = self.server_url.clone();
        tokio::task::spawn_blocking(move || match store.load(&url)? {
            Some(mut file) => {
                file.credentials = None;
                store.save(&file)
            }
            None => Ok(()),
        })
        .await
        .map_err(|error| AuthError::CredentialStoreError(error.to_string()))?
        .map_err(|error| Self::failed(&error))
    }

    /// A lock file beside the sign-in, held across load, refresh and save: two proxies for
    /// one server must not both spend a rotating refresh token.
    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let path = self.store.file_for(&self.server_url).with_extension("lock");
        let dir = self.store.dir.clone();
        let file = tokio::task::spawn_blocking(move || -> std::io::Result<File> {
            create_private_dir(&dir)?;
            let mut options = fs::OpenOptions::new();
            options.create(true).truncate(false).write(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            let file = options.open(&path)?;
            file.lock()?;
            Ok(file)
        })
        .await
        .map_err(|error| AuthError::CredentialStoreError(error.to_string()))?
        .map_err(|error| AuthError::CredentialStoreError(error.to_string()))?;
        Ok(Some(CredentialRefreshGuard::new(file)))
    }
}

#[cfg(test)]
mod tests;
