use super::*;

fn lookup(name: &str) -> Option<String> {
    match name {
        "TOKEN" => Some("t0k".to_owned()),
        "EMPTY" => Some(String::new()),
        _ => None,
    }
}

#[test]
fn each_form_is_filled_in() {
    assert_eq!(
        expand_vars("Bearer ${TOKEN}", lookup).unwrap(),
        "Bearer t0k"
    );
    assert_eq!(expand_vars("${env:TOKEN}", lookup).unwrap(), "t0k");
    assert_eq!(
        expand_vars("${NOPE:-x}${EMPTY:-y}${EMPTY}", lookup).unwrap(),
        "xy"
    );
    assert_eq!(expand_vars("a $b $ {c}", lookup).unwrap(), "a $b $ {c}");
}

#[test]
fn what_cannot_be_filled_in_says_why() {
    assert_eq!(
        expand_vars("${NOPE}", lookup),
        Err(VarError::Unset("NOPE".to_owned()))
    );
    assert_eq!(expand_vars("a ${", lookup), Err(VarError::Unclosed));
    assert_eq!(expand_vars("${A:-${B}}", lookup), Err(VarError::Nested));
    assert_eq!(
        expand_vars("${input:token}", lookup),
        Err(VarError::NotAVariable("input:token".to_owned()))
    );
}
