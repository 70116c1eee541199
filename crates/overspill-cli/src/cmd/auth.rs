//! `overspill auth login|status|logout`: sign-ins to OAuth-protected remote MCP servers, kept
//! for `overspill mcp --url`; `overspill auth token NAME`: a principal's bearer token for
//! `overspill mcp --listen --auth-tokens FILE`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use clap::{Args, Subcommand};
use overspill_mcp::Tokens;
use overspill_mcp::oauth::{
    self, ClientIdentity, ClientSecret, Login, Notice, OAuthError, SignIn, TokenStore,
};

pub const LOGIN_EXAMPLES: &str = "Prints the authorization URL on stderr and opens a browser \
(unless --no-browser), waits for the redirect on 127.0.0.1, and keeps the tokens in \
$XDG_CONFIG_HOME/overspill/oauth/ (0600 files in a 0700 dir) for `overspill mcp --url`.\n\n\
Examples:\n  \
overspill auth login --url https://mcp.example.com/mcp\n  \
overspill auth login --url https://mcp.example.com/mcp --scope read --scope write\n  \
overspill auth login --url https://mcp.example.com/mcp --client-id my-app --client-secret-env MY_APP_SECRET\n  \
overspill auth login --url https://mcp.example.com/mcp --no-browser --callback-port 8976";

pub const TOKEN_EXAMPLES: &str = "Prints a new random token (256 bits, hex) on stdout for the \
client to send as `Authorization: Bearer <token>`, and its line for the --auth-tokens file on \
stderr, or appends that line to the file with --append (created 0600). The file keeps only the \
token's SHA-256: the token itself is shown once, here. A running proxy reads the file again on \
SIGHUP.\n\n\
Examples:\n  \
overspill auth token alice --append /etc/overspill/tokens   # then: kill -HUP <proxy pid>\n  \
TOKEN=$(overspill auth token ci-bot --append tokens)\n  \
overspill auth token bob   # the token on stdout, its line on stderr\n  \
overspill mcp --listen 0.0.0.0:8765 --auth-tokens /etc/overspill/tokens -- my-server";

/// Sign-ins to OAuth-protected remote MCP servers, and tokens for `overspill mcp --listen`.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Sign in to a remote MCP server and keep its tokens for `overspill mcp --url`.
    #[command(after_help = LOGIN_EXAMPLES)]
    Login(LoginArgs),
    /// Show the stored sign-ins (never a token).
    Status(StatusArgs),
    /// Forget the sign-in to a server (or all of them).
    Logout(LogoutArgs),
    /// Make a new bearer token for a principal of `overspill mcp --listen --auth-tokens FILE`.
    #[command(after_help = TOKEN_EXAMPLES)]
    Token(TokenArgs),
}

#[derive(Debug, Args)]
pub struct LoginArgs {
    /// The server's Streamable HTTP endpoint, as given to `overspill mcp --url`.
    #[arg(long, value_name = "URL")]
    url: String,
    /// A scope to ask for (repeatable; default: the scopes the server names).
    #[arg(long = "scope", value_name = "SCOPE")]
    scopes: Vec<String>,
    /// A client id registered beforehand with the authorization server (default: register one).
    #[arg(long, value_name = "ID", conflicts_with = "client_metadata_url")]
    client_id: Option<String>,
    /// The environment variable holding the --client-id's secret (kept out of the arguments).
    #[arg(long, value_name = "VAR", requires = "client_id")]
    client_secret_env: Option<String>,
    /// An https URL serving overspill's client metadata document, used as the client id where
    /// the authorization server supports that (else a client is registered).
    #[arg(long, value_name = "URL")]
    client_metadata_url: Option<String>,
    /// Only print the authorization URL; do not open a browser.
    #[arg(long)]
    no_browser: bool,
    /// The loopback port the browser is sent back to (default: a free one).
    #[arg(long, value_name = "PORT")]
    callback_port: Option<u16>,
    /// Seconds to wait for the sign-in to finish in the browser.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    wait: u64,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Only this server.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
}

