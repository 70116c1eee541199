//! The MCP clients `overspill install` knows, in one table: each client's row
//! ([`Client::profile`]) says where it keeps its MCP servers, in which format, what of them stays
//! with it, and how overspill's entry is written for it (docs/clients.md#one-row-per-client).
//! A seventh client is a variant of [`Client`] and its row here; what a row names (a format,
//! the settings it carries) is written once, in the module of its concern.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde_json::Value;

use super::carried::{self, CODEX_STARTUP_SECS, Carried};
use crate::cmd::hook;

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

/// What install knows of one client: its row of the table.
#[derive(Debug)]
pub struct Profile {
    /// The name the command line uses (`claude-code`).
    pub name: &'static str,
    /// Where the user's file of MCP servers is.
    pub user_file: Place,
    /// Where a project's is, below the project's directory; `None` when the client keeps its
    /// servers in the user's configuration only.
    pub project_file: Option<&'static [&'static str]>,
    /// How the file is written, and so how its servers are read and what of them stays for
    /// every client of that format (`stays.rs` for JSON, `codex.rs` for Codex's TOML).
    pub format: Format,
    /// Whether the client reads an entry's `url` as a Server-Sent Events endpoint (Gemini CLI:
    /// its Streamable HTTP one is `httpUrl`), so that such a server stays with it.
    pub url_is_sse: bool,
    /// The moved servers' settings that the client applies itself, carried to overspill's
    /// entry (docs/clients.md#settings-of-moved-servers); `None`: nothing is.
    pub carried: Option<CarriedBy>,
    /// Seconds the gateway may take to answer the client's first request: below the time the
    /// client gives a server to connect (Claude Code: 30 s; Codex: the `startup_timeout_sec`
    /// install writes; the others: at least 30 s), so that one slow server never takes the
    /// others down; a server that joins later is announced with `list_changed`
    /// (docs/clients.md#what-install-does).
    pub answer_within: u64,
    /// The `overspill mcp` flags that count tokens as the client's model does and size the
    /// budget by its context window; none where the client runs models of several makers
    /// (Cursor, VS Code), which leaves overspill's default (docs/tokens.md).
    pub model_flags: &'static [&'static str],
    /// The files whose permission rules name a server or its tools, which install keeps in
    /// step with the servers it moves (docs/clients.md#permission-rules-and-hooks); `None`:
    /// the client has no such rules.
    pub rule_files: Option<RuleFiles>,
    /// The tool hook install adds beside the entry (docs/hooks.md#what-install-writes); `None`
    /// for a client whose hooks overspill does not answer.
    pub hooks: Option<HookProfile>,
    /// What the user does before the client runs a hook install added, said after adding it.
    pub hook_note: Option<&'static str>,
}

impl Profile {
    /// A client whose servers are in `user_file` (and `project_file` below a project), written
    /// in `format`, and who is otherwise as most are: an entry's `url` is Streamable HTTP, no
    /// setting of a moved server is carried, the gateway answers within 25 s, tokens are
    /// counted with overspill's default, and there are no permission rules or hooks to keep.
    const fn new(
        name: &'static str,
        user_file: Place,
        project_file: Option<&'static [&'static str]>,
        format: Format,
    ) -> Profile {
        Profile {
            name,
            user_file,
            project_file,
            format,
            url_is_sse: false,
            carried: None,
            answer_within: 25,
            model_flags: &[],
            rule_files: None,
            hooks: None,
            hook_note: None,
        }
    }
}

/// How install writes a client's tool hook: whose hook input `overspill hook` reads (and so
/// the events and matchers it answers), in which file, and how the command is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookProfile {
    /// The client of `overspill hook <client>`, which owns its events and matchers.
    pub client: hook::Client,
    /// The settings file the hook goes in.
    pub file: HookFile,
    /// How the handler names the command.
    pub command: HookCommand,
}

/// Where a client's hook goes, from its file of MCP servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookFile {
    /// The file that holds the entry (Gemini CLI reads its hooks from its settings).
    Config,
    /// Below the directory of the file that holds the entry, in either scope (Codex's
    /// `hooks.json` beside its `config.toml`).
    BesideConfig(&'static [&'static str]),
    /// For the user below the home directory; for a project below the directory of the file
    /// that holds the entry, in a file that is not committed, as the command names paths of
    /// this machine (Claude Code's settings).
    HomeElseBeside {
        user: &'static [&'static str],
        project: &'static [&'static str],
    },
}

/// How a hook's handler names its command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookCommand {
    /// `"command": <program>, "args": [...]` (Claude Code).
    ProgramAndArgs,
    /// The command as one shell line in `"command"` (Codex and Gemini CLI read no `args`).
    ShellLine,
}

/// How a client's settings are carried from the servers behind overspill (all of them, and
/// the names of those moved now) to overspill's entry.
pub type CarriedBy = fn(&[(&String, &Value)], &[String]) -> Carried;

/// The rule files of a client's file `config` (its text `text`) in a scope.
pub type RuleFiles = fn(Scope, &Path, &[u8]) -> Vec<PathBuf>;

/// Where a client's user file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Below the home directory.
    Home(&'static [&'static str]),
    /// Below the platform's configuration directory (`~/.config`, `Application Support`,
    /// `%APPDATA%`).
    PlatformConfig(&'static [&'static str]),
    /// `file` in the directory the variable `var` names, when it is set and not empty; else
    /// below the home directory as `home`.
    VarElseHome {
        var: &'static str,
        file: &'static str,
        home: &'static [&'static str],
    },
}

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

/// The `mcpServers` object most clients keep their servers in.
const MCP_SERVERS: Format = Format::Json {
    key: "mcpServers",
    typed: false,
};

