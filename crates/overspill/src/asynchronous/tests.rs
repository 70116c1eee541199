use crate::{Intercepted, Scratchpad, ToolOutput};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_intercept_and_call_match_the_blocking_ones() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .intercept_all(50)
        .build_async()
        .await
        .unwrap();
    let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
    let Intercepted::Pointer(pointer) = pad
        .intercept_async("s", "logs", ToolOutput::text(text.clone()))
        .await
    else {
        panic!("over threshold");
    };
    assert_eq!(
        pad.intercept("s", "logs", ToolOutput::text(text)),
        Intercepted::Pointer(pointer.clone())
    );
    let file = pointer
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .unwrap();
    let args = format!(r#"{{"file": "{file}", "lines": 2}}"#);
    let text = pad.call_async("head", &args).await;
    assert!(
        text.starts_with("1: line 0\n2: line 1\n--- head:"),
        "{text}"
    );
}
