//! The names a proxy in front of several servers offers for their tools and prompts: each is
//! `<server><separator><name>` (`k8s__list_pods`), so two servers' `search` tools stay two
//! tools, and a call is routed back to its server under its original name.
//!
//! Every offered name matches `^[A-Za-z0-9_-]{1,64}$`, the rule model APIs enforce, and is at
//! most [`Namespace::max_len`] long, which leaves room for the prefix a client adds of its own
//! (Claude Code offers a tool of the MCP server it calls `overspill` as
//! `mcp__overspill__<name>`: 16 characters, the default room; a longer key needs a shorter
//! `max_len`). A name that is too long, or holds other characters, is written
//! with them replaced by `_`, cut, and ended with `-` and eight hex digits of a hash of the
//! original server and name: the same input gives the same name in every run, and two inputs
//! differ in their hash where their readable parts agree.
//!
//! ```
//! use overspill_mcp::Namespace;
//!
//! let names = Namespace::default().name_all(
//!     [("k8s", "list_pods"), ("docs", "search"), ("web", "search")],
//!     &["grep".to_owned()].into(),
//! );
//! assert_eq!(names.offered("k8s", "list_pods"), Some("k8s__list_pods"));
//! let origin = names.origin("web__search").unwrap();
//! assert_eq!((origin.server.as_str(), origin.name.as_str()), ("web", "search"));
//! let long = Namespace::default().name_all([("k8s", "x".repeat(80).as_str())], &Default::default());
//! assert_eq!(long.offered("k8s", &"x".repeat(80)).unwrap().len(), 48);
//! ```

use std::collections::{HashMap, HashSet};

use crate::error::ProxyError;

/// The separator between a server's name and its tool's, unless configured.
pub const DEFAULT_SEPARATOR: &str = "__";

/// The longest name offered unless configured: 64, the model APIs' limit, less 16 for a
/// client's own prefix (`mcp__overspill__`).
pub const DEFAULT_MAX_LEN: usize = 48;

/// The longest a name may be under any configuration: the model APIs' limit.
pub const MAX_NAME_LEN: usize = 64;

/// Hex digits of the hash that ends a shortened name.
const HASH_DIGITS: usize = 8;

/// The shortest `max_len` accepted: room for a readable part, `-` and the hash.
const MIN_MAX_LEN: usize = 16;

/// How offered names are made: the separator and the longest name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    separator: String,
    max_len: usize,
}

impl Default for Namespace {
    fn default() -> Namespace {
        Namespace {
            separator: DEFAULT_SEPARATOR.to_owned(),
            max_len: DEFAULT_MAX_LEN,
        }
    }
}

/// Where an offered name comes from: a server and the name it gave.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    /// The server's configured name.
    pub server: String,
    /// The tool's or prompt's own name on that server.
    pub name: String,
}

/// The offered names of one list (tools, or prompts), both ways.
#[derive(Debug, Clone, Default)]
pub struct NameTable {
    origins: HashMap<String, Origin>,
    offered: HashMap<Origin, String>,
}

impl Namespace {
    /// Names joined by `separator`, at most `max_len` characters long.
    ///
    /// # Errors
    /// [`ProxyError::InvalidNamespace`] for a separator that is empty, longer than 8
    /// characters or holds others than `A-Z a-z 0-9 _ -`, or a `max_len` outside 16 to 64.
    pub fn new(separator: &str, max_len: usize) -> Result<Namespace, ProxyError> {
        if separator.is_empty() || separator.len() > 8 || !separator.bytes().all(allowed) {
            return Err(ProxyError::InvalidNamespace(format!(
                "the separator {separator:?} must be 1 to 8 of the characters A-Z a-z 0-9 _ -"
            )));
        }
        if !(MIN_MAX_LEN..=MAX_NAME_LEN).contains(&max_len) {
            return Err(ProxyError::InvalidNamespace(format!(
                "the longest name, {max_len}, must be from {MIN_MAX_LEN} to {MAX_NAME_LEN}"
            )));
        }
        Ok(Namespace {
            separator: separator.to_owned(),
            max_len,
        })
    }

    /// The separator.
    pub fn separator(&self) -> &str {
        &self.separator
    }

    /// The longest name offered.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Names every `(server, name)` of one list, none equal to another or to a `reserved` name
    /// (the proxy's own tools). A pair given twice is named once. The names do not depend on
    /// the order of the list: a plain name that two pairs would share (`a` + `b__c` and `a__b`
    /// + `c`), or that is reserved, is given to neither; both are shortened with their hash.
    pub fn name_all<'a>(
        &self,
        entries: impl IntoIterator<Item = (&'a str, &'a str)>,
        reserved: &HashSet<String>,
    ) -> NameTable {
        let mut origins: Vec<(Origin, String)> = Vec::new();
        let mut seen = HashSet::new();
        let mut claims: HashMap<String, usize> = HashMap::new();
        for (server, name) in entries {
            let origin = Origin {
                server: server.to_owned(),
                name: name.to_owned(),
            };
            if !seen.insert(origin.clone()) {
                continue;
            }
            let plain = format!("{server}{}{name}", self.separator);
            *claims.entry(plain.clone()).or_default() += 1;
            origins.push((origin, plain));
        }
        let mut table = NameTable::default();
        // Plain names first, so that no shortened name can take one.
        let (plain, shortened): (Vec<_>, Vec<_>) = origins.into_iter().partition(|(_, plain)| {
            plain.len() <= self.max_len
                && plain.bytes().all(allowed)
                && claims.get(plain) == Some(&1)
                && !reserved.contains(plain)
        });
        for (origin, name) in plain {
            table.insert(name, origin);
        }
        // A hash salted again on the rare clash; which pair clashes cannot depend on order
        // unless two hashes of different origins agree in 32 bits.
        for (origin, plain) in shortened {
            let name = (0u32..)
                .map(|salt| self.shortened(&plain, &origin, salt))
                .find(|candidate| {
                    !reserved.contains(candidate) && !table.origins.contains_key(candidate)
                })
                .unwrap_or_default();
            table.insert(name, origin);
        }
        table
    }

    /// `plain` with its other characters replaced by `_`, cut to leave room for `-` and the
    /// hash of `origin` (with `salt` after a clash).
    fn shortened(&self, plain: &str, origin: &Origin, salt: u32) -> String {
        let keep = self.max_len - HASH_DIGITS - 1;
        let readable: String = plain
            .chars()
            .map(|c| {
                if c.is_ascii() && allowed(c as u8) {
                    c
                } else {
                    '_'
                }
            })
            .take(keep)
            .collect();
        let key = format!("{}\0{}\0{salt}", origin.server, origin.name);
        let hash = overspill::store::content_hash(key.as_bytes());
        format!("{readable}-{}", &hash[..HASH_DIGITS])
    }
}

impl NameTable {
    fn insert(&mut self, offered: String, origin: Origin) {
        self.origins.insert(offered.clone(), origin.clone());
        self.offered.insert(origin, offered);
    }

    /// The name offered for `server`'s `name`.
    pub fn offered(&self, server: &str, name: &str) -> Option<&str> {
        self.offered
            .get(&Origin {
                server: server.to_owned(),
                name: name.to_owned(),
            })
            .map(String::as_str)
    }

    /// The server and original name an offered name stands for.
    pub fn origin(&self, offered: &str) -> Option<&Origin> {
        self.origins.get(offered)
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.origins.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.origins.is_empty()
    }
}

/// Whether a byte may stand in an offered name: `A-Z a-z 0-9 _ -`.
fn allowed(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-')
}

#[cfg(test)]
mod tests;
