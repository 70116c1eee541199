//! The JSON parser behind every JSON tool: bytes in, a [`Tape`] with line positions out.
//!
//! It is iterative (an explicit stack, no recursion), so a document nested 100,000 levels
//! deep parses like any other (docs/tools.md); it validates exactly what JSON allows (RFC 8259:
//! strings are UTF-8 with escaped control characters, numbers follow the grammar, one value
//! per document), reading its tokens with the crate's one lexer, which also gives every node
//! its line.
//!
//! [`parse_window`] is the same pass in a streaming mode: it follows a path and keeps only
//! the value there, or only a window of the array there (with the array's full length), so
//! a file too large to keep parsed in the cache still answers a windowed call without
//! building the whole tape. The rest of the document is still validated.

use crate::lex::{Lexer, ParseError};
use crate::path::Segment;
use crate::tape::{Container, ESCAPED, Kind, Node, TRUE, Tape};

/// The largest file the parser accepts: positions are 32-bit.
pub const MAX_BYTES: usize = u32::MAX as usize;

/// Parses a whole document.
///
/// # Errors
/// [`ParseError`] at the first place the bytes stop being JSON.
///
/// ```
/// use overspill_json::parse;
///
/// let src = b"{\n  \"a\": [\n    1\n  ]\n}\n";
/// let tape = parse(src).unwrap();
/// let a = tape.root(src).get("a").unwrap();
/// assert_eq!((a.line(), a.end_line()), (2, 4));
///
/// let error = parse(b"{\"a\": tru}").unwrap_err();
/// assert_eq!(error.to_string(), "line 1, column 7: expected `true`");
/// ```
pub fn parse(src: &[u8]) -> Result<Tape, ParseError> {
    let mut parser = Parser::new(src, Plan::Whole)?;
    parser.run()?;
    Ok(parser.finish())
}

/// What [`parse_window`] keeps at the end of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The whole value.
    Value,
    /// Items `offset..offset + limit` of the array there.
    Window {
        /// First item kept.
        offset: u64,
        /// Most items kept.
        limit: u64,
    },
}

/// What [`parse_window`] found at the end of the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// For [`Target::Value`], the value (the tape's root); for [`Target::Window`], an array
    /// holding only the window's items, with the real array's lines. `total` is the real
    /// array's length (for a value, its length as [`NodeRef::len`](crate::NodeRef::len) gives it).
    Tape {
        /// The kept part.
        tape: Tape,
        /// Items of the real array.
        total: u64,
    },
    /// A window was asked of something that is not an array.
    NotAnArray(Kind),
    /// Nothing is at the path; the caller should resolve it on a full parse for the
    /// details of what is there instead.
    Missing,
}

/// Parses `src` keeping only what `target` asks for at `path` (see the module docs).
/// A path with an index from the end (`[-1]`) cannot be followed in one pass: it reports
/// [`Found::Missing`].
///
/// # Errors
/// [`ParseError`] as [`parse`].
pub fn parse_window(src: &[u8], path: &[Segment], target: Target) -> Result<Found, ParseError> {
    if path.iter().any(|s| matches!(s, Segment::FromEnd(_))) {
        return Ok(Found::Missing);
    }
    let mut parser = Parser::new(src, Plan::Follow { path, target })?;
    parser.run()?;
    Ok(match parser.found {
        Some(Hit::Recorded { total }) => Found::Tape {
            total,
            tape: parser.finish(),
        },
        Some(Hit::NotAnArray(kind)) => Found::NotAnArray(kind),
        None => Found::Missing,
    })
}

#[derive(Clone, Copy)]
enum Plan<'p> {
    Whole,
    Follow { path: &'p [Segment], target: Target },
}

enum Hit {
    Recorded { total: u64 },
    NotAnArray(Kind),
}

/// How the parser treats a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Keep it on the tape.
    Record,
    /// Validate it only.
    Skip,
    /// It matches the first `n` segments of the path; look inside.
    Follow(usize),
    /// It is the value at the end of the path.
    Target,
    /// It is the array at the end of the path; keep the window's items.
    Window,
}

