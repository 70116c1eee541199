//! `overspill install <client>` and `overspill uninstall <client>`: route an MCP client's
//! servers through one overspill gateway, and put the client's configuration back
//! (docs/clients.md).

mod clients;
mod edit;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use serde_json::{Map, Value, json};

use clients::{Client, Format, Scope};
use edit::{Entry, OURS, Parsed};

pub const INSTALL_EXAMPLES: &str = "Moves the client's MCP servers into a servers file of overspill's \
and gives the client one `overspill` server in their place: one gateway in front of all of them, \
one budget. The file is backed up first; `overspill uninstall <client>` puts it back byte for byte.\n\n\
Examples:\n  \
overspill install claude-code --dry-run   # what would change\n  \
overspill install cursor                  # ~/.cursor/mcp.json\n  \
overspill install vscode --scope project  # .vscode/mcp.json here\n  \
overspill install codex                   # $CODEX_HOME/config.toml";

pub const UNINSTALL_EXAMPLES: &str = "Examples:\n  \
overspill uninstall claude-code\n  \
overspill uninstall vscode --scope project";

/// Which client configuration: the flags both commands share.
#[derive(Debug, Args)]
pub struct Target {
    /// The client: claude-code, claude-desktop, cursor, vscode, codex or gemini-cli.
    #[arg(value_enum)]
    client: Client,
    /// The user's configuration, or the project's in the working directory.
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    /// Edit this file instead of the client's usual one for the scope.
    #[arg(long, value_name = "FILE")]
    config_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    target: Target,
    /// Say what would change, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// The program the client is to start (default: `npx -y overspill@<version>` or `uvx
    /// overspill@<version>` when npx or uvx runs this binary, else `overspill` when that is this
    /// binary on PATH, else this binary's full path).
    #[arg(long, value_name = "PROGRAM")]
    program: Option<String>,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    target: Target,
    /// Put the file back even if it changed since `overspill install` (those changes are lost).
    #[arg(long)]
    force: bool,
}

/// Where one installation's pieces are kept.
struct Places {
    /// The client's configuration file.
    config: PathBuf,
    /// The servers file the gateway reads (`mcpServers` JSON).
    servers: PathBuf,
    /// The configuration as it was before the first install.
    backup: PathBuf,
    /// What install did: the file's hash after it, the servers it moved.
    record: PathBuf,
}

impl Target {
    fn places(&self) -> anyhow::Result<Places> {
        let here = std::env::current_dir().context("cannot read the working directory")?;
        let config = match &self.config_file {
            Some(file) => here.join(file),
            None => self
                .client
                .config_path(self.scope, &here)
                .map_err(anyhow::Error::msg)?,
        };
        let stem = format!(
            "{}-{}",
            self.client.name(),
            &overspill::store::content_hash(config.to_string_lossy().as_bytes())[..8]
        );
        let state = overspill_mcp::state_dir()
            .context("cannot find your state directory (HOME is not set)")?
            .join("install");
        let servers = overspill_mcp::config_dir()
            .context("cannot find your configuration directory (HOME is not set)")?
            .join("clients")
            .join(format!("{stem}.json"));
        Ok(Places {
            config,
            servers,
            backup: state.join(format!("{stem}.backup")),
            record: state.join(format!("{stem}.json")),
        })
    }
}

