//! The store: a scratchpad directory that intercepted outputs are written into (docs/storage.md).

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::atomic::{Written, create_private_dir_all, sweep_stale_temp_files, write_if_absent};
use crate::companion::{self, Companion};
use crate::error::StoreError;
use crate::format::{Format, is_markdown};
use crate::metadata::{self, METADATA_DIR, Metadata, TokenTally};
use crate::name::{content_hash, count_lines, sanitize_name};
use crate::root_file::{read_small, read_small_in};
use crate::shared::SharedStore;
use overspill_json::{Reindent, first_token_byte, reindent};

/// The largest metadata record read: a record with every companion listed is a few KB, so
/// anything this large was not written by overspill.
const MAX_RECORD_BYTES: u64 = 1 << 20;

/// A directory of stored outputs. Cheap to clone; safe to share between threads and processes
/// (every write is atomic and content-addressed).
///
/// ```
/// use overspill_store::{Format, Output, Store, TextLayout};
///
/// let dir = tempfile::tempdir()?;
/// let store = Store::open(dir.path().join("scratchpad"))?;
/// let content = r#"{"items":[1,2]}"#;
/// let output = Output {
///     tool: "k8s.list_pods", server: Some("k8s"), content, tokens: None,
///     text_layout: TextLayout::Reindented,
/// };
///
/// let stored = store.write_output(&output)?;
/// assert!(stored.file_name.starts_with("k8s_list_pods-") && stored.file_name.ends_with(".json"));
/// assert_eq!(stored.format, Format::Json);
/// assert_eq!(std::fs::read_to_string(&stored.path)?, "{\n  \"items\": [\n    1,\n    2\n  ]\n}\n");
///
/// // The same output again: the same name, one file.
/// let again = store.write_output(&output)?;
/// assert_eq!((again.file_name.as_str(), again.already_existed), (stored.file_name.as_str(), true));
/// assert_eq!(store.list()?.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// Where every file written goes too, when results are shared beyond this machine.
    shared: Option<SharedStore>,
}

/// One tool result to store.
#[derive(Debug, Clone)]
pub struct Output<'a> {
    /// The tool's name (sanitised for the file name; kept as is in the metadata).
    pub tool: &'a str,
    /// The server the tool belongs to, if any.
    pub server: Option<&'a str>,
    /// The result text.
    pub content: &'a str,
    /// Its token count, if the caller measured one.
    pub tokens: Option<TokenTally>,
    /// How its text is laid out in the file: JSON re-indented (the default), or as given.
    pub text_layout: TextLayout,
}

/// How an output's text is laid out in its stored file (docs/storage.md#what-is-written). The
/// format is detected the same way in both, and so are companions: only the file's text
/// differs.
///
/// ```
/// use overspill_store::{Format, Output, Store, TextLayout};
///
/// let dir = tempfile::tempdir()?;
/// let store = Store::open(dir.path())?;
/// let file = "{\n    \"name\": \"web\",\n    \"ports\": [80, 443]\n}\n";
/// let output = Output {
///     tool: "Read", server: None, content: file, tokens: None,
///     text_layout: TextLayout::AsGiven,
/// };
///
/// let stored = store.write_output(&output)?;
/// assert_eq!(std::fs::read_to_string(&stored.path)?, file);
/// assert_eq!((stored.format, stored.lines), (Format::Json, 4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TextLayout {
    /// A JSON object or array re-indented with 2 spaces, one member or element per line, every
    /// token as given: what line tools read best, whatever layout the tool chose. Any other
    /// text as given.
    #[default]
    Reindented,
    /// Byte for byte as given, JSON too: for a text whose lines must stay the caller's, such as
    /// a file the model edits with text it copied from the stored one.
    AsGiven,
}

/// What [`Store::write_output`] stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// `{tool}-{hash}.{ext}`: what the pointer names.
    pub file_name: String,
    /// The file's path (the store directory joined with `file_name`).
    pub path: PathBuf,
    /// The detected format.
    pub format: Format,
    /// Bytes in the stored file (after re-indenting, for JSON laid out [`TextLayout::Reindented`]).
    pub bytes: u64,
    /// Lines in the stored file.
    pub lines: usize,
    /// Companion files, in the order of their keys in the output.
    pub companions: Vec<Companion>,
    /// True when a file with this name was already there (the same output stored before).
    pub already_existed: bool,
}

