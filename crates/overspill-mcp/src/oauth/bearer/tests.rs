use super::*;

fn scopes(list: &[&str]) -> Vec<String> {
    list.iter().map(|scope| (*scope).to_owned()).collect()
}

#[test]
fn a_step_up_asks_for_the_scopes_granted_and_the_ones_challenged() {
    assert_eq!(
        union(&scopes(&["mcp:basic"]), "mcp:write"),
        scopes(&["mcp:basic", "mcp:write"])
    );
}

#[test]
fn a_step_up_names_each_scope_once_whatever_the_spacing() {
    assert_eq!(
        union(
            &scopes(&["files:read", "offline_access"]),
            "  files:write\tfiles:read "
        ),
        scopes(&["files:read", "files:write", "offline_access"])
    );
}

#[test]
fn a_challenge_without_scopes_asks_again_for_those_granted() {
    assert_eq!(union(&scopes(&["mcp"]), ""), scopes(&["mcp"]));
    assert_eq!(union(&[], "mcp:admin"), scopes(&["mcp:admin"]));
}
