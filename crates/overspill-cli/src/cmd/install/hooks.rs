//! The tool hooks install adds beside its entry (docs/hooks.md#what-install-writes): in Claude
//! Code's settings a `PostToolUse` hook, in Codex's `hooks.json` a `PreToolUse` and a
//! `PostToolUse` hook, in Gemini CLI's settings a `BeforeTool` hook, each running `overspill
//! hook <client>` with the entry's own flags, so that what it stores is where the entry's
//! gateway explores; which file it goes in and how its command is written is the client's row
//! ([`HookProfile`](super::clients::HookProfile)). Uninstall takes it out by the rule of the
//! entry: the file as it was, byte for byte, when nothing but install wrote it since; otherwise
//! only overspill's own hook, whatever else the file holds.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::ValueEnum;
use jsonc_parser::cst::{CstArray, CstNode, CstObject, CstRootNode};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::clients::{Client, HookCommand, HookFile, Scope};
use super::edit::{args_of, input, json_options};
use super::files;
use crate::cmd::agent_pad::PadFlags;
use crate::cmd::hook;

/// The hook install writes for one client file.
#[derive(Debug)]
pub struct Hook {
    client: hook::Client,
    /// The settings file it goes in.
    file: PathBuf,
    /// Its handler: `{"type": "command", "command": <program>, "args": [...]}` (Claude Code),
    /// or the command as one shell line (Codex and Gemini CLI read no `args`).
    handler: Value,
}

/// What install did to the settings file, kept in its record for uninstall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRecord {
    pub file: PathBuf,
    /// The file before install first added the hook; `None` when there was none.
    pub before: Option<String>,
    /// Whether only install wrote the file since `before`: then uninstall puts `before` back.
    pub exact: bool,
    /// The file's hash when the last install was done with it.
    pub installed_hash: String,
}

/// How uninstall left the settings file.
#[derive(Debug, PartialEq, Eq)]
pub enum Taken {
    /// As it was before install, byte for byte (or gone again, when install made it).
    AsBefore,
    /// Overspill's hook taken out of the file as it is now.
    Edited,
    /// The hook was not there any more (or the file was gone).
    NotThere,
}

/// Whether overspill answers `client`'s hooks: install adds one for it.
pub fn answered(client: Client) -> bool {
    client.profile().hooks.is_some()
}

impl Hook {
    /// The hook for `client`'s file `config` in `scope`, started as `program` beside the entry
    /// `entry` (whose `overspill mcp` flags it is given); `None` for a client whose hooks
    /// overspill does not answer yet. Which file it goes in and how its command is written
    /// are the client's row ([`HookProfile`](super::clients::HookProfile)).
    ///
    /// # Errors
    /// There is no home directory to find the user's settings in.
    pub fn of(
        client: Client,
        scope: Scope,
        config: &Path,
        program: &str,
        entry: &Value,
    ) -> anyhow::Result<Option<Hook>> {
        let Some(row) = client.profile().hooks else {
            return Ok(None);
        };
        let beside = |parts: &[&str]| {
            let dir = config.parent().unwrap_or(Path::new("."));
            parts
                .iter()
                .fold(dir.to_owned(), |dir, part| dir.join(part))
        };
        let file = match (row.file, scope) {
            (HookFile::Config, _) => config.to_owned(),
            (HookFile::BesideConfig(parts), _)
            | (HookFile::HomeElseBeside { project: parts, .. }, Scope::Project) => beside(parts),
            (HookFile::HomeElseBeside { user, .. }, Scope::User) => user.iter().fold(
                overspill_mcp::home_dir()
                    .context("cannot find your home directory (HOME is not set)")?,
                |dir, part| dir.join(part),
            ),
        };
        let flags = PadFlags::of_gateway(args_of(entry).skip_while(|arg| *arg != "mcp").skip(1));
        let args = row.client.args(&flags);
        let handler = match row.command {
            HookCommand::ProgramAndArgs => json!({
                "type": "command",
                "command": program,
                "args": args,
            }),
            HookCommand::ShellLine => json!({
                "type": "command",
                "command": hook::command_line(program, &args),
            }),
        };
        Ok(Some(Hook {
            client: row.client,
            file,
            handler,
        }))
    }