impl Store {
    /// Opens the store in `dir`, creating it (and missing parents) with mode 0700; an existing
    /// directory keeps its mode. Temporary files left by a writer that crashed over an hour ago
    /// are removed.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Store, StoreError> {
        let dir = dir.into();
        create_private_dir_all(&dir).map_err(|error| StoreError::CreateDir {
            dir: dir.clone(),
            error,
        })?;
        sweep_stale_temp_files(&dir);
        sweep_stale_temp_files(&dir.join(METADATA_DIR));
        Ok(Store { dir, shared: None })
    }

    /// The same store, writing every file to `shared` too before a write returns
    /// (docs/storage.md#a-shared-store): an output is stored once it is in the shared store,
    /// and a write that reaches only this machine fails. The store's directory must lie in the
    /// shared store's cache directory, whose layout the keys follow.
    ///
    /// # Errors
    ///
    /// [`StoreError::Shared`] when the directory is not below the cache directory.
    pub fn with_shared(self, shared: SharedStore) -> Result<Store, StoreError> {
        let dir = std::fs::canonicalize(&self.dir).map_err(|error| StoreError::CreateDir {
            dir: self.dir.clone(),
            error,
        })?;
        if !shared.holds(&dir) {
            return Err(StoreError::Shared(shared.outside(&dir)));
        }
        Ok(Store {
            dir,
            shared: Some(shared),
        })
    }

    /// The store directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stores `output`: detects its format, re-indents JSON (unless `output.text_layout` is
    /// [`TextLayout::AsGiven`]), names the file by tool and content hash, writes it and its
    /// companions atomically, and records its metadata.
    ///
    /// Writing an output that is already stored changes nothing on disk and reports
    /// `already_existed`. Companions are written before the output, and the metadata record
    /// after it, so whoever sees the output's name can also open its companions.
    ///
    /// This is [`Store::write_content`] then [`Store::record_metadata`]; a caller that counts
    /// the output's tokens can call the two itself and count while the content is written.
    pub fn write_output(&self, output: &Output<'_>) -> Result<Stored, StoreError> {
        let stored = self.write_content(output)?;
        self.record_metadata(output, &stored)?;
        Ok(stored)
    }

    /// The first half of [`Store::write_output`]: the output and its companions on disk,
    /// without the metadata record (so `output.tokens` is not read). Until
    /// [`Store::record_metadata`] runs, [`Store::list`] does not show the output.
    pub fn write_content(&self, output: &Output<'_>) -> Result<Stored, StoreError> {
        let prepared = prepare(output.content, output.text_layout);
        let stem = format!(
            "{}-{}",
            sanitize_name(output.tool, "output"),
            content_hash(prepared.text.as_bytes())
        );
        let file_name = format!("{stem}.{}", prepared.format.extension());
        let planned = match &prepared.members {
            Some(members) => companion::plan(output.content, members, &stem),
            None => Vec::new(),
        };

        for p in &planned {
            self.write_file(&self.dir, &p.companion.file_name, p.content.as_bytes())?;
        }
        let written = self.write_file(&self.dir, &file_name, prepared.text.as_bytes())?;

        Ok(Stored {
            path: self.dir.join(&file_name),
            format: prepared.format,
            bytes: prepared.text.len() as u64,
            lines: count_lines(&prepared.text),
            companions: planned.into_iter().map(|p| p.companion).collect(),
            already_existed: written == Written::Existed,
            file_name,
        })
    }

    /// Metadata of every stored output, oldest first (ties by file name). Records that cannot
    /// be read are skipped with a warning; a store with nothing written yet lists nothing.
    pub fn list(&self) -> Result<Vec<Metadata>, StoreError> {
        let dir = self.metadata_dir();
        let read_error = |error| StoreError::ReadMetadata {
            dir: dir.clone(),
            error,
        };
        let handle = match cap_std::fs::Dir::open_ambient_dir(&dir, cap_std::ambient_authority()) {
            Ok(handle) => handle,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(read_error(error)),
        };
        let entries = handle.entries().map_err(read_error)?;
        let mut all = Vec::new();
        for entry in entries {
            let entry = entry.map_err(read_error)?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            let path = dir.join(name);
            if let Some(meta) = decode_record(read_small_in(&handle, name, MAX_RECORD_BYTES), &path)
            {
                all.push(meta);
            }
        }
        metadata::oldest_first(&mut all);
        Ok(all)
    }

    /// The metadata of one stored output, or `None` if it has no record.
    pub fn metadata(&self, file_name: &str) -> Option<Metadata> {
        if file_name.contains(['/', '\\', '\0']) || file_name.starts_with('.') {
            return None;
        }
        let dir = self.metadata_dir();
        let name = metadata::record_name(file_name);
        decode_record(read_small(&dir, &name, MAX_RECORD_BYTES), &dir.join(&name))
    }

    fn metadata_dir(&self) -> PathBuf {
        self.dir.join(METADATA_DIR)
    }

    /// The second half of [`Store::write_output`]: writes the metadata record of `stored`
    /// (with `output.tokens`) unless one exists, since the first store of an output is its
    /// creation time.
    pub fn record_metadata(&self, output: &Output<'_>, stored: &Stored) -> Result<(), StoreError> {
        let meta = Metadata {
            file_name: stored.file_name.clone(),
            tool: output.tool.to_owned(),
            server: output.server.map(str::to_owned),
            created: SystemTime::now(),
            bytes: stored.bytes,
            lines: stored.lines,
            tokens: output.tokens.clone(),
            format: stored.format,
            companions: stored.companions.clone(),
        };
        let dir = self.metadata_dir();
        create_private_dir_all(&dir).map_err(|error| StoreError::CreateDir {
            dir: dir.clone(),
            error,
        })?;
        let name = metadata::record_name(&stored.file_name);
        if dir.join(&name).is_file() {
            // Kept here: the shared store may not have it yet (a write to it failed before),
            // and the record there must be the first one too.
            if let Some(shared) = &self.shared {
                let path = dir.join(&name);
                let kept = read_small(&dir, &name, MAX_RECORD_BYTES).map_err(|error| {
                    StoreError::Write {
                        path: path.clone(),
                        error,
                    }
                })?;
                shared.put(&path, &kept)?;
            }
            return Ok(());
        }
        self.write_file(&dir, &name, metadata::encode(&meta).as_bytes())
            .map(|_| ())
    }

    fn write_file(&self, dir: &Path, name: &str, content: &[u8]) -> Result<Written, StoreError> {
        let attempt = write_if_absent(dir, name, content);
        // The directory may have been removed (e.g. by `cleanup()`) since `open`; recreate once.
        let attempt = match attempt {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                create_private_dir_all(dir).map_err(|error| StoreError::CreateDir {
                    dir: dir.to_owned(),
                    error,
                })?;
                write_if_absent(dir, name, content)
            }
            other => other,
        };
        let written = attempt.map_err(|error| StoreError::Write {
            path: dir.join(name),
            error,
        })?;
        if let Some(shared) = &self.shared {
            shared.put(&dir.join(name), content)?;
        }
        Ok(written)
    }
}