struct Frame {
    /// Index of the container's node on the tape, or `NO_NODE`.
    node: u32,
    /// Items so far (entries for an object).
    count: u32,
    object: bool,
    mode: Mode,
    /// For an object: the mode of the value after the key just read.
    pending: Mode,
    /// Line the container opened on, for "not closed" errors.
    opened: u32,
}

const NO_NODE: u32 = u32::MAX;

struct Parser<'s, 'p> {
    lx: Lexer<'s>,
    nodes: Vec<Node>,
    containers: Vec<Container>,
    stack: Vec<Frame>,
    max_depth: u32,
    plan: Plan<'p>,
    found: Option<Hit>,
}

impl<'s, 'p> Parser<'s, 'p> {
    fn new(src: &'s [u8], plan: Plan<'p>) -> Result<Parser<'s, 'p>, ParseError> {
        if src.len() > MAX_BYTES {
            return Err(Lexer::new(&[]).error(
                "the file is larger than 4 GiB, the most the JSON tools parse; use grep and \
                 slice on it",
            ));
        }
        // Pretty-printed JSON averages about 20 bytes per node; compact JSON about 8.
        let capacity = match plan {
            Plan::Whole => src.len() / 16,
            Plan::Follow { .. } => 64,
        };
        Ok(Parser {
            lx: Lexer::new(src),
            nodes: Vec::with_capacity(capacity),
            containers: Vec::new(),
            stack: Vec::new(),
            max_depth: 0,
            plan,
            found: None,
        })
    }

    fn finish(self) -> Tape {
        Tape {
            nodes: self.nodes,
            containers: self.containers,
            max_depth: self.max_depth,
        }
    }

    fn root_mode(&self) -> Mode {
        match self.plan {
            Plan::Whole => Mode::Record,
            Plan::Follow { path: [], .. } => Mode::Target,
            Plan::Follow { .. } => Mode::Follow(0),
        }
    }

    /// The mode of a value whose match of the path reached `matched` segments.
    fn matched(&self, matched: usize) -> Mode {
        match self.plan {
            Plan::Follow { path, .. } if matched == path.len() => Mode::Target,
            _ => Mode::Follow(matched),
        }
    }

    /// The mode of the next item of the array on top of the stack; counts it.
    fn next_item_mode(&mut self) -> Mode {
        let plan = self.plan;
        let Some(frame) = self.stack.last_mut() else {
            return Mode::Skip;
        };
        let index = u64::from(frame.count);
        frame.count = frame.count.saturating_add(1);
        match frame.mode {
            Mode::Record => Mode::Record,
            Mode::Window => match plan {
                Plan::Follow {
                    target: Target::Window { offset, limit },
                    ..
                } if index >= offset && index - offset < limit => Mode::Record,
                _ => Mode::Skip,
            },
            Mode::Follow(n) => match plan {
                Plan::Follow { path, .. } if path.get(n) == Some(&Segment::Index(index)) => {
                    self.matched(n + 1)
                }
                _ => Mode::Skip,
            },
            Mode::Skip | Mode::Target => Mode::Skip,
        }
    }

