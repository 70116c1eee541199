//! The flags' defaults and the chain's limit that docs/ states, against the binary's own
//! definition of its command line (docs/architecture.md#what-cargo-xtask-tidy-checks), so that a
//! default changed in the code, or in a doc alone, fails tidy until both say the same.
//!
//! The facts come from the binary: `overspill doc-facts` (hidden) prints clap's definition of
//! every command, flag and default as JSON, and `MAX_DEPTH`. That is the definition the parser
//! uses, with the library constants it takes its defaults from already applied, so tidy holds
//! no second table. Reading `--help` instead would tie the check to clap's wording and line
//! wrapping; linking the CLI into xtask would build the whole proxy into every `cargo xtask`.
//!
//! The rule, which the pages follow:
//! - **Which command.** Every flag on docs/mcp-proxy.md is `overspill mcp`'s; on docs/cli.md, a
//!   flag belongs to the command its `` ## `overspill <command> …` `` section names (with that
//!   command's subcommands); anywhere else (the rest of docs/cli.md, every other page of
//!   docs/), to any command that has it.
//! - **What states a default.** In a table with a `default` column, a row whose first cell names
//!   one flag (`` `--read-timeout SECS` ``) states it in that column; in prose, a flag in inline
//!   code followed by ` (`, an optional `default `, and the value, then `)`, `,`, `;`, `:` or
//!   ` by default` (`` `--read-timeout` (300 s: how long…) ``, `` `--drain-delay` (0 s by
//!   default) ``). A value is a number with an optional unit (`s`, `ms`, `min`, `h`, `KiB`,
//!   `MiB`, `GiB`; `16 MiB` is 16,777,216) or, for a flag whose default is a string, inline
//!   code (`` `__` ``).
//! - **What must agree.** For a flag whose definition has a default, every statement states it,
//!   and its table row states one. A flag whose default the code chooses after parsing (`--model`
//!   without `[agent.llm]`) has none in its definition and is not checked.
//! - **The chain of proxies.** docs/mcp-proxy.md says a chain holds "at most N proxies", N being
//!   the depth at which `overspill mcp` refuses to start.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

use super::Problem;

/// The page whose flags are all `overspill mcp`'s, and which states the chain's limit.
const PROXY_PAGE: &str = "docs/mcp-proxy.md";

/// The page whose flags are each their `` ## `overspill <command>` `` section's.
const CLI_PAGE: &str = "docs/cli.md";

/// What the binary defines, as `overspill doc-facts` prints it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Facts {
    /// The most proxies in a chain.
    pub max_depth: u32,
    /// The whole `overspill` command.
    pub command: CommandFacts,
}

/// One command: its long flags with the default values of their definitions, and its
/// subcommands.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CommandFacts {
    pub name: String,
    pub flags: BTreeMap<String, Vec<String>>,
    pub subcommands: Vec<CommandFacts>,
}

