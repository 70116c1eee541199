use super::*;

#[test]
fn the_failure_notice_names_tool_size_and_cause_but_no_path() {
    let error = StoreError::Write {
        path: "/srv/secret/place/x.json".into(),
        error: std::io::Error::from_raw_os_error(20),
    };
    let notice = failure_notice("k8s_list_pods", 1_234_567, 312_345, &error);
    assert!(notice.starts_with(
        "[overspill] The result of `k8s_list_pods` (1,234,567 bytes, 312,345 tokens) was too large"
    ));
    assert!(notice.contains("Not a directory"), "{notice}");
    assert!(!notice.contains("/srv/secret"), "{notice}");
}
