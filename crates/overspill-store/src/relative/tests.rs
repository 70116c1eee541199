use super::*;

fn rel(from: &str, to: &str) -> Option<String> {
    relative_ref(Path::new(from), Path::new(to))
}

#[test]
fn worker_pointer_names_a_run_artifact_two_levels_up() {
    assert_eq!(
        rel("/m/run/iteration-1/scratchpad", "/m/run/artifacts/x.txt").as_deref(),
        Some("../../artifacts/x.txt")
    );
}

#[test]
fn same_directory_gives_the_bare_name_and_the_dir_itself_gives_dot() {
    assert_eq!(
        rel("/m/scratchpad", "/m/scratchpad/t-1.json").as_deref(),
        Some("t-1.json")
    );
    assert_eq!(rel("/m/scratchpad/", "/m/scratchpad").as_deref(), Some("."));
}

#[test]
fn relative_inputs_work_when_both_are_relative() {
    assert_eq!(
        rel("mem/s/r/iteration-0/scratchpad", "mem/s/r2/artifacts/a.md").as_deref(),
        Some("../../../r2/artifacts/a.md")
    );
    assert_eq!(rel("./a/./b/../c", "a/d").as_deref(), Some("../d"));
}

#[test]
fn unrelatable_paths_give_none() {
    assert_eq!(rel("/abs", "rel"), None);
    assert_eq!(rel("rel", "/abs"), None);
    assert_eq!(rel("../up", "x"), None);
}

#[test]
fn dotdot_at_the_file_system_root_stays_there() {
    assert_eq!(rel("/..", "/a").as_deref(), Some("a"));
}
