//! placeholder during setup
