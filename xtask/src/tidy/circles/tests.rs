use super::*;

#[test]
fn use_groups_are_spread_into_paths() {
    let mut out = Vec::new();
    tree("{a, b::{c, self}, d::e}; rest", "", &mut out);
    assert_eq!(out, ["a", "b::c", "b", "d::e"]);
}

#[test]
fn a_circle_between_siblings_is_found_and_a_parent_child_pair_is_not() {
    let src = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = src.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    write("lib.rs", "//! x\nmod a;\nmod b;\nmod c;\nmod p;\n");
    write("a.rs", "//! a\nuse crate::b::Thing;\n");
    write(
        "b.rs",
        "//! b\nuse crate::{c::Other, p};\n// crate::a in a comment is no use\n",
    );
    write(
        "c.rs",
        "//! c\nfn f() { crate::a::g() }\n#[cfg(test)]\nmod tests { use crate::p; }\n",
    );
    write("p/mod.rs", "//! p\nmod q;\nuse self::q::Q;\n");
    write("p/q.rs", "//! q\nuse super::P;\n");
    let found = problems("k", src.path()).unwrap();
    assert_eq!(
        found,
        [Problem::ModuleCircle {
            krate: "k".to_owned(),
            modules: vec!["a".to_owned(), "b".to_owned(), "c".to_owned()],
        }]
    );
}
