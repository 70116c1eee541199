use super::*;

#[test]
fn the_median_is_the_middle_run() {
    let ms = Duration::from_millis;
    assert_eq!(median(vec![ms(9), ms(1), ms(4)]), ms(4));
    assert_eq!(median(Vec::new()), Duration::ZERO);
}

#[test]
fn the_input_is_a_small_bash_post_tool_use() {
    let input: serde_json::Value =
        serde_json::from_slice(&small_bash_input(Path::new("/tmp/pad"))).unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert!(input["tool_response"]["stdout"].as_str().unwrap().len() < 1_000);
}
