//! Who a `--listen` request comes from: the principals of `--auth-tokens FILE`, each named by
//! the SHA-256 of its bearer token, read again on SIGHUP (docs/mcp-proxy.md#named-tokens).
//!
//! The file holds one principal a line, `NAME sha256:<64 hex digits>`, with `#` comments
//! (whole lines, or after the hash) and blank lines; `overspill auth token NAME` prints a new token and its line. Only hashes are
//! kept, and neither a token nor a hash is ever logged or put in an error.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use sha2::{Digest, Sha256};

/// Who a request comes from: a principal of `--auth-tokens`, or, when the listener has no
/// such file, one fixed principal for everyone: [`Principal::shared`] (the one token of
/// `--auth-token-env`) or [`Principal::local`] (no token at all).
///
/// Its [`name`](Principal::name) can be one path component: 1 to 64 of `A-Z a-z 0-9 . _ -`,
/// starting with a letter or a digit (so never `.` or `..`), and no two principals' names
/// differ only in case. The file may not use the fixed names (in any case), so a name means
/// one principal whatever flags the proxy is started with.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Principal(Who);

/// A new bearer token and its line for the tokens file ([`Tokens::issue`]).
#[derive(Clone)]
#[non_exhaustive]
pub struct Issued {
    /// The token, 64 hex digits (256 bits from the operating system's random source).
    pub token: String,
    /// `NAME sha256:<hex>`, without a line end: what the tokens file holds for it.
    pub line: String,
}

/// The principals of a tokens file, shared by the listener and what reloads it: each request
/// is looked up in the table read last.
#[derive(Clone)]
pub struct Tokens(Arc<Source>);

/// Why a tokens file, a principal's name or a new token is refused. No message holds a token
/// or a hash.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokensError {
    /// The file could not be read.
    #[error("cannot read the tokens file {}: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why, stated in the message (not returned by `source()`).
        error: std::io::Error,
    },
    /// The file is larger than a tokens file can be.
    #[error(
        "the tokens file {} is larger than {} bytes; it holds one short line per principal \
         (`NAME sha256:<hex>`), check that it is the right file",
        path.display(),
        MAX_FILE_BYTES
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// A line of the file is not a principal.
    #[error("{}, line {line}: {problem}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it.
        problem: LineProblem,
    },
    /// A name given for a new token is not a principal's name.
    #[error("{0}")]
    Name(LineProblem),
    /// No random token could be drawn.
    #[error("cannot draw a random token from the operating system: {error}")]
    Random {
        /// Why, as the random source said.
        error: String,
    },
}

/// What is wrong with one line of a tokens file (or with a principal's name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineProblem {
    /// Not two fields.
    #[error(
        "expected `NAME sha256:<64 hex digits>` (a name, a space, the token's hash), found {fields} \
         field(s); `overspill auth token NAME` prints such a line"
    )]
    Shape {
        /// How many whitespace-separated fields the line has.
        fields: usize,
    },
    /// The name has characters a name may not have, or is too long. The name itself is not
    /// repeated: it may be a token written in the wrong place.
    #[error(
        "the name is not valid: a name is 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter \
         or a digit"
    )]
    Name,
    /// The name is one of the fixed principals'.
    #[error(
        "the name `{name}` is reserved (`{}` is the --auth-token-env token, `{}` a listener \
         without tokens); choose another",
        SHARED,
        LOCAL
    )]
    Reserved {
        /// The name.
        name: String,
    },
    /// The second field is not `sha256:` and 64 hex digits.
    #[error(
        "the second field must be `sha256:` followed by the 64 hex digits of the token's SHA-256 \
         (a token itself never goes in this file; `overspill auth token NAME` prints the line)"
    )]
    Hash,
    /// The name is on an earlier line too (in any case).
    #[error(
        "the name `{name}` is on line {first} already (names differ in more than case); give \
         each principal one line"
    )]
    DuplicateName {
        /// The name.
        name: String,
        /// The earlier line.
        first: usize,
    },
    /// The hash is on an earlier line too: two principals with one token.
    #[error(
        "this hash is on line {first} already: two names with one token would be one principal; \
         give each its own token (`overspill auth token NAME`)"
    )]
    DuplicateHash {
        /// The earlier line.
        first: usize,
    },
}

impl Principal {
    /// Every request of a listener without a token.
    pub fn local() -> Principal {
        Principal(Who::Local)
    }

