//! Filling in `${VAR}` from the environment: the one reading of variables in what a user writes
//! for a server (docs/configuration.md#servers-to-front), in a servers file and in
//! `overspill mcp --header` alike.

/// Why a `${…}` cannot be filled in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VarError {
    /// The variable is not set and has no default.
    #[error("the variable {0} is not set; set it, or write `${{{0}:-default}}`")]
    Unset(String),
    /// `${` without its `}`.
    #[error("`${{` without a closing `}}`")]
    Unclosed,
    /// `${` inside `${…}`.
    #[error("`${{` inside `${{…}}`: a default is plain text")]
    Nested,
    /// What is between the braces names no variable.
    #[error(
        "`${{{0}}}` is not a variable overspill can fill in (it reads `${{VAR}}`, \
         `${{VAR:-default}}` and `${{env:VAR}}`); write the value itself"
    )]
    NotAVariable(String),
}

/// `text` with each `${VAR}`, `${VAR:-default}` and `${env:VAR}` (VS Code's spelling) replaced
/// by `lookup(VAR)`. As in a shell, `:-` takes the default when the variable is unset or
/// empty. A `$` not followed by `{` is kept as it is, so a shell command keeps its own `$x`.
///
/// ```
/// use overspill_config::{VarError, expand_vars};
///
/// let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_owned());
/// assert_eq!(expand_vars("Bearer ${TOKEN}", lookup).unwrap(), "Bearer s3cret");
/// assert_eq!(expand_vars("${REGION:-eu} $HOME", lookup).unwrap(), "eu $HOME");
/// assert_eq!(expand_vars("${NOPE}", lookup), Err(VarError::Unset("NOPE".to_owned())));
/// ```
///
/// # Errors
/// The first `${…}` that cannot be filled in, and why.
pub fn expand_vars(
    text: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, VarError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or(VarError::Unclosed)?;
        let inner = &after[..end];
        if inner.contains("${") {
            return Err(VarError::Nested);
        }
        let inner = inner.strip_prefix("env:").unwrap_or(inner);
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(VarError::NotAVariable(inner.to_owned()));
        }
        match (lookup(name), default) {
            (Some(value), Some(default)) if value.is_empty() => out.push_str(default),
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(VarError::Unset(name.to_owned())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests;