#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct LogoutArgs {
    /// The server to forget.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// Forget every sign-in.
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Args)]
pub struct TokenArgs {
    /// The principal's name: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or a digit
    /// (not `local` or `shared`, which the proxy gives requests without --auth-tokens).
    #[arg(value_name = "NAME")]
    name: String,
    /// Append the token's line to this tokens file (created 0600 if missing) instead of
    /// printing it on stderr; refused if the file would no longer be valid (the name taken).
    #[arg(long, value_name = "FILE")]
    append: Option<PathBuf>,
}

impl AuthCommand {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let store = || TokenStore::user();
        match self {
            AuthCommand::Login(args) => login(&store()?, args),
            AuthCommand::Status(args) => status(&store()?, args),
            AuthCommand::Logout(args) => logout(&store()?, args),
            AuthCommand::Token(args) => token(&args),
        }
    }
}

/// The login the flags describe; `Err` is the usage error to print.
pub fn login_of(
    url: &str,
    scopes: Vec<String>,
    client: ClientIdentity,
    browser: bool,
    callback_port: Option<u16>,
) -> Result<Login, String> {
    let notice = Notice::new(|line| tell!("{line}"));
    let mut login = Login::new(url, notice)
        .map_err(|error| error.to_string())?
        .with_scopes(scopes)
        .with_client(client)
        .with_callback_port(callback_port.unwrap_or(0));
    if !browser {
        login = login.without_browser();
    }
    Ok(login)
}

