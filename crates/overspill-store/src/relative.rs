//! Relative references between directories of one layout, for pointers.

use std::path::{Component, Path};

/// The path of `target` relative to the directory `from_dir`, with `/` separators, as a
/// pointer should name it: `target` itself when both are in one directory, `../../artifacts/x.txt`
/// from a worker's scratchpad to a run artifact.
///
/// Both paths are normalised lexically (`.` dropped, `..` applied) and never touch the file
/// system, so pass paths built from one [`crate::Layout`]. Returns `None` when no relative
/// path exists: one path is absolute and the other is not, they sit on different Windows
/// drives, a relative path climbs above its start, or a component is not UTF-8. `"."` when
/// `target` is `from_dir`.
///
/// ```
/// use std::path::Path;
/// use overspill_store::relative_ref;
///
/// let scratchpad = Path::new("/m/s1/run-7/iteration-2/scratchpad");
/// let artifact = Path::new("/m/s1/run-7/artifacts/x.txt");
/// assert_eq!(relative_ref(scratchpad, artifact).as_deref(), Some("../../artifacts/x.txt"));
/// assert_eq!(relative_ref(scratchpad, &scratchpad.join("a.json")).as_deref(), Some("a.json"));
/// assert_eq!(relative_ref(Path::new("relative/dir"), artifact), None);
/// ```
pub fn relative_ref(from_dir: &Path, target: &Path) -> Option<String> {
    let from = normalise(from_dir)?;
    let to = normalise(target)?;
    if from.anchor != to.anchor {
        return None;
    }
    let common = from
        .names
        .iter()
        .zip(&to.names)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<&str> = vec![".."; from.names.len() - common];
    parts.extend(to.names[common..].iter().copied());
    Some(if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    })
}

/// A lexically normalised path: its anchor (prefix and root, empty when relative) and names.
struct Normalised<'a> {
    anchor: Vec<Component<'a>>,
    names: Vec<&'a str>,
}

fn normalise(path: &Path) -> Option<Normalised<'_>> {
    let mut anchor = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => anchor.push(component),
            Component::CurDir => {}
            Component::ParentDir => {
                // `/..` is `/`; a relative path may not climb above its start.
                if names.pop().is_none() && anchor.is_empty() {
                    return None;
                }
            }
            Component::Normal(name) => names.push(name.to_str()?),
        }
    }
    Some(Normalised { anchor, names })
}

#[cfg(test)]
mod tests;
