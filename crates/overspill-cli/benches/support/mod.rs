//! What the proxy bench shares: the upstream servers it fronts, the session it drives and its HTTP client.
//!
//! Each test or bench binary uses part of it, so what one leaves unused is not dead.
#![allow(dead_code)]

pub mod first_answer;
pub mod http_client;
pub mod http_upstream;
pub mod session;
pub mod upstream;
