//! End-to-end tests across the overspill crates live in `tests/tests/`.
//!
//! This library holds only what those tests share: where the sample data of
//! `../shared/data/` is, so tests that need it can skip loudly when it is absent.

use std::path::PathBuf;

/// The shared sample-data directory (`../shared/data` beside the checkout), if present.
pub fn shared_data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    dir.is_dir().then_some(dir)
}
