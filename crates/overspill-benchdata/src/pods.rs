//! Pod lists like `kubectl get pods -A -o json`.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::CountingWriter;
use crate::random::SplitMix64;

const NAMESPACES: &[&str] = &[
    "default",
    "kube-system",
    "payments",
    "checkout",
    "search",
    "observability",
    "ingress",
];

/// Each app with its image.
const APPS: &[(&str, &str)] = &[
    ("api", "registry.example.com/api:2.14.1"),
    ("worker", "registry.example.com/worker:2.14.1"),
    ("frontend", "registry.example.com/frontend:5.2.0"),
    ("redis", "redis:7.2.4"),
    ("postgres", "postgres:16.2"),
    ("envoy", "envoyproxy/envoy:v1.29.1"),
    ("fluent-bit", "fluent/fluent-bit:2.2.2"),
    ("coredns", "registry.k8s.io/coredns/coredns:v1.11.1"),
    ("scheduler", "registry.k8s.io/kube-scheduler:v1.29.2"),
];

const PHASES: &[(&str, u64)] = &[
    ("Running", 88),
    ("Pending", 5),
    ("Failed", 4),
    ("Succeeded", 3),
];

const RESTARTS: &[(u64, u64)] = &[(0, 80), (1, 10), (3, 5), (17, 3), (42, 2)];

/// Writes `{"apiVersion": "v1", "items": [pods…], "kind": "List", …}` until `bytes`.
pub(crate) fn write<W: Write>(
    out: &mut CountingWriter<'_, W>,
    bytes: u64,
    pretty: bool,
) -> io::Result<()> {
    let mut r = SplitMix64::new(20_261_202);
    if pretty {
        out.write_all(b"{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n")?;
    } else {
        out.write_all(br#"{"apiVersion":"v1","items":["#)?;
    }
    let mut item = Vec::with_capacity(4_096);
    let mut i = 0u64;
    while i == 0 || out.written < bytes {
        let pod = pod(&mut r, i);
        item.clear();
        if pretty {
            if i > 0 {
                item.extend_from_slice(b",\n");
            }
            let printed = serde_json::to_vec_pretty(&pod)?;
            item.extend_from_slice(b"    ");
            for &b in &printed {
                item.push(b);
                if b == b'\n' {
                    item.extend_from_slice(b"    ");
                }
            }
        } else {
            if i > 0 {
                item.push(b',');
            }
            serde_json::to_writer(&mut item, &pod)?;
        }
        out.write_all(&item)?;
        i += 1;
    }
    let version = r.between(1_000_000, 10_000_000);
    if pretty {
        write!(
            out,
            "\n  ],\n  \"kind\": \"List\",\n  \"metadata\": {{\n    \"resourceVersion\": \"{version}\"\n  }}\n}}\n"
        )
    } else {
        writeln!(
            out,
            r#"],"kind":"List","metadata":{{"resourceVersion":"{version}"}}}}"#
        )
    }
}

fn pod(r: &mut SplitMix64, _index: u64) -> Value {
    let (app, image) = *r.choice(APPS);
    let namespace = *r.choice(NAMESPACES);
    let name = format!("{app}-{}-{}", r.hex(10), r.hex(5));
    let phase = *r.weighted(PHASES);
    let restarts = if phase == "Running" {
        *r.weighted(RESTARTS)
    } else {
        0
    };
    let waiting = restarts >= 17;
    let state = if waiting {
        json!({"waiting": {
            "reason": "CrashLoopBackOff",
            "message": format!("back-off 5m0s restarting failed container={app} pod={name}"),
        }})
    } else if phase == "Running" {
        json!({"running": {"startedAt": r.timestamp(12)}})
    } else {
        let succeeded = phase == "Succeeded";
        json!({"terminated": {
            "exitCode": if succeeded { 0 } else { 137 },
            "reason": if succeeded { "Completed" } else { "OOMKilled" },
        }})
    };
    let container = json!({
        "name": app,
        "image": image,
        "ports": [{"containerPort": *r.choice(&[80, 443, 5432, 6379, 8080, 9090]), "protocol": "TCP"}],
        "resources": {
            "limits": {"cpu": *r.choice(&["500m", "1", "2"]), "memory": *r.choice(&["256Mi", "512Mi", "1Gi", "4Gi"])},
            "requests": {"cpu": *r.choice(&["100m", "250m", "500m"]), "memory": *r.choice(&["128Mi", "256Mi", "512Mi"])},
        },
        "env": [
            {"name": "LOG_LEVEL", "value": *r.choice(&["info", "debug", "warn"])},
            {"name": "REGION", "value": *r.choice(&["us-east-1", "eu-west-1"])},
        ],
    });
    let created_day = r.between(1, 28);
    let ready = phase == "Running" && !waiting;
    let uid = format!(
        "{}-{}-{}-{}-{}",
        r.hex(8),
        r.hex(4),
        r.hex(4),
        r.hex(4),
        r.hex(12)
    );
    let conditions: Vec<Value> = ["Initialized", "Ready", "ContainersReady", "PodScheduled"]
        .iter()
        .map(|kind| {
            json!({
                "type": kind,
                "status": if ready { "True" } else { "False" },
                "lastTransitionTime": r.timestamp(12),
            })
        })
        .collect();
    let owner = name
        .rsplit_once('-')
        .map_or(name.as_str(), |(owner, _)| owner);
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid,
            "creationTimestamp": r.timestamp(created_day),
            "labels": {"app.kubernetes.io/name": app, "pod-template-hash": r.hex(10)},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner, "controller": true}],
        },
        "spec": {
            "containers": [container],
            "nodeName": node(r),
            "restartPolicy": "Always",
            "serviceAccountName": "default",
            "terminationGracePeriodSeconds": 30,
        },
        "status": {
            "phase": phase,
            "hostIP": format!("10.0.{}.{}", r.between(1, 4), r.between(2, 250)),
            "podIP": format!("10.244.{}.{}", r.between(0, 63), r.between(2, 250)),
            "startTime": r.timestamp(12),
            "conditions": conditions,
            "containerStatuses": [{
                "name": app,
                "image": image,
                "ready": ready,
                "restartCount": restarts,
                "state": state,
            }],
        },
    })
}

/// One of the twelve node names of the cluster.
pub(crate) fn node(r: &mut SplitMix64) -> String {
    format!(
        "ip-10-0-{}-{}.ec2.internal",
        r.between(1, 4),
        r.choice(&[11, 42, 87])
    )
}
