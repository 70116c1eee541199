use super::*;

fn names(prefix: Option<&str>) -> ToolNames {
    ToolNames::new(prefix, ["schema".to_owned(), "grep".to_owned()]).unwrap()
}

#[test]
fn without_a_prefix_names_are_the_facade_names() {
    let names = names(None);
    assert_eq!(names.exposed("schema"), "schema");
    assert_eq!(names.local("grep"), Some("grep"));
    assert_eq!(names.local("read_file"), None);
}

#[test]
fn a_prefix_renames_every_exploration_tool() {
    let names = names(Some("sp_"));
    assert_eq!(names.exposed("grep"), "sp_grep");
    assert_eq!(names.local("sp_grep"), Some("grep"));
    assert_eq!(names.local("grep"), None);
    assert_eq!(names.local("sp_other"), None);
}

#[test]
fn an_upstream_tool_named_like_an_exploration_tool_is_a_clash() {
    assert_eq!(names(None).clash(["read_file", "grep"]), Some("grep"));
}

#[test]
fn a_prefix_resolves_the_clash() {
    assert_eq!(names(Some("sp_")).clash(["read_file", "grep"]), None);
    assert_eq!(names(None).with_prefix("sp_").clash(["grep"]), None);
}

#[test]
fn a_prefix_with_spaces_is_refused() {
    assert!(matches!(
        ToolNames::new(Some("my tools "), Vec::new()),
        Err(ProxyError::InvalidPrefix { .. })
    ));
}
