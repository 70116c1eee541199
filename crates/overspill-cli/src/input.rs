//! Reading a command's input: a file, or standard input for `-` or no argument.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Where a command reads its text from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// `-` or nothing: standard input; anything else: that file.
    pub fn from_arg(arg: Option<&Path>) -> Source {
        match arg {
            None => Source::Stdin,
            Some(path) if path.as_os_str() == "-" => Source::Stdin,
            Some(path) => Source::File(path.to_owned()),
        }
    }

    /// Reads the whole input as UTF-8 text.
    ///
    /// # Errors
    /// The file cannot be read, or the bytes are not UTF-8 (tool outputs are text).
    pub fn read_text(&self) -> anyhow::Result<String> {
        let bytes = match self {
            Source::Stdin => {
                let mut bytes = Vec::new();
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut bytes)
                    .context("cannot read standard input")?;
                bytes
            }
            Source::File(path) => {
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
            }
        };
        String::from_utf8(bytes).map_err(|error| {
            anyhow::anyhow!(
                "{} is not UTF-8 text (invalid byte at offset {}); tool outputs are text, so \
                 convert it first (e.g. with iconv)",
                self,
                error.utf8_error().valid_up_to()
            )
        })
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Stdin => f.write_str("standard input"),
            Source::File(path) => write!(f, "{}", path.display()),
        }
    }
}