    /// Reads an object key (at `"`) and the `:` after it; sets the mode of its value.
    fn key(&mut self) -> Result<(), ParseError> {
        if self.lx.src.get(self.lx.pos) != Some(&b'"') {
            return Err(self.lx.error(match self.lx.src.get(self.lx.pos) {
                Some(b'}') => "a trailing comma before `}` is not allowed in JSON",
                None => "the document ends where an object key should start",
                _ => "expected a quoted object key",
            }));
        }
        let line = self.lx.line;
        let (start, end, flags) = self.lx.string()?;
        let plan = self.plan;
        let Some(frame) = self.stack.last_mut() else {
            return Ok(());
        };
        frame.count = frame.count.saturating_add(1);
        let mode = frame.mode;
        let pending = match mode {
            Mode::Record => {
                self.nodes.push(Node {
                    kind: Kind::String,
                    flags,
                    line,
                    a: start as u32,
                    b: end as u32,
                });
                Mode::Record
            }
            Mode::Follow(n) => {
                let key = &self.lx.src[start..end];
                let hit = match plan {
                    Plan::Follow { path, .. } => match path.get(n) {
                        Some(Segment::Key(want)) => key_matches(key, flags, want),
                        Some(Segment::Index(i)) => key_matches(key, flags, &i.to_string()),
                        _ => false,
                    },
                    Plan::Whole => false,
                };
                if hit { self.matched(n + 1) } else { Mode::Skip }
            }
            _ => Mode::Skip,
        };
        if let Some(frame) = self.stack.last_mut() {
            frame.pending = pending;
        }
        self.lx.skip_ws();
        if self.lx.src.get(self.lx.pos) != Some(&b':') {
            return Err(self.lx.error("expected `:` after an object key"));
        }
        self.lx.pos += 1;
        Ok(())
    }

