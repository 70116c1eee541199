use super::*;

#[test]
fn section_lists_each_artifact_for_read_artifact() {
    let section = input_artifacts_section(&["a.txt", "b.md"]);
    assert_eq!(
        section,
        "INPUT ARTIFACTS\n\
             This task comes with files produced earlier in this run. Before you start, load each \
             one with `read_artifact`, passing the file name exactly as shown:\n\
             - `a.txt`\n\
             - `b.md`\n\
             A small artifact comes back as its content. A large one comes back as a pointer: \
             explore it in place with the read tools (start with `schema`), passing the file \
             reference the pointer gives.\n"
    );
}

#[test]
fn task_without_artifacts_gets_no_section() {
    assert_eq!(input_artifacts_section::<String>(&[]), "");
}

#[test]
fn repeated_names_are_listed_once_and_control_chars_escaped() {
    let section = input_artifacts_section(&["a.txt", "a.txt", "b\nc.txt"]);
    assert_eq!(section.matches("- `a.txt`").count(), 1);
    assert!(section.contains("- `b\\nc.txt`\n"));
}
