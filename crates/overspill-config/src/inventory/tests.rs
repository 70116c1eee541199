use super::*;

fn inventory(args: &[&str]) -> ToolInventory {
    let mut tools = ToolInventory::new();
    for arg in args {
        tools.add_arg(arg).unwrap();
    }
    tools
}

#[test]
fn tools_arg_parses_server_and_comma_separated_tools() {
    let tools = inventory(&["k8s = a, b ,c", "k8s=a,d"]);
    assert_eq!(tools.tools("k8s"), ["a", "b", "c", "d"]);
    assert!(tools.tools("web").is_empty());
}

#[test]
fn malformed_tools_args_are_rejected_with_the_expected_form() {
    let mut tools = ToolInventory::new();
    let err = tools.add_arg("k8s").unwrap_err();
    assert_eq!(err, ToolListError::MissingEquals { arg: "k8s".into() });
    assert_eq!(
        err.to_string(),
        r#"--tools "k8s": expected SERVER=TOOL[,TOOL…], e.g. k8s=k8s_list_pods,k8s_get"#
    );
    assert!(matches!(
        tools.add_arg("=a"),
        Err(ToolListError::EmptyServer { .. })
    ));
    assert!(matches!(
        tools.add_arg("k8s="),
        Err(ToolListError::EmptyTool { .. })
    ));
    assert!(matches!(
        tools.add_arg("k8s=a,,b"),
        Err(ToolListError::EmptyTool { .. })
    ));
    assert!(tools.is_empty());
}