pub fn install(args: InstallArgs) -> anyhow::Result<ExitCode> {
    let client = args.target.client;
    let places = args.target.places()?;
    let file = places.config.display().to_string();
    let original = match std::fs::read(&places.config) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            println!(
                "overspill install: {file} does not exist: {} has no MCP servers there to route",
                client.name()
            );
            return Ok(ExitCode::SUCCESS);
        }
        Err(error) => bail!("cannot read {file}: {error}"),
    };
    let text = String::from_utf8(original.clone()).map_err(|_| {
        anyhow::anyhow!("cannot read {file}: it is not UTF-8 text; it is left as it is")
    })?;
    let mut parsed = Parsed::parse(client, &text)
        .map_err(|why| anyhow::anyhow!("cannot read {file}: {why}; it is left as it is"))?;
    let entries = parsed.entries();
    let (moving, staying): (Vec<&Entry>, Vec<&Entry>) = entries
        .iter()
        .filter(|entry| entry.name != OURS)
        .partition(|entry| entry.stays.is_none());
    let installed = entries.iter().any(|entry| entry.name == OURS);
    for entry in &staying {
        let why = entry.stays.as_deref().unwrap_or_default();
        println!("overspill install: `{}` stays in {file}: {why}", entry.name);
    }
    if moving.is_empty() {
        let said = if installed {
            "overspill is installed there already, and no server was added since"
        } else {
            "no server there that overspill can front"
        };
        println!("overspill install: nothing to do in {file}: {said}");
        return Ok(ExitCode::SUCCESS);
    }
    let base = places.config.parent().unwrap_or(Path::new("."));
    let mut servers = earlier_servers(&places.servers)?;
    for entry in &moving {
        if servers.contains_key(&entry.name) {
            println!(
                "overspill install: `{}` replaces the server of that name in {}",
                entry.name,
                places.servers.display()
            );
        }
        servers.insert(entry.name.clone(), absolute(entry.entry.clone(), base));
    }
    let launch = match args.program {
        Some(program) => Launch {
            program,
            args: Vec::new(),
        },
        None => default_launch(),
    };
    let mut ours = Map::new();
    if let Format::Json { typed: true, .. } = client.format() {
        ours.insert("type".to_owned(), json!("stdio"));
    }
    let program = std::iter::once(launch.program.as_str())
        .chain(launch.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    ours.insert("command".to_owned(), json!(launch.program));
    let mut ours_args = launch.args;
    ours_args.extend([
        "mcp".to_owned(),
        "--servers".to_owned(),
        places.servers.to_string_lossy().into_owned(),
    ]);
    ours.insert("args".to_owned(), json!(ours_args));
    if client == Client::GeminiCli {
        // Gemini CLI gives a server 5 s to connect in `gemini mcp list` unless the entry says
        // otherwise, and the gateway answers `initialize` once its slowest server has (at most
        // `--init-timeout`, 30 s). 10 minutes is Gemini CLI's own default for every other
        // request, so tool calls wait as long as they did before.
        ours.insert("timeout".to_owned(), json!(600_000));
    }
    let ours = Value::Object(ours);
    let moved: Vec<String> = moving.iter().map(|entry| entry.name.clone()).collect();
    let rewritten = parsed.rewritten(&moved, &ours);
    Parsed::parse(client, &rewritten).map_err(|why| {
        anyhow::anyhow!("overspill could not edit {file} cleanly ({why}); it is left as it is")
    })?;
    let names = moved.join(", ");
    if args.dry_run {
        println!("overspill install --dry-run: would route through overspill: {names}");
        println!(
            "  {file} would start `{program} mcp --servers {}` as its server `{OURS}` in their place",
            places.servers.display()
        );
        println!("  (nothing was changed)");
        return Ok(ExitCode::SUCCESS);
    }
    let servers_text = serde_json::to_string_pretty(&json!({ "mcpServers": servers }))?;
    write_private(&places.servers, servers_text.as_bytes())?;
    if !places.backup.exists() {
        write_private(&places.backup, &original)?;
    }
    replace(&places.config, rewritten.as_bytes())?;
    let mut all_moved = earlier_moved(&places.record);
    all_moved.extend(moved.iter().cloned());
    let record = json!({
        "client": client.name(),
        "config": places.config,
        "servers": places.servers,
        "backup": places.backup,
        "installed_hash": overspill::store::content_hash(rewritten.as_bytes()),
        "moved": all_moved,
    });
    write_private(
        &places.record,
        serde_json::to_string_pretty(&record)?.as_bytes(),
    )?;
    println!(
        "overspill install: {} now starts one overspill for {names}; their entries are in {} \
         (your edits there apply on the client's next start, or at once with SIGHUP)",
        client.name(),
        places.servers.display()
    );
    println!(
        "  the file as it was is kept in {}; `overspill uninstall {}` puts it back",
        places.backup.display(),
        client.name()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<ExitCode> {
    let client = args.target.client;
    let places = args.target.places()?;
    let file = places.config.display().to_string();
    let Ok(record) = std::fs::read_to_string(&places.record) else {
        bail!(
            "overspill install has not changed {file} (there is no record of it in {})",
            places.record.display()
        );
    };
    let record: Value = serde_json::from_str(&record)
        .with_context(|| format!("cannot read the record {}", places.record.display()))?;
    let backup = std::fs::read(&places.backup)
        .with_context(|| format!("cannot read the backup {}", places.backup.display()))?;
    let current = std::fs::read(&places.config).unwrap_or_default();
    let unchanged = record["installed_hash"].as_str()
        == Some(overspill::store::content_hash(&current).as_str());
    if !unchanged && !args.force {
        bail!(
            "{file} changed since `overspill install`; `overspill uninstall {} --force` puts \
             back the file as it was before, and those changes are lost",
            client.name()
        );
    }
    replace(&places.config, &backup)?;
    for path in [&places.servers, &places.backup, &places.record] {
        let _ = std::fs::remove_file(path);
    }
    println!(
        "overspill uninstall: {file} is as it was before `overspill install`; {} starts its \
         servers itself again",
        client.name()
    );
    Ok(ExitCode::SUCCESS)
}

/// The servers an earlier install put in the servers file (and the user may have added).
fn earlier_servers(path: &Path) -> anyhow::Result<Map<String, Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(error) => bail!("cannot read {}: {error}", path.display()),
    };
    let value: Value = serde_json::from_str(&text)
        .with_context(|| format!("cannot read {} as an mcpServers file", path.display()))?;
    Ok(value
        .get("mcpServers")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default())
}

/// The servers earlier installs moved, from their record.
fn earlier_moved(record: &Path) -> Vec<String> {
    std::fs::read_to_string(record)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|record| record.get("moved").cloned())
        .and_then(|moved| serde_json::from_value(moved).ok())
        .unwrap_or_default()
}