    /// Every request with the one token of `--auth-token-env`.
    pub fn shared() -> Principal {
        Principal(Who::Shared)
    }

    /// The principal's name: its name in the tokens file, or `shared` or `local`.
    pub fn name(&self) -> &str {
        match &self.0 {
            Who::Local => LOCAL,
            Who::Shared => SHARED,
            Who::Named(name) => name,
        }
    }

    /// Whether the principal is one of the tokens file's (not `shared` or `local`).
    pub fn is_named(&self) -> bool {
        matches!(self.0, Who::Named(_))
    }
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Principal").field(&self.name()).finish()
    }
}

impl fmt::Debug for Issued {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Issued")
            .field("token", &"(hidden)")
            .field("line", &"(hidden)")
            .finish()
    }
}

impl Tokens {
    /// Reads the tokens file at `path`. A file that names nobody is valid: it admits no one.
    ///
    /// # Errors
    ///
    /// [`TokensError::Read`], [`TokensError::TooLarge`], or [`TokensError::Line`] for the
    /// first line that is not a principal.
    pub fn load(path: impl Into<PathBuf>) -> Result<Tokens, TokensError> {
        let path = path.into();
        let table = read(&path)?;
        Ok(Tokens(Arc::new(Source {
            path,
            table: RwLock::new(Arc::new(table)),
        })))
    }

    /// How many principals `text` would name as the tokens file at `path` (which only names
    /// it in errors): for a tool that edits the file to check the result before it writes it.
    ///
    /// # Errors
    ///
    /// [`TokensError::Line`] for the first line that is not a principal.
    pub fn check(path: &Path, text: &str) -> Result<usize, TokensError> {
        Table::of_file(path, text).map(|table| table.entries.len())
    }

    /// The file the principals are read from.
    pub fn path(&self) -> &Path {
        &self.0.path
    }

    /// How many principals the table read last has.
    pub fn len(&self) -> usize {
        self.table().entries.len()
    }

    /// Whether the table read last admits no one.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The principal whose token `token` is, if any. The token's hash is compared with every
    /// entry's, each in constant time.
    pub fn principal(&self, token: &str) -> Option<Principal> {
        let hash = hash_of(token);
        let table = self.table();
        let mut found = None;
        for entry in &table.entries {
            if super::same(&hash, &entry.hash) {
                found = Some(&entry.principal);
            }
        }
        found.cloned()
    }

    /// Reads the file again and, if it is valid, makes it the table requests are looked up
    /// in; else the table stays as it was. Returns the number of principals now.
    ///
    /// # Errors
    ///
    /// As [`Tokens::load`]; the table read before stays.
    pub fn reload(&self) -> Result<usize, TokensError> {
        let table = read(&self.0.path)?;
        let count = table.entries.len();
        *self.0.table.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(table);
        Ok(count)
    }

    /// On every SIGHUP, [`reload`](Tokens::reload)s the file, logging (with `tracing`) how
    /// many principals it holds, or, when it is refused, a warning saying why (the old table
    /// stays). The handler is in place when this returns, so a SIGHUP from then on no longer
    /// ends the process. Unix only: elsewhere there is no SIGHUP and this does nothing.
    ///
    /// # Errors
    ///
    /// The signal handler could not be installed (no thread or runtime could be started).
    pub fn reload_on_hangup(&self) -> std::io::Result<()> {
        let tokens = self.clone();
        crate::on_hangup("overspill-tokens", move || tokens.reload_and_log())
    }

    /// A new random token for the principal `name`, and the line that names it in a tokens
    /// file.
    ///
    /// # Errors
    ///
    /// [`TokensError::Name`] when `name` cannot be a principal's, [`TokensError::Random`]
    /// without a random source.
    pub fn issue(name: &str) -> Result<Issued, TokensError> {
        check_name(name).map_err(TokensError::Name)?;
        let mut bytes = [0u8; TOKEN_BYTES];
        getrandom::fill(&mut bytes).map_err(|error| TokensError::Random {
            error: error.to_string(),
        })?;
        let token = hex(&bytes);
        let line = line(name, &token);
        Ok(Issued { token, line })
    }