/// An output as it will be stored.
struct Prepared<'a> {
    format: Format,
    text: Cow<'a, str>,
    /// Top-level string members, when the output is a JSON object.
    members: Option<Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>>,
}

/// Detects the format and produces the stored text in one pass over JSON. Text laid out as
/// given goes through the same pass, which finds its companions: their ranges are into
/// `content`, so an output has the same companions in either layout.
fn prepare(content: &str, layout: TextLayout) -> Prepared<'_> {
    if let Some(open @ (b'{' | b'[')) = first_token_byte(content) {
        match reindent(content) {
            Reindent::Pretty(pretty) => {
                let members = (open == b'{').then_some(pretty.top_level_strings);
                let text = match layout {
                    TextLayout::Reindented => Cow::Owned(pretty.text),
                    TextLayout::AsGiven => Cow::Borrowed(content),
                };
                return Prepared {
                    format: Format::Json,
                    text,
                    members,
                };
            }
            Reindent::TooLarge => {
                tracing::debug!("JSON too deeply nested to pretty-print; storing it as given");
                return Prepared {
                    format: Format::Json,
                    text: Cow::Borrowed(content),
                    members: None,
                };
            }
            Reindent::Invalid => {}
        }
    }
    let format = if is_markdown(content) {
        Format::Markdown
    } else {
        Format::Text
    };
    Prepared {
        format,
        text: Cow::Borrowed(content),
        members: None,
    }
}

/// A metadata record read with [`read_small`], decoded; `None` (with a warning) for a record
/// that is missing, unreadable, not a regular file or not a record.
fn decode_record(read: io::Result<Vec<u8>>, path: &Path) -> Option<Metadata> {
    match read {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => metadata::decode(&text, path),
            Err(_) => {
                tracing::warn!(path = %path.display(), "skipping a metadata record that is not UTF-8");
                None
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "skipping an unreadable metadata record");
            None
        }
    }
}
