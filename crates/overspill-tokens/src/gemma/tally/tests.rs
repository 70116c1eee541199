use super::*;
use crate::gemma::GEMMA3;

fn tally_of<'t>(text: &'t str) -> Tally<'static, 't> {
    let model: &'static Gemma3 = &GEMMA3;
    let mut offset = 0;
    let batch = model
        .cuts
        .chunks(text, 1)
        .map(|chunk| {
            offset += chunk.len();
            offset - chunk.len()..offset
        })
        .collect();
    Tally {
        model,
        text,
        memo: HashMap::new(),
        batch,
        total: 0,
    }
}

#[test]
fn a_flushed_batch_teaches_the_count_of_each_chunk() {
    let text = "{\"name\": \"api\", \"ready\": true} 漢字 > </b>";
    let mut tally = tally_of(text);
    let chunks: Vec<&str> = tally.batch.iter().map(|r| &text[r.clone()]).collect();
    assert!(chunks.len() > 5, "{chunks:?}");
    tally.flush();
    assert_eq!(tally.total, GEMMA3.encode_chunk(text).len());
    assert!(tally.batch.is_empty());
    for chunk in chunks {
        let taught = tally.memo.get(chunk).copied();
        let alone = GEMMA3.encode_chunk(chunk).len() as u32;
        assert_eq!(taught, Some(alone), "chunk {chunk:?}");
    }
}

#[test]
fn long_chunks_are_counted_but_not_remembered() {
    let text = "a".repeat(LONGEST_REMEMBERED_CHUNK + 1);
    let mut tally = tally_of(&text);
    tally.flush();
    assert_eq!(tally.total, GEMMA3.encode_chunk(&text).len());
    assert!(tally.memo.is_empty());
}

#[test]
fn model_bytes_widens_each_space_to_three_bytes() {
    assert_eq!(model_bytes("a b  c"), 6 + 2 * 3);
    assert_eq!(model_bytes("▁"), 3);
    assert_eq!(model_bytes(""), 0);
}
