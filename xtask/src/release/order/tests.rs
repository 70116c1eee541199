use super::*;
use crate::tidy::LAYERS;

fn all<'a>(layers: &[(&'a str, &[&str])]) -> BTreeSet<&'a str> {
    layers.iter().map(|(name, _)| *name).collect()
}

#[test]
fn every_crate_is_published_after_the_crates_it_may_depend_on() {
    let order = publish_order(LAYERS, &all(LAYERS)).unwrap();
    assert_eq!(order.len(), LAYERS.len());
    for (name, deps) in LAYERS {
        let at = order.iter().position(|n| n == name).unwrap();
        for dep in *deps {
            let dep_at = order.iter().position(|n| n == dep).unwrap();
            assert!(dep_at < at, "{dep} must come before {name}: {order:?}");
        }
    }
    assert_eq!(order.first().map(String::as_str), Some("overspill-tokens"));
    assert_eq!(order.last().map(String::as_str), Some("overspill-cli"));
}

#[test]
fn the_order_follows_dependencies_not_table_order() {
    let layers: &[(&str, &[&str])] = &[("top", &["mid"]), ("mid", &["base"]), ("base", &[])];
    assert_eq!(
        publish_order(layers, &all(layers)).unwrap(),
        ["base", "mid", "top"]
    );
}

#[test]
fn independent_crates_keep_table_order() {
    let layers: &[(&str, &[&str])] = &[("b", &[]), ("a", &[]), ("c", &["a"])];
    assert_eq!(
        publish_order(layers, &all(layers)).unwrap(),
        ["b", "a", "c"]
    );
}

#[test]
fn a_cycle_is_reported_with_its_crates() {
    let layers: &[(&str, &[&str])] = &[("base", &[]), ("x", &["y"]), ("y", &["x"])];
    let message = publish_order(layers, &all(layers)).unwrap_err().to_string();
    assert!(message.contains("cycle among x, y"), "{message}");
}

#[test]
fn a_publishable_crate_missing_from_the_layers_is_an_error() {
    let layers: &[(&str, &[&str])] = &[("base", &[])];
    let publishable: BTreeSet<&str> = ["base", "extra"].into_iter().collect();
    let message = publish_order(layers, &publishable).unwrap_err().to_string();
    assert!(message.contains("extra can be published"), "{message}");
    assert!(message.contains("LAYERS"), "{message}");
}

#[test]
fn a_layered_crate_that_cannot_be_published_is_an_error() {
    let layers: &[(&str, &[&str])] = &[("base", &[]), ("top", &["base"])];
    let publishable: BTreeSet<&str> = ["top"].into_iter().collect();
    let message = publish_order(layers, &publishable).unwrap_err().to_string();
    assert!(message.contains("base in the layer graph"), "{message}");
}