    /// The settings file the hook goes in.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The events and command, as install prints them.
    pub fn shown(&self) -> String {
        let events: Vec<&str> = self.client.events().iter().map(|e| e.name).collect();
        let command = self.handler["command"].as_str().unwrap_or_default();
        let args: Vec<&str> = args_of(&self.handler).collect();
        let shown = if args.is_empty() {
            command.to_owned()
        } else {
            format!("{command} {}", args.join(" "))
        };
        format!("{} hook `{shown}`", events.join(" and "))
    }

    /// Whether the settings file has the hook as it would be written now (`servers` is the
    /// servers file of the entry it goes with). A file that cannot be read is an error: install
    /// stops before it changes anything.
    ///
    /// # Errors
    /// The file cannot be read as Claude Code's settings.
    pub fn is_in_place(&self, servers: &Path) -> anyhow::Result<bool> {
        let Some(bytes) = files::read(&files::real_path(&self.file))? else {
            return Ok(false);
        };
        let settings = Settings::parse(&self.file, &bytes)?;
        for event in self.client.events() {
            let Some(groups) = settings.groups(&self.file, event.name)? else {
                return Ok(false);
            };
            let found = ours_in(&groups, self.client, servers)
                .iter()
                .any(|found| same_command(&found.value, &self.handler));
            if !found {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Adds the hook to the settings file as it is now, or brings overspill's hook there up to
    /// date (its command and arguments; what else you gave it stays); `earlier` is what an
    /// earlier install recorded of the file.
    ///
    /// # Errors
    /// The file cannot be read as Claude Code's settings, or written.
    pub fn add(&self, servers: &Path, earlier: Option<&HookRecord>) -> anyhow::Result<HookRecord> {
        let real = files::real_path(&self.file);
        if let Some(dir) = real.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let (written, before) = files::edit(&real, |bytes| {
            let Some(bytes) = bytes else {
                let events: serde_json::Map<String, Value> = self
                    .client
                    .events()
                    .iter()
                    .map(|event| (event.name.to_owned(), json!([self.group(event)])))
                    .collect();
                let text = format!(
                    "{}\n",
                    serde_json::to_string_pretty(&json!({ "hooks": events }))?
                );
                return Ok(Some((text.clone().into_bytes(), text)));
            };
            let settings = Settings::parse(&self.file, bytes)?;
            let mut changed = false;
            for event in self.client.events() {
                changed |= self.add_to(&settings, event, servers)?;
            }
            if !changed {
                return Ok(None);
            }
            let text = settings.root.to_string();
            Ok(Some((text.clone().into_bytes(), text)))
        })?;
        let now = match &written {
            Some(text) => text.clone().into_bytes(),
            None => before.clone().unwrap_or_default(),
        };
        let installed_hash = overspill::store::content_hash(&now);
        Ok(match earlier {
            // What the file was before the first install stays; it is still exact when no one
            // else wrote the file between the two installs.
            Some(earlier) if earlier.file == self.file => HookRecord {
                file: self.file.clone(),
                before: earlier.before.clone(),
                exact: earlier.exact
                    && before
                        .as_deref()
                        .map(overspill::store::content_hash)
                        .as_ref()
                        == Some(&earlier.installed_hash),
                installed_hash,
            },
            _ => HookRecord {
                file: self.file.clone(),
                before: before
                    .map(|bytes| {
                        String::from_utf8(bytes).with_context(|| {
                            format!("cannot read {}: it is not UTF-8 text", self.file.display())
                        })
                    })
                    .transpose()?,
                exact: true,
                installed_hash,
            },
        })
    }

    /// Adds the hook of `event` to `settings`, or brings overspill's there up to date; whether
    /// anything changed.
    fn add_to(
        &self,
        settings: &Settings,
        event: &hook::Event,
        servers: &Path,
    ) -> anyhow::Result<bool> {
        let groups = match settings.groups(&self.file, event.name)? {
            Some(groups) => groups,
            None => Groups {
                nodes: settings
                    .root
                    .object_value_or_set()
                    .object_value_or_set("hooks")
                    .array_value_or_set(event.name),
                values: Vec::new(),
            },
        };
        let ours = ours_in(&groups, self.client, servers);
        if ours
            .iter()
            .any(|found| same_command(&found.value, &self.handler))
        {
            return Ok(false);
        }
        match ours.first() {
            Some(Ours {
                handler: object, ..
            }) => {
                for key in ["command", "args"] {
                    let Some(value) = self.handler.get(key) else {
                        continue;
                    };
                    match object.get(key) {
                        Some(property) => property.set_value(input(value)),
                        None => {
                            object.append(key, input(value));
                        }
                    }
                }
            }
            None => {
                groups.nodes.append(input(&self.group(event)));
            }
        }
        Ok(true)
    }

    /// The matcher group install adds for `event`: the tools the hook knows, and the handler.
    fn group(&self, event: &hook::Event) -> Value {
        json!({"matcher": event.matcher, "hooks": [self.handler]})
    }
}

impl HookRecord {
    /// The record as the file is now: `before` is still the file as it was, less install's own
    /// edits, only when the file is as the last install left it.
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn checked(mut self) -> anyhow::Result<HookRecord> {
        let now = files::read(&files::real_path(&self.file))?;
        self.exact &= now.as_deref().map(overspill::store::content_hash).as_ref()
            == Some(&self.installed_hash);
        Ok(self)
    }

    /// The record brought up to date after another edit of the file by install (its
    /// permission rules): the hash of the file as it is now.
    ///
    /// # Errors
    /// The file cannot be read.
    pub fn rehashed(mut self) -> anyhow::Result<HookRecord> {
        let now = files::read(&files::real_path(&self.file))?.unwrap_or_default();
        self.installed_hash = overspill::store::content_hash(&now);
        Ok(self)
    }
}

/// Takes overspill's hook out of the settings file of `record`, as the file is now: the file as
/// it was, byte for byte (or gone, when install made it), when only install wrote it since;
/// otherwise each handler that runs `overspill hook <client>` for the gateway of `servers`,
/// with a matcher group, an event and a `hooks` object that it leaves empty. Your own hooks
/// stay in every case.
///
/// # Errors
/// The file cannot be read as Claude Code's settings, or written.
pub fn remove(record: &HookRecord, servers: &Path) -> anyhow::Result<Taken> {
    let real = files::real_path(&record.file);
    let unchanged = |bytes: &[u8]| {
        record.exact && overspill::store::content_hash(bytes) == record.installed_hash
    };
    if record.before.is_none()
        && let Some(bytes) = files::read(&real)?
        && unchanged(&bytes)
    {
        files::remove(&real)?;
        return Ok(Taken::AsBefore);
    }
    let (taken, _) = files::edit(&real, |bytes| {
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        if unchanged(bytes)
            && let Some(before) = &record.before
        {
            return Ok(Some((before.clone().into_bytes(), Taken::AsBefore)));
        }
        let settings = Settings::parse(&record.file, bytes)?;
        let root = &settings.root;
        let mut removed = false;
        // Each event once: Claude Code's and Codex's PostToolUse are one list.
        let mut events: Vec<&str> = hook::Client::value_variants()
            .iter()
            .flat_map(|client| client.events().iter().map(|event| event.name))
            .collect();
        events.sort_unstable();
        events.dedup();
        for event in events {
            let Some(groups) = settings.groups(&record.file, event)? else {
                continue;
            };
            let ours: Vec<Ours> = hook::Client::value_variants()
                .iter()
                .filter(|client| client.events().iter().any(|e| e.name == event))
                .flat_map(|client| ours_in(&groups, *client, servers))
                .collect();
            for found in &ours {
                found.handler.clone().remove();
            }
            // A group that held only overspill's hook goes with it (once, should it have held
            // two); one with your hooks stays.
            for found in &ours {
                let emptied = found.group.parent().is_some()
                    && found
                        .group
                        .as_object()
                        .and_then(|group| group.array_value("hooks"))
                        .is_some_and(|handlers| handlers.elements().is_empty());
                if emptied {
                    found.group.clone().remove();
                }
            }
            removed |= !ours.is_empty();
            if !ours.is_empty() && groups.nodes.elements().is_empty() {
                remove_property(root, &["hooks", event]);
            }
        }
        let hooks_left = root
            .object_value()
            .and_then(|settings| settings.object_value("hooks"))
            .map(|hooks| hooks.properties().len());
        if removed && hooks_left == Some(0) {
            remove_property(root, &["hooks"]);
        }
        Ok(removed.then(|| (root.to_string().into_bytes(), Taken::Edited)))
    })?;
    Ok(taken.unwrap_or(Taken::NotThere))
}

/// A settings file, as a tree that keeps its layout and as the value it holds.
struct Settings {
    root: CstRootNode,
    value: Value,
}

/// The matcher groups of one event: their nodes, and their values in the same order.
struct Groups {
    nodes: CstArray,
    values: Vec<Value>,
}

impl Settings {
    fn parse(file: &Path, bytes: &[u8]) -> anyhow::Result<Settings> {
        let text = std::str::from_utf8(bytes)
            .with_context(|| format!("cannot read {}: it is not UTF-8 text", file.display()))?;
        let root = CstRootNode::parse(text, &json_options())
            .with_context(|| format!("cannot read {} as JSON", file.display()))?;
        let value: Value = jsonc_parser::parse_to_serde_value(text, &json_options())
            .with_context(|| format!("cannot read {} as JSON", file.display()))?;
        if !(value.is_object() || value.is_null()) {
            bail!(
                "cannot read {}: it is JSON, but not an object",
                file.display()
            );
        }
        Ok(Settings { root, value })
    }

    /// The matcher groups of `event` (`hooks.<event>`), `None` when there are none. A `hooks`
    /// or an event that is not what Claude Code reads is an error: its settings would not load
    /// either.
    fn groups(&self, file: &Path, event: &str) -> anyhow::Result<Option<Groups>> {
        let Some(hooks) = self.value.get("hooks") else {
            return Ok(None);
        };
        let Some(hooks) = hooks.as_object() else {
            bail!(
                "cannot read the hooks of {}: its `hooks` is not an object of events; fix it \
                 (Claude Code does not read it either), then try again",
                file.display()
            );
        };
        let Some(groups) = hooks.get(event) else {
            return Ok(None);
        };
        let (Some(values), Some(nodes)) = (
            groups.as_array(),
            self.root
                .object_value()
                .and_then(|settings| settings.object_value("hooks"))
                .and_then(|hooks| hooks.array_value(event)),
        ) else {
            bail!(
                "cannot read the hooks of {}: its `hooks.{event}` is not a list of matcher \
                 groups; fix it, then try again",
                file.display()
            );
        };
        Ok(Some(Groups {
            nodes,
            values: values.clone(),
        }))
    }
}

/// A handler of overspill's hook in the settings, and the matcher group it is in.
struct Ours {
    value: Value,
    handler: CstObject,
    group: CstNode,
}

/// The handlers of `groups` that are overspill's hook for the gateway of `servers`: a command
/// whose arguments are `hook <client>` and `--servers <servers>`, whatever its program (an
/// upgrade moves it) and other flags.
fn ours_in(groups: &Groups, client: hook::Client, servers: &Path) -> Vec<Ours> {
    let mut ours = Vec::new();
    for (group, value) in groups.nodes.elements().into_iter().zip(&groups.values) {
        let (Some(handlers), Some(values)) = (
            group
                .as_object()
                .and_then(|group| group.array_value("hooks")),
            value.get("hooks").and_then(Value::as_array),
        ) else {
            continue;
        };
        for (handler, value) in handlers.elements().into_iter().zip(values) {
            if let Some(object) = handler.as_object()
                && is_ours(value, client, servers)
            {
                ours.push(Ours {
                    value: value.clone(),
                    handler: object,
                    group: group.clone(),
                });
            }
        }
    }
    ours
}

fn is_ours(handler: &Value, client: hook::Client, servers: &Path) -> bool {
    let words;
    let mut args: Vec<&str> = args_of(handler).collect();
    if args.is_empty() {
        // A command line: its words after the program.
        words = hook::command_words(handler.get("command").and_then(Value::as_str).unwrap_or(""));
        args = words.iter().skip(1).map(String::as_str).collect();
    }
    handler.get("type").and_then(Value::as_str) == Some("command")
        && args.starts_with(&["hook", client.name()])
        && args
            .windows(2)
            .any(|pair| pair[0] == "--servers" && Path::new(pair[1]) == servers)
}

/// Whether two handlers run the same command with the same arguments.
fn same_command(handler: &Value, fresh: &Value) -> bool {
    handler.get("command") == fresh.get("command") && handler.get("args") == fresh.get("args")
}

/// Removes the property at `path` (object keys from the root), if it is there.
fn remove_property(root: &CstRootNode, path: &[&str]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut object = root.object_value();
    for key in parents {
        object = object.and_then(|object| object.object_value(key));
    }
    if let Some(property) = object.and_then(|object| object.get(last)) {
        property.remove();
    }
}

#[cfg(test)]
mod tests;