impl Facts {
    /// The facts of the workspace's binary at `root`, built if it must be.
    pub fn of_binary(root: &Path) -> Result<Facts> {
        let args = [
            "run",
            "--quiet",
            "--package",
            "overspill-cli",
            "--bin",
            "overspill",
            "--",
            "doc-facts",
        ];
        let output = crate::cargo::command(root)
            .args(args)
            .output()
            .context("could not start `cargo run -p overspill-cli -- doc-facts`")?;
        if !output.status.success() {
            bail!(
                "`cargo {}` failed ({}); tidy reads the flags' defaults from the binary, so it \
                 must build:\n{}",
                args.join(" "),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        serde_json::from_slice(&output.stdout).context("reading what `overspill doc-facts` printed")
    }
}

/// Where the pages of docs/ under `root` state other defaults or another chain limit than
/// `facts`.
pub fn problems(root: &Path, facts: &Facts) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for page in pages(root)? {
        let text =
            fs::read_to_string(root.join(&page)).with_context(|| format!("reading {page}"))?;
        let scope = match page.as_str() {
            PROXY_PAGE => Scope::Command(vec!["mcp".to_owned()]),
            CLI_PAGE => Scope::Sections,
            _ => Scope::Command(Vec::new()),
        };
        for statement in statements(&text, &scope) {
            if let Some(what) = disagreement(&statement, &facts.command) {
                problems.push(Problem::FlagDocDiffers {
                    at: format!("{page}:{}", statement.line),
                    flag: statement.flag,
                    what,
                });
            }
        }
    }
    let proxy = fs::read_to_string(root.join(PROXY_PAGE))
        .with_context(|| format!("reading {PROXY_PAGE}"))?;
    let proxy = proxy.split_whitespace().collect::<Vec<_>>().join(" ");
    if !proxy.contains(&format!("at most {} proxies", facts.max_depth)) {
        problems.push(Problem::ChainLimitUnstated {
            max_depth: facts.max_depth,
        });
    }
    Ok(problems)
}

/// The Markdown pages of docs/ under `root`, as paths from `root` in order.
fn pages(root: &Path) -> Result<Vec<String>> {
    Ok(super::files_below(&root.join("docs"), |_| false)?
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .map(|path| {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            relative.to_string_lossy().replace('\\', "/")
        })
        .collect())
}

/// Which command a page's flags belong to.
#[derive(Debug, Clone, PartialEq)]
enum Scope {
    /// The command at this path (`["mcp"]`); the empty path is the whole binary: any command
    /// that has the flag.
    Command(Vec<String>),
    /// Each `` ## `overspill <command> …` `` section's, the whole binary's outside them.
    Sections,
}

/// One statement of a flag's default.
#[derive(Debug, Clone, PartialEq)]
struct Statement {
    line: usize,
    /// The subcommand path the flag belongs to (`["mcp"]`; empty: any command).
    command: Vec<String>,
    /// `--read-timeout`.
    flag: String,
    /// What it states: `None` for a table cell that states no value.
    value: Option<Value>,
    /// Whether it is a table row (which must state the flag's default when there is one).
    row: bool,
}

/// A stated value.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    /// A number with its unit applied: `16 MiB` is 16,777,216, `30 min` is 1,800.
    Number(f64),
    /// Inline code: `__`.
    Code(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(number) => write!(f, "{number}"),
            Value::Code(code) => write!(f, "`{code}`"),
        }
    }
}

/// What is wrong with `statement`, if anything.
fn disagreement(statement: &Statement, command: &CommandFacts) -> Option<FlagDisagreement> {
    let Some(owner) = find(command, &statement.command) else {
        return Some(FlagDisagreement::NoCommand {
            command: statement.command.join(" "),
        });
    };
    let long = statement.flag.trim_start_matches('-');
    let flags = flag_defaults(owner, long);
    if flags.is_empty() {
        return statement
            .value
            .as_ref()
            .map(|value| FlagDisagreement::NoFlag {
                command: owner.name.clone(),
                stated: value.to_string(),
            });
    }
    let defaults: Vec<String> = flags
        .iter()
        .filter_map(|values| match &values[..] {
            [value] => Some(value.clone()),
            _ => None,
        })
        .collect();
    if defaults.is_empty() {
        // The code chooses this flag's default after parsing: nothing to hold the doc to.
        return None;
    }
    let Some(value) = &statement.value else {
        return statement
            .row
            .then_some(FlagDisagreement::RowStatesNone { defaults });
    };
    let agrees = defaults.iter().any(|default| match value {
        Value::Number(number) => default.parse::<f64>().is_ok_and(|d| d == *number),
        Value::Code(code) => default == code,
    });
    (!agrees).then(|| FlagDisagreement::Differs {
        stated: value.to_string(),
        defaults,
    })
}

/// How a statement of a flag's default differs from the binary.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FlagDisagreement {
    /// The page names `overspill <command>`, which the binary does not have.
    NoCommand { command: String },
    /// It states the default `stated` for a flag that `command` does not have.
    NoFlag { command: String, stated: String },
    /// A table row of the flag states no default, where its definition has `defaults`.
    RowStatesNone { defaults: Vec<String> },
    /// It states `stated`, where the definition's default is one of `defaults`.
    Differs {
        stated: String,
        defaults: Vec<String>,
    },
}