/// `entry` with a relative `cwd`, or a relative command path (`./server.py`), made absolute
/// against `base`, the client configuration's directory, since the servers file lives
/// elsewhere.
fn absolute(mut entry: Value, base: &Path) -> Value {
    for key in ["cwd", "command"] {
        let Some(path) = entry.get(key).and_then(Value::as_str) else {
            continue;
        };
        let relative = Path::new(path).is_relative()
            && (key == "cwd" || path.contains('/') || path.contains('\\'));
        if relative && !path.contains("${") {
            entry[key] = Value::String(base.join(path).to_string_lossy().into_owned());
        }
    }
    entry
}

/// How a client starts overspill: a program and the arguments before `mcp`.
#[derive(Debug, PartialEq, Eq)]
struct Launch {
    program: String,
    args: Vec<String>,
}

/// How the client is to start overspill when `--program` does not say
/// (docs/clients.md#what-install-does): run by npx or uvx, this binary is a copy in their cache
/// that may be cleaned away, so the client gets the same runner, pinned to this version;
/// otherwise `overspill` when that name on PATH is this binary, else this binary's full path.
fn default_launch() -> Launch {
    let exe = std::env::current_exe().ok();
    let runner = exe
        .as_deref()
        .and_then(|exe| package_runner(exe, |name| std::env::var_os(name).map(PathBuf::from)));
    match runner {
        Some(runner) => runner,
        None => Launch {
            program: default_program(),
            args: Vec::new(),
        },
    }
}

/// For a binary npx installed (in its `_npx` cache; npm sets `npm_command=exec`): npx at this
/// version, started as npm started it, by absolute paths (`npm_node_execpath` runs npm's
/// `npx-cli.js`), since a client started from a desktop may not have Node on its PATH. For one
/// uvx installed (in uv's `archive-v*` cache; uv sets `UV` to itself): the `uvx` beside that
/// `uv`, else `uv tool run`. `None` for any other binary.
fn package_runner(exe: &Path, var: impl Fn(&str) -> Option<PathBuf>) -> Option<Launch> {
    let package = format!("overspill@{}", env!("CARGO_PKG_VERSION"));
    let in_dir = |wanted: &dyn Fn(&str) -> bool| {
        exe.ancestors()
            .filter_map(|dir| dir.file_name().and_then(|name| name.to_str()))
            .any(wanted)
    };
    let lossy = |path: &Path| path.to_string_lossy().into_owned();
    let npx = var("npm_command").is_some_and(|command| command.as_os_str() == "exec");
    if npx && in_dir(&|name| name == "_npx") {
        let script = var("npm_execpath")
            .and_then(|npm| npm.parent().map(|bin| bin.join("npx-cli.js")))
            .filter(|script| script.is_file());
        return Some(match (var("npm_node_execpath"), script) {
            (Some(node), Some(script)) if node.is_absolute() => Launch {
                program: lossy(&node),
                args: vec![lossy(&script), "-y".to_owned(), package],
            },
            _ => Launch {
                program: "npx".to_owned(),
                args: vec!["-y".to_owned(), package],
            },
        });
    }
    let uv = var("UV").filter(|uv| uv.is_absolute());
    if let Some(uv) = uv
        && in_dir(&|name| name.starts_with("archive-v"))
    {
        let uvx = uv.with_file_name(if cfg!(windows) { "uvx.exe" } else { "uvx" });
        return Some(if uvx.is_file() {
            Launch {
                program: lossy(&uvx),
                args: vec![package],
            }
        } else {
            Launch {
                program: lossy(&uv),
                args: vec!["tool".to_owned(), "run".to_owned(), package],
            }
        });
    }
    None
}

/// `overspill` when that name on PATH is this binary, else this binary's full path.
fn default_program() -> String {
    let Ok(own) = std::env::current_exe().and_then(|exe| exe.canonicalize()) else {
        return "overspill".to_owned();
    };
    let name = own.file_name().unwrap_or_default().to_string_lossy();
    let on_path =
        std::env::var_os("PATH").and_then(|path| overspill_mcp::find_on_path(&name, &path));
    match on_path.and_then(|found| found.canonicalize().ok()) {
        Some(found) if found == own && own.file_stem().is_some_and(|stem| stem == "overspill") => {
            "overspill".to_owned()
        }
        _ => own.to_string_lossy().into_owned(),
    }
}

/// Writes a file only its owner can read (it may hold the servers' secrets).
fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    #[cfg(unix)]
    let permissions = {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o600))
    };
    #[cfg(not(unix))]
    let permissions = None;
    write_whole(path, bytes, permissions)
}

/// Replaces a client's file in one step, keeping its permissions.
fn replace(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let permissions = std::fs::metadata(path)
        .ok()
        .map(|metadata| metadata.permissions());
    write_whole(path, bytes, permissions)
}

/// Writes `bytes` to a new file beside `path` (with `permissions` when given) and renames it
/// over `path`: a reader sees the old file or the new one, never a part.
fn write_whole(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    if let Some(permissions) = permissions {
        file.as_file()
            .set_permissions(permissions)
            .with_context(|| format!("cannot set the permissions of {}", path.display()))?;
    }
    file.write_all(bytes)
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests;
