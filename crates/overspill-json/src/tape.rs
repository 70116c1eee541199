//! The parsed form of a JSON file: a flat tape of nodes with their line positions.
//!
//! A [`Tape`] holds one node per value and per object key, in document order (pre-order).
//! A container records where its subtree ends, so a sibling is one step away whatever the
//! size of what lies between; strings and numbers record the byte range of their token in the
//! file instead of a copy, so the tape costs 16 bytes per value and per key, and 8 more per
//! container, on top of the file bytes (about 0.8 times the file for pretty-printed JSON; 16
//! bytes per value matters on arrays of millions of numbers, docs/performance.md). Every node
//! knows the line it starts on and containers the line they end on, taken from the parser's
//! own position ([`crate::parse`]), which is what `schema` prints as `[L10-L80]`.
//!
//! Navigation goes through [`NodeRef`], a cursor pairing the tape with the file bytes.

use std::borrow::Cow;

/// What kind of JSON value a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Kind {
    /// `{…}`.
    Object,
    /// `[…]`.
    Array,
    /// `"…"`.
    String,
    /// A number token.
    Number,
    /// `true` or `false`.
    Bool,
    /// `null`.
    Null,
}

impl Kind {
    /// The name used in schemas and errors: `object`, `array`, `string`, `number`,
    /// `boolean`, `null`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Object => "object",
            Kind::Array => "array",
            Kind::String => "string",
            Kind::Number => "number",
            Kind::Bool => "boolean",
            Kind::Null => "null",
        }
    }

    /// The kind of a parsed `serde_json::Value`.
    pub fn of(value: &serde_json::Value) -> Kind {
        match value {
            serde_json::Value::Null => Kind::Null,
            serde_json::Value::Bool(_) => Kind::Bool,
            serde_json::Value::Number(_) => Kind::Number,
            serde_json::Value::String(_) => Kind::String,
            serde_json::Value::Array(_) => Kind::Array,
            serde_json::Value::Object(_) => Kind::Object,
        }
    }

    /// The kind as a message names a value of it: `an object`, `a number`, `null`.
    ///
    /// ```
    /// use overspill_json::Kind;
    ///
    /// assert_eq!(Kind::of(&serde_json::json!([1])).in_words(), "an array");
    /// assert_eq!(Kind::Null.in_words(), "null");
    /// ```
    pub fn in_words(self) -> &'static str {
        match self {
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::String => "a string",
            Kind::Number => "a number",
            Kind::Bool => "a boolean",
            Kind::Null => "null",
        }
    }

    /// Every kind, in the order schemas list them.
    pub const ALL: [Kind; 6] = [
        Kind::Object,
        Kind::Array,
        Kind::String,
        Kind::Number,
        Kind::Bool,
        Kind::Null,
    ];
}

/// A string token holds at least one escape sequence.
pub(crate) const ESCAPED: u8 = 1;
/// A string token holds a byte outside ASCII.
pub(crate) const NON_ASCII: u8 = 2;
/// A boolean node is `true`.
pub(crate) const TRUE: u8 = 4;

/// One value (or object key) on the tape: 16 bytes.
///
/// For a scalar, `a..b` is the byte range of its token (for a string, between the quotes).
/// For a container, `a` is the index one past its subtree and `b` the index of its
/// [`Container`] (what only containers need lives beside the nodes, so a scalar, the most
/// common node by far, does not carry it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Node {
    pub(crate) kind: Kind,
    pub(crate) flags: u8,
    pub(crate) line: u32,
    pub(crate) a: u32,
    pub(crate) b: u32,
}

// The tape's size is 16 bytes a node: keep it so (docs/performance.md, "Memory").
const _: () = assert!(std::mem::size_of::<Node>() == 16);

/// What a container has besides its node: its number of items (entries for an object) and
/// the line of its closing bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Container {
    pub(crate) len: u32,
    pub(crate) end_line: u32,
}

/// A parsed JSON document (or a window of one), without the file bytes it points into.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tape {
    pub(crate) nodes: Vec<Node>,
    pub(crate) containers: Vec<Container>,
    pub(crate) max_depth: u32,
}

impl Tape {
    /// The root value, read against `src`, the bytes the tape was parsed from.
    ///
    /// # Panics
    /// Never for a tape returned by the parser (it always holds a root); an empty tape made
    /// with `Default` has no root and must not be read.
    pub fn root<'a>(&'a self, src: &'a [u8]) -> NodeRef<'a> {
        NodeRef {
            tape: self,
            src,
            id: 0,
        }
    }

    /// How many nodes (values and keys) the tape holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tape holds no node at all.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The deepest nesting of containers (a scalar root is depth 0, `[[1]]` depth 2).
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Bytes the tape occupies, for the file cache's accounting.
    pub fn heap_bytes(&self) -> u64 {
        (self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.containers.capacity() * std::mem::size_of::<Container>()) as u64
    }
}

