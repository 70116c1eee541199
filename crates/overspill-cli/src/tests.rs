use super::*;

#[test]
fn a_permission_error_is_printed_with_its_cause_once() {
    // The user's case (issue 28, item 7): `overspill ls` on an unreadable store printed
    // "Permission denied (os error 13); check the directory's permissions: Permission
    // denied (os error 13)". Built from the real error type and printed by the real
    // printer, so it runs where the test user may read everything (root).
    let error = overspill::store::StoreError::ReadMetadata {
        dir: "/srv/pad/.overspill-meta".into(),
        error: std::io::Error::from_raw_os_error(13),
    };
    let printed = report(&anyhow::Error::from(error));
    assert_eq!(
        printed,
        "overspill: cannot read stored-output metadata in /srv/pad/.overspill-meta: \
             Permission denied (os error 13); check the directory's permissions"
    );
    // And with a context added on top, as commands do: still once.
    let error = overspill::store::StoreError::Write {
        path: "/srv/pad/x.txt".into(),
        error: std::io::Error::from_raw_os_error(13),
    };
    let printed = report(&anyhow::Error::from(error).context("cannot set up the scratchpad"));
    assert_eq!(printed.matches("Permission denied").count(), 1, "{printed}");
}
