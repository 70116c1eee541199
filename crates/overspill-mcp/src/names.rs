//! Names of the exploration tools as the client sees them, and clashes with upstream tools.

use std::collections::HashSet;

use crate::error::ProxyError;

/// The exploration tools' names as the client sees them: the facade's names behind an
/// optional prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolNames {
    prefix: String,
    local: HashSet<String>,
}

impl ToolNames {
    /// The names for `local` exploration tools behind `prefix` (`""` for none).
    ///
    /// # Errors
    ///
    /// [`ProxyError::InvalidPrefix`] when the prefix holds characters an MCP tool name
    /// must not, or is longer than 32 characters.
    pub fn new(
        prefix: Option<&str>,
        local: impl IntoIterator<Item = String>,
    ) -> Result<ToolNames, ProxyError> {
        let prefix = prefix.unwrap_or_default();
        let valid = prefix.len() <= 32
            && prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !valid {
            return Err(ProxyError::InvalidPrefix {
                prefix: prefix.to_owned(),
            });
        }
        Ok(ToolNames {
            prefix: prefix.to_owned(),
            local: local.into_iter().collect(),
        })
    }

    /// The name the client sees for the exploration tool `local`.
    pub fn exposed(&self, local: &str) -> String {
        format!("{}{local}", self.prefix)
    }

    /// The exploration tool the client's `name` calls, if it calls one.
    pub fn local<'a>(&self, name: &'a str) -> Option<&'a str> {
        let rest = name.strip_prefix(self.prefix.as_str())?;
        self.local.contains(rest).then_some(rest)
    }

    /// The first upstream tool (in the order given) whose name an exploration tool also has.
    pub fn clash<'a>(&self, upstream: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
        upstream.into_iter().find(|name| self.local(name).is_some())
    }

    /// The same tools behind another prefix (one [`ToolNames::new`] accepted, or made by the
    /// proxy from letters, digits and `_`).
    pub fn with_prefix(&self, prefix: &str) -> ToolNames {
        ToolNames {
            prefix: prefix.to_owned(),
            local: self.local.clone(),
        }
    }
}

#[cfg(test)]
mod tests;
