use super::*;

#[test]
fn a_write_of_the_client_between_the_read_and_the_rename_is_kept_and_the_edit_made_again() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("client.json");
    std::fs::write(&file, "a").expect("write");
    let mut seen = Vec::new();
    let (said, before) = edit(&file, |now| {
        let now = String::from_utf8(now.expect("a file").to_vec()).expect("text");
        seen.push(now.clone());
        if seen.len() == 1 {
            // The client writes its file while overspill makes its edit.
            std::fs::write(&file, "ab").expect("the client's write");
        }
        Ok(Some((format!("{now}+ours").into_bytes(), seen.len())))
    })
    .expect("edit");
    assert_eq!(seen, ["a", "ab"]);
    assert_eq!(said, Some(2));
    assert_eq!(before.as_deref(), Some(b"ab".as_slice()));
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "ab+ours");
}

#[test]
fn a_file_written_without_pause_is_left_as_it_is_with_a_message() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("client.json");
    std::fs::write(&file, "0").expect("write");
    let mut count = 0;
    let error = edit(&file, |_| {
        count += 1;
        std::fs::write(&file, count.to_string()).expect("the client's write");
        Ok(Some((b"ours".to_vec(), ())))
    })
    .expect_err("it never settles");
    assert!(error.to_string().contains("kept changing"), "{error}");
    assert_ne!(std::fs::read_to_string(&file).expect("read"), "ours");
}

#[cfg(unix)]
#[test]
fn a_linked_file_is_edited_where_it_is_and_the_link_stays_a_link() {
    let dir = tempfile::tempdir().expect("dir");
    let dotfiles = dir.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).expect("dir");
    let real = dotfiles.join("claude.json");
    std::fs::write(&real, "old").expect("write");
    let link = dir.path().join(".claude.json");
    std::os::unix::fs::symlink("dotfiles/claude.json", &link).expect("link");
    edit(&link, |_| Ok(Some((b"new".to_vec(), ())))).expect("edit");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&real).expect("read"), "new");
    assert_eq!(real_path(&link), real);
}

#[cfg(unix)]
#[test]
fn a_thread_flipping_the_files_link_never_sees_a_part_of_an_edit() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().expect("dir");
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&a, "a").expect("a");
    std::fs::write(&b, "b").expect("b");
    let link = dir.path().join("client.json");
    std::os::unix::fs::symlink(&a, &link).expect("link");
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (stop, link, dir) = (stop.clone(), link.clone(), dir.path().to_owned());
        std::thread::spawn(move || {
            let mut flips = 0u64;
            while !stop.load(Ordering::SeqCst) {
                let target = if flips.is_multiple_of(2) {
                    "b.json"
                } else {
                    "a.json"
                };
                let next = dir.join("next-link");
                let _ = std::fs::remove_file(&next);
                std::os::unix::fs::symlink(target, &next).expect("link");
                std::fs::rename(&next, &link).expect("flip");
                flips += 1;
            }
        })
    };
    for _ in 0..200 {
        edit(&link, |now| {
            let mut now = now.map(<[u8]>::to_vec).unwrap_or_default();
            now.push(b'+');
            Ok(Some((now, ())))
        })
        .expect("edit");
    }
    stop.store(true, Ordering::SeqCst);
    flipper.join().expect("flipper");
    // Each edit went whole into one of the two files, which stayed regular files.
    let (a, b) = (
        std::fs::read_to_string(&a).expect("a"),
        std::fs::read_to_string(&b).expect("b"),
    );
    assert!(
        a.starts_with('a') && a[1..].chars().all(|c| c == '+'),
        "{a}"
    );
    assert!(
        b.starts_with('b') && b[1..].chars().all(|c| c == '+'),
        "{b}"
    );
    assert_eq!(a.len() + b.len() - 2, 200);
}