    /// The table read last.
    fn table(&self) -> Arc<Table> {
        Arc::clone(&self.0.table.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// [`reload`](Tokens::reload), saying how it went in the log.
    fn reload_and_log(&self) {
        let path = self.0.path.display();
        match self.reload() {
            Ok(principals) => {
                tracing::info!(%path, principals, "reloaded the tokens file");
                if principals == 0 {
                    tracing::warn!(%path, "the tokens file names no principal: every request is refused");
                }
            }
            Err(error) => tracing::warn!(
                "the tokens file is refused ({error}); the tokens read before stay in use"
            ),
        }
    }
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("path", &self.0.path)
            .field("principals", &self.len())
            .finish()
    }
}

/// The fixed principal of a listener without a token.
const LOCAL: &str = "local";

/// The fixed principal of the `--auth-token-env` token.
const SHARED: &str = "shared";

/// The longest principal name.
const MAX_NAME: usize = 64;

/// The bytes of a new token.
const TOKEN_BYTES: usize = 32;

/// The largest tokens file read: some twelve thousand principals.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// What `--auth-tokens` names, and its table read last.
struct Source {
    path: PathBuf,
    table: RwLock<Arc<Table>>,
}

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Who {
    Local,
    Shared,
    Named(Arc<str>),
}

/// The principals of one reading of the file.
#[derive(Default)]
struct Table {
    entries: Vec<Entry>,
}

struct Entry {
    principal: Principal,
    hash: [u8; 32],
}

impl Table {
    /// [`Table::parse`], a bad line named with the file's `path`.
    fn of_file(path: &Path, text: &str) -> Result<Table, TokensError> {
        Table::parse(text).map_err(|(line, problem)| TokensError::Line {
            path: path.to_owned(),
            line,
            problem,
        })
    }

    /// The principals of a tokens file's text, or the first bad line (numbered from 1) and
    /// what is wrong with it.
    fn parse(text: &str) -> Result<Table, (usize, LineProblem)> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut lines: Vec<usize> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            // Neither a name nor a hash has a `#`: what follows one is a comment.
            let content = raw.split('#').next().unwrap_or_default();
            let fields: Vec<&str> = content.split_whitespace().collect();
            if fields.is_empty() {
                continue;
            }
            let [name, hash] = fields[..] else {
                return Err((
                    number,
                    LineProblem::Shape {
                        fields: fields.len(),
                    },
                ));
            };
            check_name(name).map_err(|problem| (number, problem))?;
            let hash = parse_hash(hash).ok_or((number, LineProblem::Hash))?;
            for (entry, &first) in entries.iter().zip(&lines) {
                if entry.principal.name().eq_ignore_ascii_case(name) {
                    let name = name.to_owned();
                    return Err((number, LineProblem::DuplicateName { name, first }));
                }
                if entry.hash == hash {
                    return Err((number, LineProblem::DuplicateHash { first }));
                }
            }
            entries.push(Entry {
                principal: Principal(Who::Named(Arc::from(name))),
                hash,
            });
            lines.push(number);
        }
        Ok(Table { entries })
    }
}

/// The table of the file at `path`.
fn read(path: &Path) -> Result<Table, TokensError> {
    use std::io::Read;
    let failed = |error| TokensError::Read {
        path: path.to_owned(),
        error,
    };
    let file = std::fs::File::open(path).map_err(failed)?;
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(failed)?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(TokensError::TooLarge {
            path: path.to_owned(),
        });
    }
    Table::of_file(path, &text)
}

/// `Ok` when `name` may name a principal of the file.
fn check_name(name: &str) -> Result<(), LineProblem> {
    let allowed = |byte: u8| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-');
    let valid = name.len() <= MAX_NAME
        && name
            .as_bytes()
            .first()
            .is_some_and(u8::is_ascii_alphanumeric)
        && name.bytes().all(allowed);
    if !valid {
        return Err(LineProblem::Name);
    }
    if name.eq_ignore_ascii_case(LOCAL) || name.eq_ignore_ascii_case(SHARED) {
        return Err(LineProblem::Reserved {
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// The hash of `sha256:<64 hex digits>` (either case).
fn parse_hash(field: &str) -> Option<[u8; 32]> {
    let digits = field.strip_prefix("sha256:")?.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let mut hash = [0u8; 32];
    for (byte, pair) in hash.iter_mut().zip(digits.chunks_exact(2)) {
        let high = char::from(pair[0]).to_digit(16)?;
        let low = char::from(pair[1]).to_digit(16)?;
        *byte = u8::try_from(high * 16 + low).ok()?;
    }
    Some(hash)
}

/// A token's line in the tokens file.
fn line(name: &str, token: &str) -> String {
    format!("{name} sha256:{}", hex(&hash_of(token)))
}

fn hash_of(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests;
