//! The tarball of one platform's binary (with the README and licenses) and the SHA-256 sums of
//! everything `dist` made. The archive is reproducible: entries in a fixed order, owned by
//! root, dated by the last commit.

use std::fs::{self, File};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};
use flate2::Compression;
use flate2::write::GzEncoder;
use sha2::{Digest, Sha256};

use super::Built;

/// The files beside the binary in the archive, from the workspace root, with the name each has
/// there: the README, the changelog, overspill's licences, and the notices and licences of the
/// data the binary embeds (the tokenizers' vocabulary and model).
pub const BESIDE: [(&str, &str); 8] = [
    ("README.md", "README.md"),
    ("CHANGELOG.md", "CHANGELOG.md"),
    ("LICENSE-MIT", "LICENSE-MIT"),
    ("LICENSE-APACHE", "LICENSE-APACHE"),
    (
        "crates/overspill-tokens/assets/openai/NOTICE",
        "notices/openai-tiktoken/NOTICE",
    ),
    (
        "crates/overspill-tokens/assets/openai/LICENSE-MIT",
        "notices/openai-tiktoken/LICENSE-MIT",
    ),
    (
        "crates/overspill-tokens/assets/gemma3/NOTICE",
        "notices/gemma3/NOTICE",
    ),
    (
        "crates/overspill-tokens/assets/gemma3/LICENSE-APACHE-2.0",
        "notices/gemma3/LICENSE-APACHE-2.0",
    ),
];

/// Copies overspill's licences and, with `notices`, the notices of the data the binary embeds,
/// from [`BESIDE`] into `dir` under the names they ship with.
pub fn copy_licences(root: &Path, dir: &Path, notices: bool) -> Result<()> {
    let shipped = BESIDE
        .iter()
        .filter(|(_, to)| to.starts_with("LICENSE") || (notices && to.starts_with("notices/")));
    for (from, to) in shipped {
        let target = dir.join(to);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::copy(root.join(from), &target).with_context(|| format!("cannot copy {from}"))?;
    }
    Ok(())
}

/// `overspill-<version>-<target>`: the tarball's name without `.tar.gz`, and its one directory.
pub fn name(version: &str, target: &str) -> String {
    format!("overspill-{version}-{target}")
}

/// Writes `<out>/overspill-<version>-<target>.tar.gz` and its `.sha256`; returns the archive.
pub fn write(built: &Built<'_>, out: &Path) -> Result<PathBuf> {
    let name = name(built.version, built.platform.target);
    let path = out.join(format!("{name}.tar.gz"));
    let mtime = commit_time(built.root);
    let file = File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut archive = tar::Builder::new(GzEncoder::new(file, Compression::best()));
    append(
        &mut archive,
        &format!("{name}/{}", built.platform.executable()),
        &fs::read(built.binary)?,
        0o755,
        mtime,
    )?;
    for (from, to) in BESIDE {
        let bytes =
            fs::read(built.root.join(from)).with_context(|| format!("cannot read {from}"))?;
        append(&mut archive, &format!("{name}/{to}"), &bytes, 0o644, mtime)?;
    }
    archive.into_inner()?.finish()?.flush()?;
    let sum = format!("{}  {name}.tar.gz\n", sha256(&path)?);
    let sum_path = out.join(format!("{name}.tar.gz.sha256"));
    fs::write(&sum_path, sum).with_context(|| format!("cannot write {}", sum_path.display()))?;
    Ok(path)
}

fn append(
    archive: &mut tar::Builder<GzEncoder<File>>,
    path: &str,
    bytes: &[u8],
    mode: u32,
    mtime: u64,
) -> Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(mode);
    header.set_mtime(mtime);
    header.set_uid(0);
    header.set_gid(0);
    header.set_entry_type(tar::EntryType::Regular);
    archive
        .append_data(&mut header, path, bytes)
        .with_context(|| format!("cannot add {path} to the archive"))
}

/// Seconds since the epoch of the last commit (`SOURCE_DATE_EPOCH` first), else 0: the archive
/// of one commit is the same bytes wherever it is made.
fn commit_time(root: &Path) -> u64 {
    if let Some(epoch) = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|epoch| epoch.parse().ok())
    {
        return epoch;
    }
    Command::new("git")
        .args(["log", "-1", "--format=%ct"])
        .current_dir(root)
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .and_then(|time| time.trim().parse().ok())
        .unwrap_or(0)
}

/// The size of the binary in a tarball `write` made: the entry named `overspill` or
/// `overspill.exe` in its one directory.
pub fn binary_size_in(tarball: &Path) -> Result<u64> {
    let file = File::open(tarball).with_context(|| format!("cannot read {}", tarball.display()))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries()? {
        let entry = entry?;
        let path = entry.path()?;
        let name = path.file_name().and_then(|name| name.to_str());
        if matches!(name, Some("overspill" | "overspill.exe")) {
            return Ok(entry.size());
        }
    }
    anyhow::bail!("{} holds no overspill binary", tarball.display())
}

/// The SHA-256 of a file, in lowercase hex.
pub fn sha256(path: &Path) -> Result<String> {
    let mut file = BufReader::new(
        File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
    );
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

/// `<out>/SHA256SUMS`: one `sha256sum` line per file, paths relative to `out`.
pub fn write_sums(out: &Path, files: &[PathBuf]) -> Result<()> {
    let mut sums = String::new();
    for file in files {
        let relative = file.strip_prefix(out).unwrap_or(file);
        sums.push_str(&format!("{}  {}\n", sha256(file)?, relative.display()));
    }
    let path = out.join("SHA256SUMS");
    fs::write(&path, sums).with_context(|| format!("cannot write {}", path.display()))
}