impl Client {
    /// The client's row of the table: where its files are and their format, and what sets it
    /// apart from the others ([`Profile::new`] says what it is otherwise).
    pub fn profile(self) -> &'static Profile {
        match self {
            Client::ClaudeCode => {
                const {
                    &Profile {
                        model_flags: &["--provider", "anthropic", "--context-window", "200000"],
                        rule_files: Some(claude_code_rule_files),
                        hooks: Some(HookProfile {
                            client: hook::Client::ClaudeCode,
                            file: HookFile::HomeElseBeside {
                                user: &[".claude", "settings.json"],
                                project: &[".claude", "settings.local.json"],
                            },
                            command: HookCommand::ProgramAndArgs,
                        }),
                        ..Profile::new(
                            "claude-code",
                            Place::Home(&[".claude.json"]),
                            Some(&[".mcp.json"]),
                            MCP_SERVERS,
                        )
                    }
                }
            }
            Client::ClaudeDesktop => {
                const {
                    &Profile {
                        model_flags: &["--provider", "anthropic", "--context-window", "200000"],
                        ..Profile::new(
                            "claude-desktop",
                            Place::PlatformConfig(&["Claude", "claude_desktop_config.json"]),
                            None,
                            MCP_SERVERS,
                        )
                    }
                }
            }
            Client::Cursor => {
                const {
                    &Profile::new(
                        "cursor",
                        Place::Home(&[".cursor", "mcp.json"]),
                        Some(&[".cursor", "mcp.json"]),
                        MCP_SERVERS,
                    )
                }
            }
            Client::Vscode => {
                const {
                    &Profile::new(
                        "vscode",
                        Place::PlatformConfig(&["Code", "User", "mcp.json"]),
                        Some(&[".vscode", "mcp.json"]),
                        Format::Json {
                            key: "servers",
                            typed: true,
                        },
                    )
                }
            }
            Client::Codex => {
                const {
                    &Profile {
                        carried: Some(carried::codex),
                        answer_within: CODEX_STARTUP_SECS - 10,
                        model_flags: &[
                            "--provider",
                            "openai",
                            "--model",
                            "gpt-5",
                            "--context-window",
                            "400000",
                        ],
                        hooks: Some(HookProfile {
                            client: hook::Client::Codex,
                            // Beside config.toml (user or project), as Codex looks for it.
                            file: HookFile::BesideConfig(&["hooks.json"]),
                            command: HookCommand::ShellLine,
                        }),
                        // Codex runs a new hook only once the user trusted it (docs/hooks.md#codex).
                        hook_note: Some(
                            "Codex runs it once you trust it: open /hooks in Codex and trust \
                         overspill's hooks",
                        ),
                        ..Profile::new(
                            "codex",
                            Place::VarElseHome {
                                var: "CODEX_HOME",
                                file: "config.toml",
                                home: &[".codex", "config.toml"],
                            },
                            None,
                            Format::CodexToml,
                        )
                    }
                }
            }
            Client::GeminiCli => {
                const {
                    &Profile {
                        url_is_sse: true,
                        carried: Some(carried::gemini_cli),
                        model_flags: &["--provider", "gemini", "--context-window", "1048576"],
                        hooks: Some(HookProfile {
                            client: hook::Client::GeminiCli,
                            file: HookFile::Config,
                            command: HookCommand::ShellLine,
                        }),
                        ..Profile::new(
                            "gemini-cli",
                            Place::Home(&[".gemini", "settings.json"]),
                            Some(&[".gemini", "settings.json"]),
                            MCP_SERVERS,
                        )
                    }
                }
            }
        }
    }

    /// The name the command line uses (`claude-code`).
    pub fn name(self) -> &'static str {
        self.profile().name
    }

    /// The client's configuration file for `scope`, `project` being the working directory.
    /// `Err` says why there is none (a scope the client does not have, no home directory).
    pub fn config_path(self, scope: Scope, project: &Path) -> Result<PathBuf, String> {
        let profile = self.profile();
        let home = || {
            overspill_mcp::home_dir().ok_or_else(|| {
                "cannot find your home directory (HOME is not set): give --config-file".to_owned()
            })
        };
        let below =
            |dir: PathBuf, parts: &[&str]| parts.iter().fold(dir, |dir, part| dir.join(part));
        match scope {
            Scope::Project => match profile.project_file {
                Some(parts) => Ok(below(project.to_owned(), parts)),
                None => Err(format!(
                    "{} keeps its MCP servers in your user configuration only: leave out --scope \
                     project",
                    profile.name
                )),
            },
            Scope::User => Ok(match profile.user_file {
                Place::Home(parts) => below(home()?, parts),
                Place::PlatformConfig(parts) => {
                    let config = overspill_mcp::platform_config_dir().ok_or_else(|| {
                        "cannot find your configuration directory: give --config-file".to_owned()
                    })?;
                    below(config, parts)
                }
                Place::VarElseHome {
                    var,
                    file,
                    home: parts,
                } => match std::env::var_os(var) {
                    Some(dir) if !dir.is_empty() => PathBuf::from(dir).join(file),
                    _ => below(home()?, parts),
                },
            }),
        }
    }
}

/// Claude Code's rule files: its user settings, the client file itself (per-project lists of
/// disabled servers), and the settings of each project it knows (`projects` in
/// `~/.claude.json`; with `--scope project`, the one beside `.mcp.json`). `text` is the client
/// file.
fn claude_code_rule_files(scope: Scope, config: &Path, text: &[u8]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = overspill_mcp::home_dir()
        .map(|home| home.join(".claude").join("settings.json"))
        .into_iter()
        .collect();
    files.push(config.to_owned());
    let mut projects: Vec<PathBuf> = serde_json::from_slice::<Value>(text)
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

#[cfg(test)]
mod tests;
