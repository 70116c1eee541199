use std::process::Command;

use super::*;

#[test]
fn a_command_runs_under_overspill_run_in_the_users_shell_with_the_agents_flags() {
    let flags =
        PadFlags::of_gateway(["--servers", "/home/me/.config/overspill/clients/codex.json"]);
    let wrapped = under_run(
        "kubectl get pods -o json | jq '.items[]'",
        Path::new("/opt/overspill/bin/overspill"),
        &flags,
        5_120,
        "Bash",
    )
    .unwrap();
    assert_eq!(
        wrapped,
        "/opt/overspill/bin/overspill run --min-tokens 5120 --tool Bash --servers \
         /home/me/.config/overspill/clients/codex.json -- \"${SHELL:-/bin/sh}\" -c \
         'kubectl get pods -o json | jq '\\''.items[]'\\'''"
    );
}

#[test]
fn the_shell_gives_the_wrapped_command_its_own_words_back() {
    // What the outer shell passes to `overspill run` is the command as it was written.
    let command = "printf '%s\\n' \"it's\" $HOME; echo done";
    let quoted = quote(command);
    let out = Command::new("sh")
        .args(["-c", &format!("printf %s {quoted}")])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), command);
    assert_eq!(quote("/usr/bin/overspill"), "/usr/bin/overspill");
    assert_eq!(quote("a b"), "'a b'");
    assert_eq!(quote(""), "''");
}

#[test]
fn a_command_already_under_overspill_run_or_empty_is_left_alone() {
    let program = Path::new("/usr/local/bin/overspill");
    let flags = PadFlags::default();
    let once = under_run("ls -la", program, &flags, 100, "Bash").unwrap();
    assert_eq!(under_run(&once, program, &flags, 100, "Bash"), None);
    let quoted_program =
        under_run("ls", Path::new("/my dir/overspill"), &flags, 1, "Bash").unwrap();
    assert!(quoted_program.starts_with("'/my dir/overspill' run "));
    let quoted = Path::new("/my dir/overspill");
    assert_eq!(under_run(&quoted_program, quoted, &flags, 1, "Bash"), None);
    assert_eq!(under_run("  ", program, &flags, 100, "Bash"), None);
}

#[test]
fn a_command_line_reads_back_as_its_words() {
    let args = vec![
        "hook".to_owned(),
        "codex".to_owned(),
        "--servers".to_owned(),
        "/home/me/it's here/codex.json".to_owned(),
    ];
    let line = command_line("/opt/over spill/overspill", &args);
    assert_eq!(
        line,
        "'/opt/over spill/overspill' hook codex --servers '/home/me/it'\\''s here/codex.json'"
    );
    let mut expected = vec!["/opt/over spill/overspill".to_owned()];
    expected.extend(args);
    assert_eq!(words(&line), expected);
    assert_eq!(words("a \"b c\"  ''"), ["a", "b c", ""]);
}
