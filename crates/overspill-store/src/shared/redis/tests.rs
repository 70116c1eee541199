use super::*;

#[test]
fn a_url_that_is_not_redis_is_refused_naming_the_form_it_takes() {
    let error = Redis::open("http://127.0.0.1:6379").unwrap_err();
    assert!(error.to_string().contains("redis://host:6379/0"), "{error}");
}

#[test]
fn an_unreachable_server_fails_an_update_naming_it_without_its_password() {
    let redis = Redis::open("redis://:secret@127.0.0.1:9/0").unwrap();
    let error = redis.counter("k").update(&mut |n| Some(n + 1)).unwrap_err();
    let said = error.to_string();
    assert!(said.contains("127.0.0.1:9"), "{said}");
    assert!(!said.contains("secret"), "{said}");
    assert!(redis.check().is_err());
}
