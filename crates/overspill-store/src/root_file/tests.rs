use super::*;

fn dir_with(name: &str, content: &[u8]) -> (tempfile::TempDir, Dir) {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join(name), content).unwrap();
    let dir = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
    (tmp, dir)
}

fn open(dir: &Dir, name: &str, follow: FollowSymlinks) -> Result<RootFile, OpenFailure> {
    open_regular(
        dir,
        Path::new(name),
        PathBuf::from(name),
        follow,
        Links::One,
    )
}

#[test]
fn a_regular_file_is_read_whole() {
    let (_tmp, dir) = dir_with("a.txt", b"one\ntwo\n");
    let mut file = open(&dir, "a.txt", FollowSymlinks::Yes).unwrap();
    assert_eq!(file.len(), 8);
    assert_eq!(file.read_to_end().unwrap(), b"one\ntwo\n");
    // Again, from the start.
    assert_eq!(file.read_to_end().unwrap(), b"one\ntwo\n");
}

#[test]
fn a_file_grown_after_the_open_gives_the_bytes_it_had() {
    let (tmp, dir) = dir_with("a.log", b"first\n");
    let mut file = open(&dir, "a.log", FollowSymlinks::Yes).unwrap();
    let mut append = fs::OpenOptions::new()
        .append(true)
        .open(tmp.path().join("a.log"))
        .unwrap();
    std::io::Write::write_all(&mut append, b"second\n").unwrap();
    assert_eq!(file.read_to_end().unwrap(), b"first\n");
    assert_eq!(file.len(), 6);
}

#[test]
fn a_file_cut_short_after_the_open_is_read_at_its_new_size() {
    let (tmp, dir) = dir_with("a.log", b"first\nsecond\n");
    let mut file = open(&dir, "a.log", FollowSymlinks::Yes).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(tmp.path().join("a.log"))
        .unwrap()
        .set_len(3)
        .unwrap();
    assert_eq!(file.read_to_end().unwrap(), b"fir");
    assert_eq!(file.len(), 3);
}

#[test]
fn a_directory_is_refused_as_one() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir(tmp.path().join("sub")).unwrap();
    let dir = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
    assert!(matches!(
        open(&dir, "sub", FollowSymlinks::Yes),
        Err(OpenFailure::Directory)
    ));
}

#[cfg(unix)]
#[test]
fn a_symlink_is_refused_when_not_followed_and_read_when_followed() {
    let (tmp, dir) = dir_with("a.txt", b"a");
    std::os::unix::fs::symlink("a.txt", tmp.path().join("link")).unwrap();
    assert!(matches!(
        open(&dir, "link", FollowSymlinks::No),
        Err(OpenFailure::Special(_))
    ));
    let mut file = open(&dir, "link", FollowSymlinks::Yes).unwrap();
    assert_eq!(file.read_to_end().unwrap(), b"a");
}

#[cfg(unix)]
#[test]
fn a_file_with_two_links_is_refused_with_links_one_and_read_with_links_any() {
    let (tmp, dir) = dir_with("a.txt", b"a");
    fs::hard_link(tmp.path().join("a.txt"), tmp.path().join("b.txt")).unwrap();
    for name in ["a.txt", "b.txt"] {
        assert!(matches!(
            open(&dir, name, FollowSymlinks::Yes),
            Err(OpenFailure::Linked(2))
        ));
    }
    // The host's own small files are read whatever their links (a `cp -al` backup).
    assert_eq!(read_small_in(&dir, "a.txt", 64).unwrap(), b"a");
}

#[cfg(unix)]
#[test]
fn a_socket_is_refused_without_connecting() {
    let tmp = tempfile::tempdir().unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(tmp.path().join("sock")).unwrap();
    let dir = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
    match open(&dir, "sock", FollowSymlinks::Yes) {
        Err(OpenFailure::Special(kind)) => assert_eq!(kind, "a socket"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}
