use super::*;

#[test]
fn eight_threads_each_with_its_own_open_file_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agents").join("a.budget");
    std::thread::scope(|scope| {
        for _ in 0..8 {
            let path = path.clone();
            scope.spawn(move || {
                // Each thread opens the file itself, as another process would.
                let counter = CounterFile::new(path);
                for _ in 0..50 {
                    counter.update(&mut |now| Some(now + 3)).unwrap();
                }
            });
        }
    });
    assert_eq!(
        CounterFile::new(&path).update(&mut |_| None).unwrap(),
        8 * 50 * 3
    );
}

#[test]
fn a_decision_to_keep_the_number_writes_nothing_and_a_file_of_text_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let counter = CounterFile::new(dir.path().join("c"));
    assert_eq!(counter.update(&mut |now| Some(now + 10)).unwrap(), 10);
    assert_eq!(counter.update(&mut |_| None).unwrap(), 10);
    std::fs::write(counter.path(), "ten").unwrap();
    assert!(counter.update(&mut |_| None).is_err());
}
