use super::*;

fn write(home: &Path, dir: &str, benchmark: &str, median_ns: f64) {
    let new = home.join(dir).join("new");
    fs::create_dir_all(&new).unwrap();
    fs::write(new.join("benchmark.json"), benchmark).unwrap();
    let estimates = format!(
        r#"{{"mean":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},"point_estimate":1.5,"standard_error":0.1}},
               "median":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},"point_estimate":{median_ns},"standard_error":0.1}},
               "median_abs_dev":null,"slope":null,"std_dev":null}}"#
    );
    fs::write(new.join("estimates.json"), estimates).unwrap();
}

#[test]
fn medians_are_read_by_full_id_with_their_throughput() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        "count_pods.json/o200k_base",
        r#"{"group_id":"count/pods.json","function_id":"o200k_base","value_str":null,"throughput":{"Bytes":1000},"full_id":"count/pods.json/o200k_base","directory_name":"x","title":"x"}"#,
        2.5e6,
    );
    write(
        home.path(),
        "json/later",
        r#"{"group_id":"json","function_id":"later","value_str":null,"throughput":null,"full_id":"json/later","directory_name":"x","title":"x"}"#,
        4e5,
    );
    // A baseline criterion keeps from an earlier run is not this run's figure.
    fs::create_dir_all(home.path().join("json/later/base")).unwrap();
    let measured = read(home.path()).unwrap();
    assert_eq!(measured.len(), 2);
    assert_eq!(
        measured["count/pods.json/o200k_base"],
        Measured::Time {
            seconds: 2.5e-3,
            bytes: Some(1000)
        }
    );
    assert_eq!(
        measured["json/later"],
        Measured::Time {
            seconds: 4e-4,
            bytes: None
        }
    );
}

#[test]
fn a_file_that_is_not_criterions_is_an_error_naming_it() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), "broken", "{}", 1.0);
    let error = format!("{:#}", read(home.path()).unwrap_err());
    assert!(error.contains("benchmark.json"), "{error}");
}