/// The subcommand of `command` at `path`.
fn find<'a>(command: &'a CommandFacts, path: &[String]) -> Option<&'a CommandFacts> {
    path.iter().try_fold(command, |command, name| {
        command.subcommands.iter().find(|sub| sub.name == *name)
    })
}

/// The default values of every flag named `--long` of `command` and of its subcommands, at
/// any depth.
fn flag_defaults<'a>(command: &'a CommandFacts, long: &str) -> Vec<&'a Vec<String>> {
    let mut found: Vec<&Vec<String>> = command.flags.get(long).into_iter().collect();
    for sub in &command.subcommands {
        found.extend(flag_defaults(sub, long));
    }
    found
}

/// The statements of defaults on a page whose flags are `scope`'s.
fn statements(page: &str, scope: &Scope) -> Vec<Statement> {
    let events: Vec<(Event<'_>, usize)> = Parser::new_ext(page, Options::ENABLE_TABLES)
        .into_offset_iter()
        .map(|(event, at)| (event, page[..at.start].matches('\n').count() + 1))
        .collect();
    let mut found = Vec::new();
    let mut command: Vec<String> = match scope {
        Scope::Command(path) => path.clone(),
        Scope::Sections => Vec::new(),
    };
    let mut heading: Option<String> = None;
    let mut table = Table::default();
    for (i, (event, line)) in events.iter().enumerate() {
        match event {
            Event::Start(Tag::Heading { level, .. }) if *level <= HeadingLevel::H2 => {
                heading = Some(String::new());
            }
            Event::End(TagEnd::Heading(level)) if *level <= HeadingLevel::H2 => {
                if *scope == Scope::Sections {
                    command = heading
                        .take()
                        .and_then(|title| section_command(&title))
                        .unwrap_or_default();
                }
                heading = None;
            }
            Event::Code(code) if heading.is_some() => {
                if let Some(title) = &mut heading {
                    title.push_str(code);
                }
            }
            Event::Start(Tag::Table(_)) => table = Table::default(),
            Event::Start(Tag::TableCell) => table.cell = Some(Vec::new()),
            Event::End(TagEnd::TableCell) => {
                if let Some(cell) = table.cell.take() {
                    table.row.push(cell);
                }
            }
            Event::End(TagEnd::TableHead) => {
                table.default_column = table.row.iter().position(
                    |cell| matches!(&cell[..], [Event::Text(text)] if text.trim() == "default"),
                );
                table.row.clear();
            }
            Event::End(TagEnd::TableRow) => {
                let row = std::mem::take(&mut table.row);
                if let Some(column) = table.default_column
                    && let Some(statement) = row_statement(&row, column, &command, *line)
                {
                    found.push(statement);
                }
            }
            _ => {
                if let Some(cell) = &mut table.cell {
                    cell.push(event.clone());
                }
                // Prose, in a table's cells too.
                if let Event::Code(code) = event
                    && code.starts_with("--")
                    && let Some(value) = prose_value(&events[i + 1..])
                {
                    found.push(Statement {
                        line: *line,
                        command: command.clone(),
                        flag: flag_of(code),
                        value: Some(value),
                        row: false,
                    });
                }
            }
        }
    }
    found
}

/// The table being read: the column of defaults, the row so far, the cell being read.
#[derive(Default)]
struct Table<'a> {
    default_column: Option<usize>,
    row: Vec<Vec<Event<'a>>>,
    cell: Option<Vec<Event<'a>>>,
}

/// The command a `` ## `overspill <command> …` `` section is about: the words after `overspill`
/// up to the first that is no plain name (`[options]`, `login|status`, `FILE`, `--dir`).
fn section_command(title: &str) -> Option<Vec<String>> {
    let mut words = title.split_whitespace();
    if words.next() != Some("overspill") {
        return None;
    }
    let path: Vec<String> = words
        .take_while(|word| {
            word.starts_with(|c: char| c.is_ascii_lowercase())
                && word.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        })
        .map(str::to_owned)
        .collect();
    (!path.is_empty()).then_some(path)
}

