//! The MCP clients `overspill install` knows: where each keeps its MCP servers, in which
//! format, and what it calls them (docs/clients.md).

use std::path::{Path, PathBuf};

use clap::ValueEnum;

/// An MCP client whose configuration `overspill install` edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Client {
    /// Claude Code: `~/.claude.json` (user), `.mcp.json` (project).
    ClaudeCode,
    /// Claude Desktop: `claude_desktop_config.json` in the platform's config directory.
    ClaudeDesktop,
    /// Cursor: `~/.cursor/mcp.json` (user), `.cursor/mcp.json` (project).
    Cursor,
    /// VS Code: `mcp.json` in its user directory (user), `.vscode/mcp.json` (project).
    Vscode,
    /// Codex CLI: `$CODEX_HOME/config.toml`, by default `~/.codex/config.toml`.
    Codex,
    /// Gemini CLI: `~/.gemini/settings.json` (user), `.gemini/settings.json` (project).
    GeminiCli,
}

/// The seconds install gives Codex to start overspill (`startup_timeout_sec`; Codex's own
/// default is 10).
pub const CODEX_STARTUP_SECS: u64 = 60;

/// Whose configuration: the user's, or the project's in the working directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    /// The user's configuration, for every project.
    User,
    /// The project's, in the working directory.
    Project,
}

/// How a client's configuration file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON (with comments where the client allows them): the servers are the object under
    /// `key`, each an `mcpServers`-style entry.
    Json {
        /// `mcpServers`, or VS Code's `servers`.
        key: &'static str,
        /// Whether an entry names its transport (`"type": "stdio"`), as VS Code's do.
        typed: bool,
    },
    /// Codex's TOML: a `[mcp_servers.<name>]` table per server.
    CodexToml,
}

impl Client {
    /// The name the command line uses (`claude-code`).
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Codex => "codex",
            Client::GeminiCli => "gemini-cli",
        }
    }

    pub fn format(self) -> Format {
        match self {
            Client::Vscode => Format::Json {
                key: "servers",
                typed: true,
            },
            Client::Codex => Format::CodexToml,
            _ => Format::Json {
                key: "mcpServers",
                typed: false,
            },
        }
    }

    /// Seconds the gateway may take to answer the client's first request: below the time the
    /// client gives a server to connect (Claude Code: 30 s; Codex: the `startup_timeout_sec`
    /// install writes; the others: at least 30 s), so that one slow server never takes the
    /// others down; a server that joins later is announced with `list_changed`
    /// (docs/clients.md#what-install-does).
    pub fn answer_within(self) -> u64 {
        match self {
            Client::Codex => CODEX_STARTUP_SECS - 10,
            _ => 25,
        }
    }

    /// The `overspill mcp` flags that count tokens as the client's model does and size the
    /// budget by its context window; none where the client runs models of several makers
    /// (Cursor, VS Code), which leaves overspill's default (docs/tokens.md).
    pub fn model_flags(self) -> &'static [&'static str] {
        match self {
            Client::ClaudeCode | Client::ClaudeDesktop => {
                &["--provider", "anthropic", "--context-window", "200000"]
            }
            Client::GeminiCli => &["--provider", "gemini", "--context-window", "1048576"],
            Client::Codex => &[
                "--provider",
                "openai",
                "--model",
                "gpt-5",
                "--context-window",
                "400000",
            ],
            Client::Cursor | Client::Vscode => &[],
        }
    }

    /// The files whose settings name a server or its tools (docs/clients.md#permission-rules-and-hooks):
    /// for Claude Code, its user settings, the client file itself (per-project lists of
    /// disabled servers), and the settings of each project it knows (`projects` in
    /// `~/.claude.json`; with `--scope project`, the one beside `.mcp.json`). Empty for other
    /// clients. `text` is the client file.
    pub fn rule_files(self, scope: Scope, config: &Path, text: &[u8]) -> Vec<PathBuf> {
        if self != Client::ClaudeCode {
            return Vec::new();
        }
        let mut files: Vec<PathBuf> = overspill_mcp::home_dir()
            .map(|home| home.join(".claude").join("settings.json"))
            .into_iter()
            .collect();
        files.push(config.to_owned());
        let mut projects: Vec<PathBuf> = serde_json::from_slice::<serde_json::Value>(text)
            .ok()
            .and_then(|value| value.get("projects")?.as_object().cloned())
            .into_iter()
            .flatten()
            .map(|(dir, _)| PathBuf::from(dir))
            .filter(|dir| dir.is_absolute())
            .collect();
        if scope == Scope::Project {
            projects.push(config.parent().unwrap_or(Path::new(".")).to_owned());
        }
        for project in projects {
            let settings = project.join(".claude");
            files.push(settings.join("settings.json"));
            files.push(settings.join("settings.local.json"));
        }
        files.dedup();
        files
    }

    /// Whether the client names a Server-Sent Events endpoint `url` (Gemini CLI: its
    /// Streamable HTTP one is `httpUrl`), so that a `url` entry is one overspill cannot front.
    pub fn url_is_sse(self) -> bool {
        self == Client::GeminiCli
    }

    /// The client's configuration file for `scope`, `project` being the working directory.
    /// `Err` says why there is none (a scope the client does not have, no home directory).
    pub fn config_path(self, scope: Scope, project: &Path) -> Result<PathBuf, String> {
        let home = || {
            overspill_mcp::home_dir().ok_or_else(|| {
                "cannot find your home directory (HOME is not set): give --config-file".to_owned()
            })
        };
        let config = || {
            overspill_mcp::platform_config_dir().ok_or_else(|| {
                "cannot find your configuration directory: give --config-file".to_owned()
            })
        };
        let no_project = || {
            Err(format!(
                "{} keeps its MCP servers in your user configuration only: leave out --scope \
                 project",
                self.name()
            ))
        };
        Ok(match (self, scope) {
            (Client::ClaudeCode, Scope::User) => home()?.join(".claude.json"),
            (Client::ClaudeCode, Scope::Project) => project.join(".mcp.json"),
            (Client::ClaudeDesktop, Scope::User) => {
                config()?.join("Claude").join("claude_desktop_config.json")
            }
            (Client::ClaudeDesktop | Client::Codex, Scope::Project) => return no_project(),
            (Client::Cursor, Scope::User) => home()?.join(".cursor").join("mcp.json"),
            (Client::Cursor, Scope::Project) => project.join(".cursor").join("mcp.json"),
            (Client::Vscode, Scope::User) => config()?.join("Code").join("User").join("mcp.json"),
            (Client::Vscode, Scope::Project) => project.join(".vscode").join("mcp.json"),
            (Client::Codex, Scope::User) => match std::env::var_os("CODEX_HOME") {
                Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("config.toml"),
                _ => home()?.join(".codex").join("config.toml"),
            },
            (Client::GeminiCli, Scope::User) => home()?.join(".gemini").join("settings.json"),
            (Client::GeminiCli, Scope::Project) => project.join(".gemini").join("settings.json"),
        })
    }
}
