//! What `overspill install` did to one client file, kept in the state directory for
//! `uninstall` (docs/clients.md#uninstall): the file's hash after install, the servers it
//! moved (each as the client had it, and as the servers file got it), whether the backup is
//! still the file as it was, the permission rules it added, and the hook.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::Original;
use super::files;
use super::hooks::HookRecord;
use super::rules::AddedRule;

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Record {
    pub client: String,
    pub config: PathBuf,
    pub servers: PathBuf,
    pub backup: PathBuf,
    /// The client file's hash after the last install.
    pub installed_hash: String,
    /// The servers file's hash as the last install wrote it.
    #[serde(default)]
    pub servers_hash: Option<String>,
    /// Whether the backup is the file as it was before the one install that made the
    /// present state: false once a later install moved more servers, since the backup has
    /// not got them (a record of an older overspill has no such field: false).
    #[serde(default)]
    pub backup_exact: bool,
    /// Each moved server: as the client had it, and its entry in the servers file as install
    /// wrote it.
    #[serde(default)]
    pub originals: BTreeMap<String, Moved>,
    /// Permission rules install added under the new names.
    #[serde(default)]
    pub rules: Vec<AddedRule>,
    /// The tool hook install added beside the entry, and its settings file as it was.
    #[serde(default)]
    pub hook: Option<HookRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Moved {
    pub original: Original,
    pub written: Value,
}

impl Record {
    /// The record at `path`; `None` when there is none.
    pub fn read(path: &Path) -> anyhow::Result<Option<Record>> {
        let Some(bytes) = files::read(path)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .with_context(|| format!("cannot read the record {}", path.display()))
    }

    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        files::write_private(path, serde_json::to_string_pretty(self)?.as_bytes())
    }
}
