use super::*;

fn generated(shape: Shape, bytes: u64) -> Vec<u8> {
    let mut out = Vec::new();
    generate(shape, bytes, &mut out).unwrap();
    out
}

#[test]
fn every_shape_reaches_its_size_and_stops_soon_after() {
    for shape in Shape::ALL {
        let out = generated(shape, 200_000);
        assert!(out.len() >= 200_000, "{shape:?}: {}", out.len());
        assert!(out.len() < 210_000, "{shape:?}: {}", out.len());
    }
}

#[test]
fn the_same_shape_and_size_give_the_same_bytes() {
    for shape in Shape::ALL {
        assert_eq!(
            generated(shape, 50_000),
            generated(shape, 50_000),
            "{shape:?}"
        );
    }
}

#[test]
fn json_shapes_are_valid_json_with_their_items() {
    for (shape, list) in [
        (Shape::PodsPretty, "items"),
        (Shape::PodsCompact, "items"),
        (Shape::SearchHits, "hits"),
    ] {
        let out = generated(shape, 100_000);
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let items = value[list].as_array().unwrap();
        assert!(items.len() > 10, "{shape:?}");
    }
}

#[test]
fn pretty_and_compact_pods_are_the_same_document() {
    let pretty = generated(Shape::PodsPretty, 300_000);
    let pretty: serde_json::Value = serde_json::from_slice(&pretty).unwrap();
    let n = pretty["items"].as_array().unwrap().len();
    // The compact list of the same length holds the same pods.
    let compact = generated(Shape::PodsCompact, 100_000);
    let compact: serde_json::Value = serde_json::from_slice(&compact).unwrap();
    let m = compact["items"].as_array().unwrap().len();
    assert!(m < n);
    assert_eq!(
        pretty["items"].as_array().unwrap()[..m],
        compact["items"].as_array().unwrap()[..]
    );
}

#[test]
fn pretty_pods_are_indented_as_serde_json_prints_them() {
    let out = generated(Shape::PodsPretty, 50_000);
    let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let mut printed = serde_json::to_vec_pretty(&value).unwrap();
    printed.push(b'\n');
    assert_eq!(
        String::from_utf8(out).unwrap(),
        String::from_utf8(printed).unwrap()
    );
}

#[test]
fn pod_lists_have_the_facts_the_benches_ask_about() {
    let out = generated(Shape::PodsCompact, 2_000_000);
    let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let items = value["items"].as_array().unwrap();
    let failed = items
        .iter()
        .filter(|p| p["status"]["phase"] == "Failed")
        .count();
    let crashing = items
        .iter()
        .filter(|p| p["status"]["containerStatuses"][0]["restartCount"].as_u64() > Some(10))
        .count();
    assert!(failed > 0 && failed < items.len() / 10, "{failed}");
    assert!(crashing > 0, "{crashing}");
}

#[test]
fn search_hits_carry_json_inside_a_string() {
    let out = generated(Shape::SearchHits, 20_000);
    let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let message = value["hits"][0]["message"].as_str().unwrap();
    let inner: serde_json::Value = serde_json::from_str(message).unwrap();
    assert!(inner["trace_id"].as_str().is_some_and(|t| t.len() == 32));
}

#[test]
fn logs_have_every_level() {
    let out = String::from_utf8(generated(Shape::Log, 200_000)).unwrap();
    for level in ["INFO ", "DEBUG", "WARN ", "ERROR"] {
        assert!(out.contains(level), "{level}");
    }
    assert!(out.lines().all(|l| l.contains(" request_id=")));
}

#[test]
fn ensure_generates_once_and_names_by_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = ensure_in(dir.path(), Shape::Log, 2 * MB).unwrap();
    assert_eq!(path.file_name().unwrap(), "app-2MB.log");
    fs::write(&path, "kept").unwrap();
    let again = ensure_in(dir.path(), Shape::Log, 2 * MB).unwrap();
    assert_eq!(fs::read_to_string(again).unwrap(), "kept");
    assert_eq!(Shape::PodsPretty.file_name(1_500), "pods-pretty-1500B.json");
}
