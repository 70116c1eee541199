use super::*;

#[test]
fn a_directory_url_keeps_objects_create_only() {
    let bucket = tempfile::tempdir().unwrap();
    let url = url::Url::from_directory_path(bucket.path()).unwrap();
    let objects = open_url(url.as_str()).unwrap();
    objects.check().unwrap();
    assert_eq!(objects.get("principals/a/x.json").unwrap(), None);
    objects.put_new("principals/a/x.json", b"first").unwrap();
    // Content-addressed: an object already there stays, and the put succeeds.
    objects.put_new("principals/a/x.json", b"first").unwrap();
    assert_eq!(
        objects.get("principals/a/x.json").unwrap().as_deref(),
        Some(&b"first"[..])
    );
    assert!(bucket.path().join("principals/a/x.json").is_file());
    let listed = objects.list("principals").unwrap();
    assert_eq!(
        (listed.keys, listed.dirs),
        (vec![], vec!["principals/a".to_owned()])
    );
    let listed = objects.list("principals/a").unwrap();
    assert_eq!(listed.keys, ["principals/a/x.json"]);
}

#[test]
fn an_unknown_scheme_or_no_url_is_refused_naming_the_forms_it_takes() {
    let error = open_url("gs://bucket/prefix").err().unwrap();
    assert!(error.to_string().contains("`gs`"), "{error}");
    let error = open_url("ftp://bucket/prefix").err().unwrap();
    assert!(error.to_string().contains("`ftp`"), "{error}");
    let error = open_url("bucket/prefix").err().unwrap();
    assert!(error.to_string().contains("s3://bucket/prefix"), "{error}");
}

#[test]
fn the_url_shown_in_messages_holds_no_credentials() {
    let url = url::Url::parse("s3://key:secret@bucket/prefix?token=abc#x").unwrap();
    assert_eq!(shown(&url), "s3://bucket/prefix");
}

#[test]
fn an_unreachable_s3_store_fails_its_check_in_time_naming_it() {
    let store = object_store::aws::AmazonS3Builder::new()
        .with_endpoint("http://127.0.0.1:9")
        .with_allow_http(true)
        .with_region("garage")
        .with_bucket_name("overspill-missing")
        .with_access_key_id("GK0")
        .with_secret_access_key("0")
        .with_retry(retries())
        .build()
        .unwrap();
    let location = "s3://overspill-missing/".to_owned();
    let bucket = Bucket::new(Arc::new(store), String::new(), location).unwrap();
    let error = bucket.check().unwrap_err();
    assert!(
        error.to_string().contains("s3://overspill-missing"),
        "{error}"
    );
}

#[test]
fn a_url_that_cannot_be_read_is_shown_without_what_may_be_a_password() {
    let error = open_url("s3://key:secret@bucket:port/x?token=t")
        .err()
        .unwrap();
    let said = error.to_string();
    assert!(
        !said.contains("secret") && !said.contains("token=t"),
        "{said}"
    );
}
