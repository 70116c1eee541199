//! Tool names per server, as a host learns them from each server's
//! `tools/list` or as `overspill config check --tools server=a,b,c` gives them.

use std::collections::BTreeMap;

use crate::location::quoted;

/// Tool names per server: what a host learns from each server's `tools/list`,
/// or what `--tools server=a,b,c` says. Keeps the order given, without
/// duplicates.
///
/// ```
/// use overspill_config::ToolInventory;
///
/// let mut tools = ToolInventory::new();
/// tools.add_arg("k8s=k8s_list_pods,k8s_get")?;
/// tools.add_arg("k8s=k8s_get,k8s_logs")?;
/// assert_eq!(tools.tools("k8s"), ["k8s_list_pods", "k8s_get", "k8s_logs"]);
/// # Ok::<(), overspill_config::ToolListError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolInventory {
    servers: BTreeMap<String, Vec<String>>,
}

/// A `--tools` argument that is not `SERVER=TOOL[,TOOL…]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolListError {
    /// No `=` between the server and its tools.
    #[error("--tools {}: expected SERVER=TOOL[,TOOL…], e.g. k8s=k8s_list_pods,k8s_get", quoted(.arg))]
    MissingEquals {
        /// The argument.
        arg: String,
    },
    /// Nothing before the `=`.
    #[error("--tools {}: name the server before `=`, e.g. k8s=k8s_list_pods", quoted(.arg))]
    EmptyServer {
        /// The argument.
        arg: String,
    },
    /// An empty tool name (nothing after `=`, or `a,,b`).
    #[error("--tools {}: a tool name is empty; list tools separated by single commas", quoted(.arg))]
    EmptyTool {
        /// The argument.
        arg: String,
    },
}

impl ToolInventory {
    /// An empty inventory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tools` to `server`'s list (names already there are skipped).
    pub fn add<T: AsRef<str>>(&mut self, server: &str, tools: impl IntoIterator<Item = T>) {
        let list = self.servers.entry(server.to_owned()).or_default();
        for tool in tools {
            let tool = tool.as_ref();
            if !list.iter().any(|known| known == tool) {
                list.push(tool.to_owned());
            }
        }
    }

    /// Adds one `SERVER=TOOL[,TOOL…]` argument; names are trimmed of spaces.
    ///
    /// # Errors
    ///
    /// [`ToolListError`] when the argument has no `=`, no server, or an empty
    /// tool name.
    pub fn add_arg(&mut self, arg: &str) -> Result<(), ToolListError> {
        let Some((server, tools)) = arg.split_once('=') else {
            return Err(ToolListError::MissingEquals {
                arg: arg.to_owned(),
            });
        };
        let server = server.trim();
        if server.is_empty() {
            return Err(ToolListError::EmptyServer {
                arg: arg.to_owned(),
            });
        }
        let tools: Vec<&str> = tools.split(',').map(str::trim).collect();
        if tools.iter().any(|tool| tool.is_empty()) {
            return Err(ToolListError::EmptyTool {
                arg: arg.to_owned(),
            });
        }
        self.add(server, tools);
        Ok(())
    }

    /// `server`'s tools, in the order given (empty for an unknown server).
    pub fn tools(&self, server: &str) -> &[String] {
        self.servers.get(server).map_or(&[], Vec::as_slice)
    }

    /// Every server and its tools, by server name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.servers
            .iter()
            .map(|(server, tools)| (server.as_str(), tools.as_slice()))
    }

    /// Whether no server was given.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

impl<'a> IntoIterator for &'a ToolInventory {
    type Item = (&'a String, &'a Vec<String>);
    type IntoIter = std::collections::btree_map::Iter<'a, String, Vec<String>>;

    fn into_iter(self) -> Self::IntoIter {
        self.servers.iter()
    }
}

#[cfg(test)]
mod tests;
