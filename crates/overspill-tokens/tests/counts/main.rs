//! Acceptance tests of the counters against their references (issue 3).
//!
//! One test binary (the counters' dictionaries make each binary large).

mod claude;
mod limits;
mod openai_reference;
mod samples;
