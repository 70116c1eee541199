use super::*;

async fn all_lines(input: &[u8], limit: usize) -> Vec<Line> {
    let mut reader = tokio::io::BufReader::with_capacity(4, input);
    let mut lines = Vec::new();
    while let Some(line) = next_line(&mut reader, limit).await.unwrap() {
        lines.push(line);
    }
    lines
}

#[tokio::test]
async fn lines_are_split_on_newlines_without_their_endings_and_blank_ones_skipped() {
    let lines = all_lines(b"{\"a\":1}\r\n\n  \n{\"b\":2}", 100).await;
    assert_eq!(
        lines,
        [
            Line::Text("{\"a\":1}".into()),
            Line::Text("{\"b\":2}".into())
        ]
    );
}

#[tokio::test]
async fn a_line_over_the_limit_is_skipped_and_the_next_one_read() {
    let lines = all_lines(b"0123456789abcdef\nok\n", 8).await;
    assert_eq!(
        lines,
        [
            Line::TooLong {
                head: b"0123456789abcdef".to_vec(),
                tail: b"0123456789abcdef".to_vec()
            },
            Line::Text("ok".into())
        ]
    );
}

#[tokio::test]
async fn a_line_over_the_limit_keeps_only_its_first_and_last_bytes() {
    let mut long = b"{\"id\":1,".to_vec();
    long.extend(std::iter::repeat_n(b'x', 3 * KEPT_ENDS));
    long.extend_from_slice(b"\"end\"}\n");
    let lines = all_lines(&long, KEPT_ENDS + 10).await;
    let [Line::TooLong { head, tail }] = lines.as_slice() else {
        panic!("{lines:?}");
    };
    assert_eq!(head.as_slice(), &long[..KEPT_ENDS]);
    assert_eq!(
        tail.as_slice(),
        &long[long.len() - 1 - KEPT_ENDS..long.len() - 1]
    );
}

#[tokio::test]
async fn bytes_that_are_not_utf8_are_reported() {
    let lines = all_lines(b"\xff\xfe\nok\n", 8).await;
    assert_eq!(
        lines,
        [Line::NotUtf8(b"\xff\xfe".to_vec()), Line::Text("ok".into())]
    );
}