/// `--read-timeout` of `--read-timeout SECS`.
fn flag_of(code: &str) -> String {
    code.split_whitespace().next().unwrap_or(code).to_owned()
}

/// The statement of a table row whose first cell names one flag, its default in `column`.
fn row_statement(
    row: &[Vec<Event<'_>>],
    column: usize,
    command: &[String],
    line: usize,
) -> Option<Statement> {
    let flags: Vec<String> = row
        .first()?
        .iter()
        .filter_map(|event| match event {
            Event::Code(code) if code.starts_with("--") => Some(flag_of(code)),
            _ => None,
        })
        .collect();
    let [flag] = &flags[..] else {
        return None;
    };
    let value = match row.get(column)?.first() {
        Some(Event::Code(code)) => Some(Value::Code(code.to_string())),
        Some(Event::Text(text)) => number(text).map(|(value, _)| value),
        _ => None,
    };
    Some(Statement {
        line,
        command: command.to_vec(),
        flag: flag.clone(),
        value,
        row: true,
    })
}

/// The value stated by the events after a flag's inline code in prose, if they state one:
/// ` (300 s: …`, ` (default 25)`, ` (default `__`)`.
fn prose_value(after: &[(Event<'_>, usize)]) -> Option<Value> {
    // The parenthesis may open the next line.
    let (rest, next) = match after {
        [(Event::Text(text), _), ..] => (text.strip_prefix(" (")?, 1),
        [(Event::SoftBreak, _), (Event::Text(text), _), ..] => (text.strip_prefix('(')?, 2),
        _ => return None,
    };
    let rest = rest.strip_prefix("default ").unwrap_or(rest);
    if rest.is_empty() {
        // The value is inline code: ` (default ` then `` `__` `` then `)`.
        let (Some((Event::Code(code), _)), Some((Event::Text(end), _))) =
            (after.get(next), after.get(next + 1))
        else {
            return None;
        };
        return ends_statement(end).then(|| Value::Code(code.to_string()));
    }
    let (value, end) = number(rest)?;
    ends_statement(end).then_some(value)
}

/// Whether `text`, after a value, ends the statement of a default.
fn ends_statement(text: &str) -> bool {
    [")", ",", ";", ":", " by default"]
        .iter()
        .any(|end| text.starts_with(end))
}

/// A number at the start of `text` (digits, `,` between digits, one `.`) and its unit, with
/// what follows them.
fn number(text: &str) -> Option<(Value, &str)> {
    let digits = text
        .char_indices()
        .take_while(|&(i, c)| {
            c.is_ascii_digit()
                || ((c == ',' || c == '.')
                    && i > 0
                    && text[i + 1..].starts_with(|next: char| next.is_ascii_digit()))
        })
        .last()
        .map_or(0, |(i, c)| i + c.len_utf8());
    let value: f64 = text[..digits].replace(',', "").parse().ok()?;
    let rest = &text[digits..];
    for (unit, scale) in [
        (" ms", 0.001),
        (" min", 60.0),
        (" s", 1.0),
        (" h", 3600.0),
        (" KiB", 1024.0),
        (" MiB", 1_048_576.0),
        (" GiB", 1_073_741_824.0),
    ] {
        if let Some(after) = rest.strip_prefix(unit)
            && !after.starts_with(|c: char| c.is_alphanumeric())
        {
            return Some((Value::Number(value * scale), after));
        }
    }
    Some((Value::Number(value), rest))
}

/// The facts of this workspace's binary, read once for all the tests.
#[cfg(test)]
pub fn binary_facts() -> &'static Facts {
    static FACTS: std::sync::OnceLock<Facts> = std::sync::OnceLock::new();
    FACTS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        Facts::of_binary(root).unwrap()
    })
}

#[cfg(test)]
mod tests;
