//! A permission error, end to end (issue 28, item 7): `overspill ls` on a store whose
//! metadata it may not read names the operating system's cause once. It printed "Permission
//! denied (os error 13); check the directory's permissions: Permission denied (os error 13)",
//! because the error stated its cause and also returned it from `source()`, and the CLI
//! prints the chain.
//!
//! As root, permissions are not enforced; the test then runs the binary as `nobody`, and where
//! even that is not possible it says so (the printer's own test, `a_permission_error_is_printed_
//! with_its_cause_once` in `src/main.rs`, covers the message either way).

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

mod support;

use support::path;

/// The uid and gid of `nobody` on Linux distributions.
const NOBODY: u32 = 65_534;

#[test]
fn ls_of_a_store_it_may_not_read_names_permission_denied_once() {
    let tmp = tempfile::tempdir().unwrap();
    // Another user may reach the store (only its metadata is closed to them).
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let pad = tmp.path().join("pad");
    let meta = pad.join(".overspill-meta");
    fs::create_dir_all(&meta).unwrap();
    fs::set_permissions(&pad, fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(meta.join("x.txt.json"), "{}").unwrap();
    fs::set_permissions(&meta, fs::Permissions::from_mode(0o000)).unwrap();

    let mut ls = Command::new(env!("CARGO_BIN_EXE_overspill"));
    ls.args(["ls", "--dir", path(&pad)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let privileged = fs::read_dir(&meta).is_ok();
    if privileged {
        ls.uid(NOBODY).gid(NOBODY);
    }
    let out = ls.output();
    fs::set_permissions(&meta, fs::Permissions::from_mode(0o700)).unwrap();
    let out = match out {
        Ok(out) => out,
        Err(error) if privileged => {
            eprintln!(
                "note: permissions are not enforced here and the binary cannot run as nobody \
                 ({error}); the end-to-end case is not run"
            );
            return;
        }
        Err(error) => panic!("the overspill binary runs: {error}"),
    };
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("overspill: cannot read stored-output metadata in")
            && stderr.contains("check the directory's permissions"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("Permission denied").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("os error 13").count(), 1, "{stderr}");
}
