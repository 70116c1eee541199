//! How each server of a servers file is doing, for `overspill status` and the end of
//! `overspill install` (docs/clients.md#checking-each-server): each server is started the way
//! the gateway starts it (`overspill mcp --servers FILE --name <server>`: the same reading of
//! its entry, the same variables, the same sign-ins), all at once, asked for `initialize` and
//! its tools, and shown ✔ with its own tools or ✘ with the reason and the gateway's log of it.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};

/// Checks every server of the servers file `file`, at once, each within `timeout` seconds,
/// and prints a line each; whether all are well.
pub fn print_servers_file(file: &Path, timeout: u64) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the servers file {}", file.display()))?;
    let parsed: Value = serde_json::from_str(&text)
        .with_context(|| format!("cannot read {} as an mcpServers file", file.display()))?;
    let names: Vec<(String, bool)> = ["mcpServers", "servers"]
        .iter()
        .find_map(|key| parsed.get(key)?.as_object())
        .into_iter()
        .flatten()
        .map(|(name, entry)| {
            let disabled = entry.get("disabled").and_then(Value::as_bool) == Some(true);
            (name.clone(), disabled)
        })
        .collect();
    println!("servers behind overspill ({}):", file.display());
    if names.is_empty() {
        println!("  (none)");
        return Ok(true);
    }
    let exe = std::env::current_exe().context("cannot find this program's own path")?;
    let checks: Vec<_> = names
        .iter()
        .map(|(name, disabled)| {
            let (exe, file, name, disabled) =
                (exe.clone(), file.to_owned(), name.clone(), *disabled);
            std::thread::spawn(move || {
                if disabled {
                    return Health::Disabled;
                }
                check(&exe, &file, &name, Duration::from_secs(timeout))
            })
        })
        .collect();
    let mut all_well = true;
    for ((name, _), check) in names.iter().zip(checks) {
        let health = check.join().unwrap_or_else(|_| Health::Failed {
            why: "the check stopped unexpectedly".to_owned(),
        });
        match health {
            Health::Ready { tools } => {
                let shown = if tools.len() > 8 {
                    format!("{}, …", tools[..8].join(", "))
                } else {
                    tools.join(", ")
                };
                println!("  ✔ {name}: {} tools ({shown})", tools.len());
            }
            Health::Disabled => println!("  – {name}: disabled in the servers file"),
            Health::Failed { why } => {
                all_well = false;
                println!("  ✘ {name}: {}", one_line(&why));
                if let Ok(log) = crate::cmd::mcp::gateway_server_log(file, name)
                    && log.exists()
                {
                    println!("    its log: {}", log.display());
                }
            }
        }
    }
    Ok(all_well)
}

/// How one server is doing.
enum Health {
    Ready { tools: Vec<String> },
    Disabled,
    Failed { why: String },
}

/// Starts server `name` of `file` behind a proxy of its own and asks for its tools, within
/// `limit`.
fn check(exe: &Path, file: &Path, name: &str, limit: Duration) -> Health {
    let mut command = Command::new(exe);
    command
        .arg("mcp")
        .arg("--servers")
        .arg(file)
        .args(["--name", name, "--init-timeout"])
        .arg(limit.as_secs().max(1).to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A group of its own, so that the server under the proxy is stopped with it.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command.spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(error) => {
            return Health::Failed {
                why: format!("cannot start overspill: {error}"),
            };
        }
    };
    let (Some(mut stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Health::Failed {
            why: "cannot speak to overspill".to_owned(),
        };
    };
    let (said, heard) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        let _ = said.send(text);
    });
    let (answers, answered) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message.get("id").is_some() && answers.send(message).is_err() {
                break;
            }
        }
    });
    let initialize = json!({
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "overspill-status", "version": env!("CARGO_PKG_VERSION")}});
    let requests = [
        overspill_mcp::request(Some(&json!(1)), "initialize", &initialize),
        overspill_mcp::request(None, "notifications/initialized", &json!({})),
        overspill_mcp::request(Some(&json!(2)), "tools/list", &json!({})),
    ];
    for request in requests {
        if writeln!(stdin, "{request}").is_err() {
            break;
        }
    }
    let deadline = std::time::Instant::now() + limit + Duration::from_secs(5);
    let mut health = None;
    while health.is_none() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match answered.recv_timeout(left) {
            Ok(answer) if answer.get("error").is_some() => {
                let message = answer["error"]["message"].as_str().unwrap_or("an error");
                health = Some(Health::Failed {
                    why: message.to_owned(),
                });
            }
            Ok(answer) if answer["id"] == 2 => {
                // The server's own tools, not the exploration tools the proxy adds.
                let ours: Vec<Value> = overspill::tool_definitions(overspill::ToolFormat::Mcp)
                    .into_iter()
                    .filter_map(|tool| tool.get("name").cloned())
                    .collect();
                let tools = answer["result"]["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|tool| !ours.contains(&tool["name"]))
                    .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
                    .collect();
                health = Some(Health::Ready { tools });
            }
            Ok(_) => {}
            Err(mpsc::RecvTimeoutError::Timeout) => {
                health = Some(Health::Failed {
                    why: format!("it did not answer within {} s", limit.as_secs()),
                });
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    // Its input closed, the proxy stops its server and ends; whatever is left then (a server
    // that ignores it, a proxy that hangs) is killed, the whole group.
    drop(stdin);
    let grace = std::time::Instant::now() + STOP_GRACE;
    while matches!(child.try_wait(), Ok(None)) && std::time::Instant::now() < grace {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop_group(&mut child);
    let _ = child.wait();
    // What it said on stderr, unless a process outside the group still holds the pipe.
    let said = heard.recv_timeout(STOP_GRACE).unwrap_or_default();
    health.unwrap_or_else(|| Health::Failed { why: reason(&said) })
}

/// How long a proxy whose input closed is given to stop its server and end.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Kills the proxy `child` and every process of its group (its server among them).
fn stop_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let group = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
}

/// The proxy's last words on stderr, as one line: why the server could not be started. A
/// message of the proxy's own (`overspill: …`) may span lines (a server's command holds a
/// newline); it is taken whole.
fn reason(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let own = lines
        .iter()
        .rposition(|line| line.starts_with("overspill: ") || line.starts_with("overspill mcp: "));
    let said = match own {
        Some(at) => lines[at..].join(" "),
        None => lines
            .last()
            .map(|line| (*line).to_owned())
            .unwrap_or_default(),
    };
    let said = said
        .strip_prefix("overspill mcp: ")
        .or_else(|| said.strip_prefix("overspill: "))
        .unwrap_or(&said);
    match one_line(said) {
        line if line.is_empty() => "overspill stopped without saying why".to_owned(),
        line => line,
    }
}

/// `text` with each run of white space (newlines too) made one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
