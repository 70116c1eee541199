//! Counting throughput on 10 MB tool outputs, against `tiktoken-rs`
//! (SPEC §12): pretty JSON, compact JSON and log text.
//!
//! `cargo bench -p overspill-tokens` (add `-- --quick` for one short run).
//! The inputs come from `../shared/data/gen_samples.py` and are cached in
//! `<target>/bench-data/`; without python3 or the script the benches are
//! skipped with a message.

#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use overspill_tokens::{TokenCounter, cl100k, claude, gemma3, o200k};
use tiktoken_rs::{CoreBPE, cl100k_base_singleton, o200k_base_singleton};

/// The interception threshold of the default configuration.
const THRESHOLD: usize = 5_120;

/// A limit too large for the byte-length bound to settle on 10 MB (which
/// needs at least 10 MB / 48 tokens for Gemma 3), so `count_up_to` has to
/// tokenize until it passes: the cost should grow with this, not the text.
const LARGE_LIMIT: usize = 250_000;

struct Input {
    name: &'static str,
    text: String,
}

fn counting(c: &mut Criterion) {
    let Some(inputs) = inputs() else { return };
    let ours: [&dyn TokenCounter; 4] = [o200k(), cl100k(), gemma3(), claude()];
    let references: [(&str, &CoreBPE, &dyn TokenCounter); 2] = [
        ("tiktoken-rs o200k_base", o200k_base_singleton(), o200k()),
        ("tiktoken-rs cl100k_base", cl100k_base_singleton(), cl100k()),
    ];
    for input in &inputs {
        // The same number, or the speed means nothing.
        for (name, reference, counter) in references {
            let expected = reference.encode_ordinary(&input.text).len();
            assert_eq!(
                counter.count(&input.text),
                expected,
                "{name} on {}",
                input.name
            );
        }
        let mut group = c.benchmark_group(format!("count/{}", input.name));
        group.throughput(Throughput::Bytes(input.text.len() as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        for (name, reference, _) in references {
            group.bench_function(name, |b| {
                b.iter(|| reference.encode_ordinary(&input.text).len())
            });
        }
        for counter in ours {
            group.bench_function(counter.name(), |b| b.iter(|| counter.count(&input.text)));
        }
        group.finish();

        for limit in [THRESHOLD, LARGE_LIMIT] {
            let mut group = c.benchmark_group(format!("count_up_to_{limit}/{}", input.name));
            group.sample_size(10);
            for counter in ours {
                group.bench_with_input(
                    BenchmarkId::from_parameter(counter.name()),
                    &input.text,
                    |b, text| b.iter(|| counter.count_up_to(text, limit)),
                );
            }
            group.finish();
        }
    }
}

/// The three 10 MB inputs, generated on first use.
fn inputs() -> Option<Vec<Input>> {
    let dir = target_dir().join("bench-data");
    let script = workspace_root().join("../shared/data/gen_samples.py");
    let specs = [
        (
            "pretty-json",
            "pods-pretty.json",
            &["pods", "2650"][..],
            false,
        ),
        (
            "compact-json",
            "pods-compact.json",
            &["pods", "6930"][..],
            true,
        ),
        ("log-text", "app.log", &["logs", "101000"][..], false),
    ];
    let mut inputs = Vec::new();
    for (name, file, args, compact) in specs {
        let path = dir.join(file);
        if !path.is_file()
            && let Err(why) = generate(&script, args, compact, &path)
        {
            eprintln!(
                "skipping the counting benches: cannot generate {}: {why}",
                path.display()
            );
            return None;
        }
        match std::fs::read_to_string(&path) {
            Ok(text) => inputs.push(Input { name, text }),
            Err(why) => {
                eprintln!(
                    "skipping the counting benches: cannot read {}: {why}",
                    path.display()
                );
                return None;
            }
        }
    }
    Some(inputs)
}

/// Runs `gen_samples.py ARGS` into `path`, re-serialised compactly if asked.
fn generate(script: &Path, args: &[&str], compact: bool, path: &Path) -> Result<(), String> {
    if !script.is_file() {
        return Err(format!("{} is absent", script.display()));
    }
    let generated = Command::new("python3")
        .arg(script)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("python3 did not run ({e})"))?;
    if !generated.status.success() {
        return Err(format!("gen_samples.py {} failed", args.join(" ")));
    }
    let mut bytes = generated.stdout;
    if compact {
        bytes = compact_json(&bytes)?;
    }
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
        .and_then(|()| std::fs::write(path, bytes))
        .map_err(|e| e.to_string())
}

fn compact_json(pretty: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import json,sys; json.dump(json.load(sys.stdin), sys.stdout, separators=(',',':'))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3 did not run ({e})"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(pretty).map_err(|e| e.to_string())?;
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err("compacting the JSON failed".to_owned());
    }
    Ok(output.stdout)
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

criterion_group!(benches, counting);
criterion_main!(benches);