fn login(store: &TokenStore, args: LoginArgs) -> anyhow::Result<ExitCode> {
    let client = match (&args.client_id, &args.client_metadata_url) {
        (Some(client_id), _) => {
            let secret = match &args.client_secret_env {
                Some(var) => match std::env::var(var) {
                    Ok(secret) if !secret.is_empty() => Some(ClientSecret::new(secret)),
                    _ => {
                        return Ok(super::usage_error(format!(
                            "--client-secret-env {var}: the environment variable {var} is not set (or empty)"
                        )));
                    }
                },
                None => None,
            };
            ClientIdentity::Preregistered {
                client_id: client_id.clone(),
                secret,
            }
        }
        (None, Some(document)) => ClientIdentity::MetadataDocument(document.clone()),
        (None, None) => ClientIdentity::Register,
    };
    let login = match login_of(
        &args.url,
        args.scopes,
        client,
        !args.no_browser,
        args.callback_port,
    ) {
        Ok(login) => login.with_wait(Duration::from_secs(args.wait)),
        Err(message) => return Ok(super::usage_error(message)),
    };
    match oauth::login_blocking(store, &login) {
        Ok(sign_in) => {
            tell!(
                "Signed in to {}{}; `overspill mcp --url {}` uses it.",
                sign_in.server_url,
                describe(&sign_in),
                login.url()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            tell!("overspill auth login: {error}");
            Ok(ExitCode::FAILURE)
        }
    }
}

fn status(store: &TokenStore, args: StatusArgs) -> anyhow::Result<ExitCode> {
    let sign_ins: Vec<Result<SignIn, OAuthError>> = match &args.url {
        Some(url) => match oauth::sign_in(store, url) {
            Ok(Some(sign_in)) => vec![Ok(sign_in)],
            Ok(None) => {
                println!("not signed in to {url}: run `overspill auth login --url {url}`");
                return Ok(ExitCode::FAILURE);
            }
            Err(error) => vec![Err(error)],
        },
        None => oauth::sign_ins(store).context("cannot list the sign-ins")?,
    };
    if sign_ins.is_empty() {
        println!(
            "no sign-ins in {} (sign in with `overspill auth login --url URL`)",
            store.dir().display()
        );
    }
    for sign_in in &sign_ins {
        match sign_in {
            Ok(sign_in) => println!("{}{}", sign_in.server_url, describe(sign_in)),
            Err(error) => println!("unreadable: {error}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn logout(store: &TokenStore, args: LogoutArgs) -> anyhow::Result<ExitCode> {
    let urls: Vec<String> = match &args.url {
        Some(url) => vec![oauth::normalize(url)?],
        None => oauth::sign_ins(store)?
            .into_iter()
            .filter_map(Result::ok)
            .map(|sign_in| sign_in.server_url)
            .collect(),
    };
    let mut removed = 0;
    for url in &urls {
        if store.remove(url)? {
            println!("signed out of {url}");
            removed += 1;
        }
    }
    if args.all {
        // Files this overspill cannot read are removed too: --all means all.
        removed += remove_unreadable(store)?;
    }
    if removed == 0 {
        println!("no sign-in to remove");
    }
    Ok(ExitCode::SUCCESS)
}

fn remove_unreadable(store: &TokenStore) -> anyhow::Result<usize> {
    let mut removed = 0;
    let Ok(entries) = std::fs::read_dir(store.dir()) else {
        return Ok(0);
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path
            .extension()
            .is_some_and(|ext| ext == "json" || ext == "lock")
        {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
            if path.extension().is_some_and(|ext| ext == "json") {
                println!("removed {}", path.display());
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// `overspill auth token NAME [--append FILE]`: the token on stdout, its line on stderr or
/// appended to the file.
fn token(args: &TokenArgs) -> anyhow::Result<ExitCode> {
    let issued = match Tokens::issue(&args.name) {
        Ok(issued) => issued,
        Err(error @ overspill_mcp::TokensError::Name(_)) => {
            return Ok(super::usage_error(format!(
                "auth token {}: {error}",
                args.name
            )));
        }
        Err(error) => return Err(error.into()),
    };
    match &args.append {
        Some(file) => {
            if let Err(message) = append_line(file, &issued.line) {
                return Ok(super::usage_error(message));
            }
            tell!(
                "appended the line of `{}` to {}; a proxy reading it takes it on SIGHUP \
                 (kill -HUP <pid>). The token, on stdout, is shown only this once.",
                args.name,
                file.display()
            );
        }
        None => tell!(
            "the line of `{}` for the --auth-tokens file (the token, on stdout, is shown only \
             this once):\n{}",
            args.name,
            issued.line
        ),
    }
    println!("{}", issued.token);
    Ok(ExitCode::SUCCESS)
}

/// Appends `line` to the tokens file `file` (created 0600), if the file stays valid; `Err` is
/// the usage error to print.
fn append_line(file: &Path, line: &str) -> Result<(), String> {
    let now = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(format!("cannot read {}: {error}", file.display())),
    };
    let separator = if now.is_empty() || now.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let added = format!("{separator}{line}\n");
    Tokens::check(file, &format!("{now}{added}"))
        .map_err(|error| format!("--append: {error}; the file is left as it was"))?;
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(file)
        .and_then(|mut opened| opened.write_all(added.as_bytes()))
        .map_err(|error| format!("cannot append to {}: {error}", file.display()))
}

/// `: client X, scopes a b, expires in 3540 s, refreshable`.
fn describe(sign_in: &SignIn) -> String {
    let mut parts = vec![format!("client {}", sign_in.client_id)];
    if !sign_in.scopes.is_empty() {
        parts.push(format!("scopes {}", sign_in.scopes.join(" ")));
    }
    if !sign_in.has_tokens {
        parts.push("no tokens (sign in again)".to_owned());
    } else if let Some(at) = sign_in.expires_at {
        match at.duration_since(SystemTime::now()) {
            Ok(left) => parts.push(format!("access token expires in {} s", left.as_secs())),
            Err(_) => parts.push("access token expired".to_owned()),
        }
    }
    if sign_in.has_tokens {
        parts.push(
            if sign_in.refreshable {
                "renewed automatically (refresh token kept)"
            } else {
                "no refresh token (sign in again when it expires)"
            }
            .to_owned(),
        );
    }
    format!(": {}", parts.join(", "))
}
