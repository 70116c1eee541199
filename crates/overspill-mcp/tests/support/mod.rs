//! What the proxy's test binaries share: the fixture server, the harness that drives the proxy, and the raw-line server.
//!
//! Each test or bench binary uses part of it, so what one leaves unused is not dead.
#![allow(dead_code)]

pub mod capture;
pub mod fixture;
pub mod harness;
pub mod raw_server;
