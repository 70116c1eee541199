//! The `INPUT ARTIFACTS` section of a worker's prompt (docs/artifacts.md).

/// The heading the section starts with.
pub const INPUT_ARTIFACTS_HEADING: &str = "INPUT ARTIFACTS";

/// The `INPUT ARTIFACTS` prompt section for a task that lists `names`: it tells the worker to
/// load each file with `read_artifact` before it starts. Empty when `names` is empty (a task
/// without artifacts gets no section). Repeated names are listed once, in first-seen order.
///
/// ```
/// use overspill_artifacts::input_artifacts_section;
///
/// let section = input_artifacts_section(&["task-1-result.txt", "coordinator-plan.md"]);
/// assert!(section.starts_with("INPUT ARTIFACTS\n"));
/// assert!(section.contains("- `task-1-result.txt`\n- `coordinator-plan.md`\n"));
/// assert_eq!(input_artifacts_section::<&str>(&[]), "");
/// ```
pub fn input_artifacts_section<S: AsRef<str>>(names: &[S]) -> String {
    let mut seen: Vec<&str> = Vec::with_capacity(names.len());
    for name in names {
        let name = name.as_ref();
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    if seen.is_empty() {
        return String::new();
    }
    let mut section = format!(
        "{INPUT_ARTIFACTS_HEADING}\nThis task comes with files produced earlier in this run. Before \
         you start, load each one with `read_artifact`, passing the file name exactly as shown:\n"
    );
    for name in seen {
        section.push_str("- `");
        // A name is one line of the prompt: show control characters escaped, never raw.
        for c in name.chars() {
            if c.is_control() {
                section.extend(c.escape_default());
            } else {
                section.push(c);
            }
        }
        section.push_str("`\n");
    }
    section.push_str(
        "A small artifact comes back as its content. A large one comes back as a pointer: explore \
         it in place with the read tools (start with `schema`), passing the file reference the \
         pointer gives.\n",
    );
    section
}

#[cfg(test)]
mod tests;
