//! What docs/mcp-proxy.md and docs/cli.md state about the command line, checked against the
//! binary's own definition of it (clap's) and its limits, so that a default or limit changed in
//! the code fails the tests until the docs follow
//! (docs/architecture.md#what-cargo-xtask-tidy-checks). Test-only.
//!
//! The rule, which the two pages follow:
//! - **Which command.** Every flag on docs/mcp-proxy.md is `overspill mcp`'s; on docs/cli.md, a
//!   flag belongs to the command its `## `overspill <command> …`` section names (with that
//!   command's subcommands), and flags before the first such section are not checked.
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
//!   the depth at which `overspill mcp` refuses to start (`MAX_DEPTH` in `cmd/mcp.rs`).

use std::fmt;
use std::fs;
use std::path::Path;

use clap::Command;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// The pages checked, each with the command its flags belong to (`None`: per section).
pub const PAGES: &[(&str, Option<&str>)] =
    &[("docs/mcp-proxy.md", Some("mcp")), ("docs/cli.md", None)];

/// A statement of a doc that the code does not bear out.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The page and line: `docs/mcp-proxy.md:147`.
    pub at: String,
    /// What is wrong, and what the code says.
    pub what: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}; make the doc say what the code does",
            self.at, self.what
        )
    }
}

/// Where the pages under `root` differ from `command` (the whole `overspill` command) and from
/// the chain's limit `max_depth`.
pub fn problems(root: &Path, command: &Command, max_depth: u32) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (page, scope) in PAGES {
        let text = match fs::read_to_string(root.join(page)) {
            Ok(text) => text,
            Err(error) => {
                problems.push(Problem {
                    at: (*page).to_owned(),
                    what: format!("cannot be read ({error})"),
                });
                continue;
            }
        };
        for statement in statements(&text, *scope) {
            if let Some(what) = disagreement(&statement, command) {
                problems.push(Problem {
                    at: format!("{page}:{}", statement.line),
                    what,
                });
            }
        }
    }
    let chain = fs::read_to_string(root.join("docs/mcp-proxy.md")).unwrap_or_default();
    let chain = chain.split_whitespace().collect::<Vec<_>>().join(" ");
    if !chain.contains(&format!("at most {max_depth} proxies")) {
        problems.push(Problem {
            at: "docs/mcp-proxy.md".to_owned(),
            what: format!(
                "does not say that a chain holds at most {max_depth} proxies, the depth at \
                 which `overspill mcp` refuses to start"
            ),
        });
    }
    problems
}

/// One statement of a flag's default.
#[derive(Debug, Clone, PartialEq)]
struct Statement {
    line: usize,
    /// The subcommand path the flag belongs to (`["mcp"]`).
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
fn disagreement(statement: &Statement, command: &Command) -> Option<String> {
    let Some(owner) = find(command, &statement.command) else {
        return Some(format!(
            "names the command `overspill {}`, which does not exist",
            statement.command.join(" ")
        ));
    };
    let flag = &statement.flag;
    let long = flag.trim_start_matches('-');
    let args = flag_args(owner, long);
    if args.is_empty() {
        return statement.value.as_ref().map(|value| {
            format!(
                "states the default {value} for `{flag}`, which `{}` does not have",
                owner.get_name()
            )
        });
    }
    let defaults: Vec<String> = args
        .iter()
        .filter_map(|arg| {
            let values = arg.get_default_values();
            (values.len() == 1).then(|| values[0].to_string_lossy().into_owned())
        })
        .collect();
    if defaults.is_empty() {
        // The code chooses this flag's default after parsing: nothing to hold the doc to.
        return None;
    }
    let Some(value) = &statement.value else {
        return statement.row.then(|| {
            format!(
                "the row of `{flag}` states no default, and its definition's is `{}`",
                defaults.join("` or `")
            )
        });
    };
    let agrees = defaults.iter().any(|default| match value {
        Value::Number(number) => default.parse::<f64>().is_ok_and(|d| d == *number),
        Value::Code(code) => default == code,
    });
    (!agrees).then(|| {
        format!(
            "states the default {value} for `{flag}`, and its definition's is `{}`",
            defaults.join("` or `")
        )
    })
}

/// The subcommand of `command` at `path`.
fn find<'a>(command: &'a Command, path: &[String]) -> Option<&'a Command> {
    path.iter().try_fold(command, |command, name| {
        command.find_subcommand(name.as_str())
    })
}

/// The arguments named `--long` of `command` and of its subcommands, at any depth.
fn flag_args<'a>(command: &'a Command, long: &str) -> Vec<&'a clap::Arg> {
    let mut found: Vec<&clap::Arg> = command
        .get_arguments()
        .filter(|arg| arg.get_long() == Some(long))
        .collect();
    for sub in command.get_subcommands() {
        found.extend(flag_args(sub, long));
    }
    found
}

/// The statements of defaults on a page whose flags are all `scope`'s, or, without one, each
/// its section's.
fn statements(page: &str, scope: Option<&str>) -> Vec<Statement> {
    let events: Vec<(Event<'_>, usize)> = Parser::new_ext(page, Options::ENABLE_TABLES)
        .into_offset_iter()
        .map(|(event, at)| (event, page[..at.start].matches('\n').count() + 1))
        .collect();
    let mut found = Vec::new();
    let mut command: Option<Vec<String>> = scope.map(|name| vec![name.to_owned()]);
    let mut heading: Option<String> = None;
    let mut table = Table::default();
    for (i, (event, line)) in events.iter().enumerate() {
        match event {
            Event::Start(Tag::Heading { level, .. }) if *level <= HeadingLevel::H2 => {
                heading = Some(String::new());
            }
            Event::End(TagEnd::Heading(level)) if *level <= HeadingLevel::H2 => {
                if scope.is_none() {
                    command = heading.take().and_then(|title| section_command(&title));
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
                if let (Some(column), Some(command)) = (table.default_column, &command)
                    && let Some(statement) = row_statement(&row, column, command, *line)
                {
                    found.push(statement);
                }
            }
            _ => {
                if let Some(cell) = &mut table.cell {
                    cell.push(event.clone());
                }
                // Prose, in a table's cells too.
                if let (Event::Code(code), Some(command)) = (event, &command)
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

/// The command a `## `overspill <command> …`` section is about: the words after `overspill`
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

#[cfg(test)]
mod tests;