/// A cursor on one value of a [`Tape`].
#[derive(Clone, Copy)]
pub struct NodeRef<'a> {
    tape: &'a Tape,
    src: &'a [u8],
    id: u32,
}

impl std::fmt::Debug for NodeRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeRef")
            .field("id", &self.id)
            .field("kind", &self.kind())
            .field("line", &self.line())
            .finish()
    }
}

impl<'a> NodeRef<'a> {
    fn node(&self) -> &'a Node {
        &self.tape.nodes[self.id as usize]
    }

    /// The container part of a container's node.
    fn container(&self) -> Container {
        self.tape.containers[self.node().b as usize]
    }

    fn at(&self, id: u32) -> NodeRef<'a> {
        NodeRef { id, ..*self }
    }

    /// The value's position on its tape: unique per value of one document.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The value's kind.
    pub fn kind(&self) -> Kind {
        self.node().kind
    }

    /// The 1-based line the value starts on.
    pub fn line(&self) -> u32 {
        self.node().line
    }

    /// The 1-based line the value ends on (its start line for a scalar).
    pub fn end_line(&self) -> u32 {
        let node = self.node();
        match node.kind {
            Kind::Object | Kind::Array => self.container().end_line,
            _ => node.line,
        }
    }

    /// Items of an array, entries of an object, 0 for a scalar.
    pub fn len(&self) -> u64 {
        match self.kind() {
            Kind::Object | Kind::Array => u64::from(self.container().len),
            _ => 0,
        }
    }

    /// Whether a container is empty (always true for a scalar).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Nodes in this value's subtree, itself included (keys count as nodes).
    pub fn subtree_nodes(&self) -> u64 {
        u64::from(self.next_id() - self.id)
    }

    /// The index just past this value's subtree.
    fn next_id(&self) -> u32 {
        let node = self.node();
        match node.kind {
            Kind::Object | Kind::Array => node.a,
            _ => self.id + 1,
        }
    }

    /// The first child of this value and how many there are, when it is of `kind` (none
    /// otherwise): where [`NodeRef::items`] and [`NodeRef::entries`] start.
    fn children(&self, kind: Kind) -> (NodeRef<'a>, u32) {
        let remaining = if self.kind() == kind {
            self.container().len
        } else {
            0
        };
        (self.at(self.id + 1), remaining)
    }

    /// The items of an array (nothing for any other kind).
    pub fn items(&self) -> Items<'a> {
        let (next, remaining) = self.children(Kind::Array);
        Items { next, remaining }
    }

    /// The entries of an object, key first (nothing for any other kind).
    pub fn entries(&self) -> Entries<'a> {
        let (next, remaining) = self.children(Kind::Object);
        Entries { next, remaining }
    }

    /// The item at `index` of an array.
    pub fn index(&self, index: u64) -> Option<NodeRef<'a>> {
        if index >= self.len() || self.kind() != Kind::Array {
            return None;
        }
        self.items().nth(usize::try_from(index).ok()?)
    }

    /// The value of `key` in an object; the last one when the key is repeated, as
    /// `serde_json` and jq read it.
    pub fn get(&self, key: &str) -> Option<NodeRef<'a>> {
        self.entries()
            .filter(|(k, _)| k.str_eq(key))
            .last()
            .map(|(_, v)| v)
    }

    /// The raw token bytes of a scalar (between the quotes for a string).
    pub fn raw(&self) -> &'a [u8] {
        let node = self.node();
        match node.kind {
            Kind::Object | Kind::Array => &[],
            _ => &self.src[node.a as usize..node.b as usize],
        }
    }

    /// The raw token as text: a number as written, a string still escaped.
    pub fn raw_str(&self) -> &'a str {
        std::str::from_utf8(self.raw()).unwrap_or_default()
    }

    /// The value as compact JSON: every token exactly as the file writes it (numbers and
    /// escapes untouched), no whitespace between them. One pass over the subtree, without
    /// recursion, whatever its depth.
    pub fn compact_text(&self) -> String {
        struct Open {
            object: bool,
            left: u32,
            key_next: bool,
            first: bool,
        }
        let mut out = String::new();
        let mut stack: Vec<Open> = Vec::new();
        for id in self.id..self.next_id() {
            let node = self.at(id);
            if let Some(top) = stack.last_mut() {
                if !top.first && (!top.object || top.key_next) {
                    out.push(',');
                }
                top.first = false;
                if top.object && top.key_next {
                    top.key_next = false;
                    out.push('"');
                    out.push_str(node.raw_str());
                    out.push_str("\":");
                    continue;
                }
            }
            match node.kind() {
                kind @ (Kind::Object | Kind::Array) => {
                    let object = kind == Kind::Object;
                    out.push(if object { '{' } else { '[' });
                    let left = node.container().len;
                    if left > 0 {
                        stack.push(Open {
                            object,
                            left,
                            key_next: object,
                            first: true,
                        });
                        continue;
                    }
                    out.push(if object { '}' } else { ']' });
                }
                Kind::String => {
                    out.push('"');
                    out.push_str(node.raw_str());
                    out.push('"');
                }
                _ => out.push_str(node.raw_str()),
            }
            // A value is complete: close every container it completes.
            while let Some(top) = stack.last_mut() {
                top.left -= 1;
                top.key_next = top.object;
                if top.left > 0 {
                    break;
                }
                out.push(if top.object { '}' } else { ']' });
                stack.pop();
            }
        }
        out
    }

    /// The number tokens of the value's subtree, in document order, as written.
    pub fn numbers(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let at = *self;
        (self.id..self.next_id())
            .map(move |id| at.at(id))
            .filter(|node| node.kind() == Kind::Number)
            .map(|node| node.raw_str())
    }

    /// Whether this is `true` (false for anything else).
    pub fn is_true(&self) -> bool {
        self.kind() == Kind::Bool && self.node().flags & TRUE != 0
    }

    /// The decoded text of a string (empty for other kinds). Borrowed when the token has no
    /// escape sequence.
    pub fn str(&self) -> Cow<'a, str> {
        if self.kind() != Kind::String {
            return Cow::Borrowed("");
        }
        let raw = self.raw_str();
        if self.node().flags & ESCAPED == 0 {
            Cow::Borrowed(raw)
        } else {
            Cow::Owned(crate::string::unescape(raw))
        }
    }

    /// Whether this string equals `text` once decoded.
    pub fn str_eq(&self, text: &str) -> bool {
        if self.node().flags & ESCAPED == 0 {
            self.raw() == text.as_bytes()
        } else {
            self.str() == text
        }
    }

    /// The number of characters of a string once decoded (0 for other kinds).
    pub fn char_len(&self) -> u64 {
        if self.kind() != Kind::String {
            return 0;
        }
        let flags = self.node().flags;
        if flags & (ESCAPED | NON_ASCII) == 0 {
            self.raw().len() as u64
        } else {
            self.str().chars().count() as u64
        }
    }

    /// The number of lines of a string once decoded: 1 plus its newlines (0 for other
    /// kinds; an empty string is one empty line).
    pub fn str_lines(&self) -> u64 {
        if self.kind() != Kind::String {
            return 0;
        }
        if self.node().flags & ESCAPED == 0 {
            // A raw newline cannot occur inside a JSON string token.
            1
        } else {
            1 + self.str().bytes().filter(|&b| b == b'\n').count() as u64
        }
    }

    /// The number of bytes between the value's first and last token in the file.
    pub fn source_bytes(&self) -> u64 {
        let last = self.next_id() - 1;
        let first = self.first_scalar_at_or_after(self.id);
        let last_scalar = self.last_scalar_at_or_before(last);
        match (first, last_scalar) {
            (Some(first), Some(last)) if last >= first => {
                let start = u64::from(self.tape.nodes[first as usize].a);
                let end = u64::from(self.tape.nodes[last as usize].b);
                end.saturating_sub(start) + 2
            }
            _ => 2,
        }
    }

    fn first_scalar_at_or_after(&self, from: u32) -> Option<u32> {
        let end = self.next_id();
        (from..end)
            .find(|&i| !matches!(self.tape.nodes[i as usize].kind, Kind::Object | Kind::Array))
    }

    fn last_scalar_at_or_before(&self, from: u32) -> Option<u32> {
        (self.id..=from)
            .rev()
            .find(|&i| !matches!(self.tape.nodes[i as usize].kind, Kind::Object | Kind::Array))
    }
}

/// The items of an array; see [`NodeRef::items`].
#[derive(Debug, Clone)]
pub struct Items<'a> {
    next: NodeRef<'a>,
    remaining: u32,
}

impl<'a> Iterator for Items<'a> {
    type Item = NodeRef<'a>;

    fn next(&mut self) -> Option<NodeRef<'a>> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let item = self.next;
        self.next = item.at(item.next_id());
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.remaining as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Items<'_> {}

/// The entries of an object; see [`NodeRef::entries`].
#[derive(Debug, Clone)]
pub struct Entries<'a> {
    next: NodeRef<'a>,
    remaining: u32,
}

impl<'a> Iterator for Entries<'a> {
    type Item = (NodeRef<'a>, NodeRef<'a>);

    fn next(&mut self) -> Option<(NodeRef<'a>, NodeRef<'a>)> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let key = self.next;
        let value = key.at(key.id + 1);
        self.next = value.at(value.next_id());
        Some((key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.remaining as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Entries<'_> {}

#[cfg(test)]
mod tests;