    fn run(&mut self) -> Result<(), ParseError> {
        let mut mode = self.root_mode();
        'value: loop {
            self.lx.skip_ws();
            let Some(&byte) = self.lx.src.get(self.lx.pos) else {
                return Err(self
                    .lx
                    .error(if self.stack.is_empty() && self.nodes.is_empty() {
                        "the file is empty or holds only whitespace"
                    } else {
                        "the document ends where a value should start"
                    }));
            };
            let line = self.lx.line;
            if mode == Mode::Target {
                mode = self.target(byte);
            }
            match byte {
                b'{' | b'[' => {
                    let object = byte == b'{';
                    let node = if mode == Mode::Record || mode == Mode::Window {
                        let id = self.nodes.len() as u32;
                        self.nodes.push(Node {
                            kind: if object { Kind::Object } else { Kind::Array },
                            flags: 0,
                            line,
                            a: 0,
                            b: self.containers.len() as u32,
                        });
                        self.containers.push(Container {
                            len: 0,
                            end_line: line,
                        });
                        id
                    } else {
                        NO_NODE
                    };
                    self.lx.pos += 1;
                    self.stack.push(Frame {
                        node,
                        count: 0,
                        object,
                        mode,
                        pending: Mode::Skip,
                        opened: line,
                    });
                    self.max_depth = self.max_depth.max(self.stack.len() as u32);
                    self.lx.skip_ws();
                    let close = if object { b'}' } else { b']' };
                    if self.lx.src.get(self.lx.pos) == Some(&close) {
                        self.lx.pos += 1;
                        self.close();
                    } else if object {
                        self.key()?;
                        mode = self.pending();
                        continue 'value;
                    } else {
                        mode = self.next_item_mode();
                        continue 'value;
                    }
                }
                b'"' => {
                    let (start, end, flags) = self.lx.string()?;
                    self.scalar(mode, Kind::String, flags, line, start, end);
                }
                b't' | b'f' | b'n' => {
                    let (word, kind, flags): (&[u8], _, _) = match byte {
                        b't' => (b"true", Kind::Bool, TRUE),
                        b'f' => (b"false", Kind::Bool, 0),
                        _ => (b"null", Kind::Null, 0),
                    };
                    let start = self.lx.literal(word)?;
                    self.scalar(mode, kind, flags, line, start, self.lx.pos);
                }
                b'-' | b'0'..=b'9' => {
                    let start = self.lx.number()?;
                    self.scalar(mode, Kind::Number, 0, line, start, self.lx.pos);
                }
                _ => {
                    return Err(self.lx.error(match byte {
                        b']' | b'}' => "a trailing comma or a missing value before the bracket",
                        b'\'' => "strings take double quotes in JSON",
                        _ => {
                            "expected a value (object, array, string, number, true, false or null)"
                        }
                    }));
                }
            }
            // A value is complete: close containers until one continues.
            loop {
                let Some(frame) = self.stack.last() else {
                    break 'value;
                };
                let (object, opened) = (frame.object, frame.opened);
                self.lx.skip_ws();
                match self.lx.src.get(self.lx.pos) {
                    Some(b',') => {
                        self.lx.pos += 1;
                        self.lx.skip_ws();
                        if object {
                            self.key()?;
                            mode = self.pending();
                        } else {
                            mode = self.next_item_mode();
                        }
                        continue 'value;
                    }
                    Some(b'}') if object => {
                        self.lx.pos += 1;
                        self.close();
                    }
                    Some(b']') if !object => {
                        self.lx.pos += 1;
                        self.close();
                    }
                    Some(_) => {
                        return Err(self.lx.error(if object {
                            "expected `,` or `}` after an object entry"
                        } else {
                            "expected `,` or `]` after an array item"
                        }));
                    }
                    None => {
                        return Err(self.lx.error(format!(
                            "the document ends inside the {} opened on line {opened}",
                            if object { "object" } else { "array" }
                        )));
                    }
                }
            }
        }
        self.lx.skip_ws();
        if !self.lx.at_end() {
            return Err(self.lx.error("unexpected text after the JSON value"));
        }
        Ok(())
    }

    fn pending(&self) -> Mode {
        self.stack.last().map_or(Mode::Skip, |f| f.pending)
    }

    /// Decides how to keep the value at the end of the path, which starts with `byte`.
    fn target(&mut self, byte: u8) -> Mode {
        let Plan::Follow { target, .. } = self.plan else {
            return Mode::Record;
        };
        // A repeated key: the last occurrence wins, as in a full parse.
        self.nodes.clear();
        self.containers.clear();
        self.max_depth = 0;
        match target {
            Target::Value => {
                self.found = Some(Hit::Recorded { total: 0 });
                Mode::Record
            }
            Target::Window { .. } if byte == b'[' => {
                self.found = Some(Hit::Recorded { total: 0 });
                Mode::Window
            }
            Target::Window { .. } => {
                let kind = match byte {
                    b'{' => Kind::Object,
                    b'"' => Kind::String,
                    b't' | b'f' => Kind::Bool,
                    b'n' => Kind::Null,
                    _ => Kind::Number,
                };
                self.found = Some(Hit::NotAnArray(kind));
                Mode::Skip
            }
        }
    }

    fn scalar(&mut self, mode: Mode, kind: Kind, flags: u8, line: u32, start: usize, end: usize) {
        if mode == Mode::Record {
            self.nodes.push(Node {
                kind,
                flags,
                line,
                a: start as u32,
                b: end as u32,
            });
        }
    }

    fn close(&mut self) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        if frame.node == NO_NODE {
            return;
        }
        let end = self.nodes.len() as u32;
        let kept = if frame.mode == Mode::Window {
            let total = u64::from(frame.count);
            let kept = match self.plan {
                Plan::Follow {
                    target: Target::Window { offset, limit },
                    ..
                } => total.saturating_sub(offset).min(limit),
                _ => total,
            };
            self.found = Some(Hit::Recorded { total });
            kept as u32
        } else {
            if self.stack.iter().all(|f| f.node == NO_NODE) && frame.node == 0 {
                // The target value itself (or the whole document): report its length.
                if let Some(Hit::Recorded { total }) = &mut self.found {
                    *total = u64::from(frame.count);
                }
            }
            frame.count
        };
        let line = self.lx.line;
        let node = &mut self.nodes[frame.node as usize];
        node.a = end;
        let container = &mut self.containers[node.b as usize];
        container.len = kept;
        container.end_line = line;
    }
}

fn key_matches(raw: &[u8], flags: u8, want: &str) -> bool {
    if flags & ESCAPED == 0 {
        raw == want.as_bytes()
    } else {
        std::str::from_utf8(raw).is_ok_and(|raw| crate::string::unescape(raw) == want)
    }
}

#[cfg(test)]
mod tests;
