use axum::http::HeaderValue;
use proptest::prelude::*;

use super::*;

fn with_agent(name: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(AGENT_HEADER, HeaderValue::from_str(name).unwrap());
    headers
}

#[test]
fn an_agent_is_its_principal_unless_the_client_names_one() {
    let principal = Principal::local();
    let own = Agent::of(&principal, &HeaderMap::new()).unwrap();
    let named = Agent::of(&principal, &with_agent("worker-1")).unwrap();
    assert_ne!(own, named, "two agents, two budgets");
    assert_eq!(own.storage(), named.storage(), "one principal, one store");
    assert_eq!(named.label(), "local/worker-1");
    for bad in ["", "../up", "a b", &"x".repeat(65)] {
        let headers = if bad.is_empty() {
            let mut headers = HeaderMap::new();
            headers.insert(AGENT_HEADER, HeaderValue::from_static(""));
            headers
        } else {
            with_agent(bad)
        };
        assert!(Agent::of(&principal, &headers).is_err(), "{bad:?}");
    }
}

#[test]
fn principals_are_stored_apart_under_a_hash_of_their_name() {
    let local = Agent::of(&Principal::local(), &HeaderMap::new()).unwrap();
    let shared = Agent::of(&Principal::shared(), &HeaderMap::new()).unwrap();
    assert_ne!(local.storage(), shared.storage());
    let storage = local.storage();
    let hash = storage.strip_prefix("principals/").unwrap();
    assert_eq!(hash.len(), 32);
    assert!(hash.bytes().all(|byte| byte.is_ascii_hexdigit()));
}

proptest! {
    /// Any text a mirrored header carries comes back as it was, and is a valid header value.
    #[test]
    fn a_mirrored_header_value_reads_back_as_its_text(text in any::<String>()) {
        let header = revision::header_value(&text);
        prop_assert!(HeaderValue::from_str(&header).is_ok(), "{header:?}");
        prop_assert_eq!(revision::header_text(&header), Some(text));
    }

    /// No header value makes the decoding panic.
    #[test]
    fn any_header_value_is_read_without_panicking(header in "\\PC*") {
        let _ = revision::header_text(&header);
    }
}
