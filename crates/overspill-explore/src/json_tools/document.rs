//! A stored file opened as JSON: parsed once, kept with the file in the cache, and the
//! errors every JSON tool shares (`not_json`, `path_not_found`, `not_an_array`).
//!
//! The parsed tape is a derived value of the cached file (docs/tools.md#1-common-rules), so a sequence of
//! calls on one file parses it once. A file whose parsed form would not fit the cache is
//! never kept; for it, a windowed call takes the streaming path instead
//! (`overspill_json::parse_window`), which keeps only the window in memory.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use overspill_store::Format;

use overspill_json::{
    Found, Instead, JsonPath, Kind, Miss, NodeRef, ParseError, PathSyntaxError, Shape, Tape, Target,
};

use super::describe::{describe_value, explain};
use super::window::window_summary;
use crate::args::{Located, Page};
use crate::cache::CachedFile;
use crate::context::ExploreContext;
use crate::error::{FoundInstead, PathNotFound, ToolError};
use crate::tool::Tool;

/// The parsed form of one file, cached with it.
#[derive(Debug)]
pub struct Document {
    tape: Tape,
}

impl Document {
    /// The parsed tape.
    pub fn tape(&self) -> &Tape {
        &self.tape
    }
}

/// A JSON file and its parsed form.
#[derive(Debug, Clone)]
pub struct Json {
    /// The file.
    pub file: Arc<CachedFile>,
    doc: Arc<Document>,
}

impl Json {
    /// The deepest nesting in the document.
    pub fn max_depth(&self) -> u32 {
        self.doc.tape.max_depth()
    }

    /// The parsed tape.
    pub fn tape(&self) -> &Tape {
        &self.doc.tape
    }
}

/// Opens `file` (as the caller named it) and parses it as JSON, from the cache when it was
/// parsed before.
///
/// # Errors
/// The file errors of [`ExploreContext::open`], and `not_json`.
pub fn open(ctx: &ExploreContext, file: &str) -> Result<Json, ToolError> {
    let cached = ctx.open(file)?;
    let doc = parsed(ctx, &cached, file)?;
    Ok(Json { file: cached, doc })
}

/// The value at `path` in `file`, found as `get_in` finds it, handed to `with` with whether
/// it was streamed: a file too large to keep parsed is read in one streaming pass that keeps
/// only the value; otherwise (or when the path misses, for the details) the cached parse.
///
/// # Errors
/// The file errors of [`ExploreContext::open`], `not_json`, and `path_not_found`.
pub fn with_value<T>(
    ctx: &ExploreContext,
    file: &str,
    path: &JsonPath,
    with: impl FnOnce(NodeRef<'_>, bool) -> T,
) -> Result<T, ToolError> {
    let cached = ctx.open(file)?;
    if should_stream(ctx, &cached) {
        ensure_json(&cached, file)?;
        match overspill_json::parse_window(cached.bytes(), path.segments(), Target::Value) {
            Ok(Found::Tape { tape, .. }) => return Ok(with(tape.root(cached.bytes()), true)),
            Err(error) => return Err(not_valid_json(file, &error)),
            Ok(_) => {}
        }
    }
    let doc = parsed(ctx, &cached, file)?;
    let value = resolve(doc.tape.root(cached.bytes()), path)?;
    Ok(with(value, false))
}

/// The parsed form of an open file.
///
/// # Errors
/// `not_json` when the file is not JSON.
pub fn parsed(
    ctx: &ExploreContext,
    cached: &Arc<CachedFile>,
    file: &str,
) -> Result<Arc<Document>, ToolError> {
    ensure_json(cached, file)?;
    ctx.cache().derived(cached, |f| {
        overspill_json::parse(f.bytes())
            .map(|tape| {
                let cost = tape.heap_bytes();
                (Document { tape }, cost)
            })
            .map_err(|error| not_valid_json(file, &error))
    })
}

/// Whether a windowed call on `cached` should stream rather than parse: the parsed form
/// would not stay in the cache (file plus tape over half its capacity).
pub fn should_stream(ctx: &ExploreContext, cached: &CachedFile) -> bool {
    cached.size().saturating_mul(2) > ctx.cache().capacity() / 2
}

/// `not_json` unless the file claims JSON by its extension or starts like JSON.
///
/// # Errors
/// `not_json` naming the detected format.
pub fn ensure_json(cached: &CachedFile, file: &str) -> Result<(), ToolError> {
    let format = Format::from_path(cached.path());
    let first = cached
        .bytes()
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .copied();
    if format == Format::Json || matches!(first, Some(b'{' | b'[')) {
        return Ok(());
    }
    Err(ToolError::NotJson {
        file: file.to_owned(),
        format: format.to_string(),
        message: format!(
            "`{file}` is {}, not JSON, so the JSON tools cannot read it; use schema for its \
             outline, grep to search it, or slice to read lines",
            if format == Format::Markdown {
                "Markdown"
            } else {
                "plain text"
            }
        ),
    })
}

/// The `not_json` error for a file that does not parse.
pub fn not_valid_json(file: &str, error: &ParseError) -> ToolError {
    ToolError::NotJson {
        file: file.to_owned(),
        format: "text".to_owned(),
        message: format!(
            "`{file}` is not valid JSON ({error}); read it as text with grep, slice or schema"
        ),
    }
}

/// Parses the path given as `argument`.
///
/// # Errors
/// `invalid_argument` naming `argument` and the failing segment.
pub fn parse_path(argument: &str, text: &str) -> Result<JsonPath, ToolError> {
    JsonPath::parse(text).map_err(|error: PathSyntaxError| ToolError::bad_argument(argument, error))
}

/// What every paged JSON tool checks first: a page that can show something, and its `path`.
///
/// # Errors
/// `invalid_argument` naming `limit` (0) or `path` (not a path).
pub fn paged_path<T: Tool>(at: &Located<T>, page: &Page<T>) -> Result<JsonPath, ToolError> {
    page.check()?;
    parse_path("path", &at.path)
}

/// The value at `path`.
///
/// # Errors
/// `path_not_found` with the valid prefix and what it holds.
pub fn resolve<'a>(root: NodeRef<'a>, path: &JsonPath) -> Result<NodeRef<'a>, ToolError> {
    overspill_json::resolve(root, path).map_err(|miss| path_not_found(path, &miss))
}

/// The `path_not_found` error for a miss.
pub fn path_not_found(path: &JsonPath, miss: &Miss) -> ToolError {
    let found = match &miss.instead {
        Instead::Keys { keys, total } if *total > keys.len() as u64 => FoundInstead::KeysCut {
            keys: keys.clone(),
            total: *total,
        },
        Instead::Keys { keys, .. } => FoundInstead::Keys(keys.clone()),
        Instead::ArrayLength(n) => FoundInstead::ArrayLength(*n),
        Instead::ValueType(kind) => FoundInstead::ValueType(kind.name().to_owned()),
    };
    ToolError::PathNotFound(Box::new(PathNotFound {
        path: path.to_string(),
        valid_prefix: miss.valid_prefix.to_string(),
        failed_segment: miss.failed_segment.clone(),
        found,
        message: explain(miss, path),
    }))
}

/// The `not_an_array` error for `value` at `path`, pointing at the tools that fit it.
pub fn not_an_array(tool: &str, path: &JsonPath, kind: Kind, described: &str) -> ToolError {
    let advice = match kind {
        Kind::Object => format!(
            "call schema with path {path} to see its keys, or get_in to read it; if one of its \
             keys holds the array, {tool} that path"
        ),
        _ => format!("read it with get_in {path}"),
    };
    ToolError::NotAnArray {
        path: path.to_string(),
        value_type: kind.name().to_owned(),
        message: format!("{tool} needs an array, but {path} is {described}; {advice}"),
    }
}

/// Arrays whose merged item shape is remembered per file.
const MAX_REMEMBERED_SHAPES: usize = 256;

/// The merged item shapes of a file's arrays, computed once: `schema` draws them and
/// `item_schema` over a whole array lists them, so the second of those calls costs only
/// its rendering.
#[derive(Debug, Default)]
pub struct ShapeMemo {
    shapes: Mutex<HashMap<u32, Arc<Shape<'static>>>>,
}

/// The merged shape of the items of `array` (a value of `cached`'s parsed document),
/// from the file's memo when it was computed before.
pub fn items_shape(
    ctx: &ExploreContext,
    cached: &Arc<CachedFile>,
    array: NodeRef<'_>,
) -> Arc<Shape<'static>> {
    let compute = || Arc::new(Shape::of_items(array).into_owned());
    let Ok(memo) = ctx
        .cache()
        .derived::<ShapeMemo, Infallible>(cached, |_| Ok((ShapeMemo::default(), 64 << 10)));
    if let Some(shape) = memo
        .shapes
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&array.id())
    {
        return Arc::clone(shape);
    }
    let shape = compute();
    let mut shapes = memo.shapes.lock().unwrap_or_else(PoisonError::into_inner);
    if shapes.len() < MAX_REMEMBERED_SHAPES {
        shapes.insert(array.id(), Arc::clone(&shape));
    }
    shape
}

/// `an object(5 keys)`, `a string(3 chars)`.
pub fn with_article(kind: Kind, described: &str) -> String {
    match kind {
        Kind::Object | Kind::Array => format!("an {described}"),
        _ => format!("a {described}"),
    }
}

/// A window of the items of the array at a path, from the cached parse or a streaming pass.
#[derive(Debug)]
pub struct ArrayWindow {
    file: Arc<CachedFile>,
    source: Source,
    /// Items of the whole array.
    pub total: u64,
    /// The first item of the window (clamped to `total`).
    pub start: u64,
    /// One past the window's last item.
    pub end: u64,
    /// The offset asked for, which may be past the end.
    offset: u64,
}

#[derive(Debug)]
enum Source {
    Parsed(Arc<Document>, JsonPath),
    Streamed(Tape),
}

impl ArrayWindow {
    /// Opens `page` of the items of the array at `path` in `file` (`offset..offset + limit`,
    /// all items from `offset` when `limit` is `None`) for the tool `T`.
    ///
    /// # Errors
    /// File errors, `not_json`, `path_not_found`, `not_an_array`.
    pub fn open<T: Tool>(
        ctx: &ExploreContext,
        file: &str,
        path: &JsonPath,
        page: &Page<T>,
    ) -> Result<ArrayWindow, ToolError> {
        let (tool, offset, limit) = (T::NAME, page.offset, page.limit);
        let cached = ctx.open(file)?;
        if let Some(limit) = limit
            && should_stream(ctx, &cached)
        {
            ensure_json(&cached, file)?;
            let target = Target::Window { offset, limit };
            match overspill_json::parse_window(cached.bytes(), path.segments(), target) {
                Ok(Found::Tape { tape, total }) => {
                    let start = offset.min(total);
                    let end = offset.saturating_add(limit).min(total).max(start);
                    return Ok(ArrayWindow {
                        file: cached,
                        source: Source::Streamed(tape),
                        total,
                        start,
                        end,
                        offset,
                    });
                }
                Ok(Found::NotAnArray(kind)) => {
                    return Err(not_an_array(
                        tool,
                        path,
                        kind,
                        &with_article(kind, kind.name()),
                    ));
                }
                Err(error) => return Err(not_valid_json(file, &error)),
                // The details of a miss come from a full parse.
                Ok(Found::Missing) => {}
            }
        }
        let doc = parsed(ctx, &cached, file)?;
        let (total, kind, described) = {
            let value = resolve(doc.tape.root(cached.bytes()), path)?;
            (value.len(), value.kind(), describe_value(value))
        };
        if kind != Kind::Array {
            return Err(not_an_array(
                tool,
                path,
                kind,
                &with_article(kind, &described),
            ));
        }
        let start = offset.min(total);
        let end = limit
            .map_or(total, |l| offset.saturating_add(l).min(total))
            .max(start);
        Ok(ArrayWindow {
            file: cached,
            source: Source::Parsed(doc, path.clone()),
            total,
            start,
            end,
            offset,
        })
    }

    /// The window as the footer and body show it: `[start, end)`, or `[offset, offset)` for an
    /// offset past the end (which holds no items).
    pub fn shown(&self) -> (u64, u64) {
        if self.past_end() {
            (self.offset, self.offset)
        } else {
            (self.start, self.end)
        }
    }

    /// The summary of a call over the window: `$.items (items [3..7) of 120 total, …)`, or
    /// `$.items (120 items, …)` when the call asked for `whole` the array and got it; `extra`
    /// follows the window (`, fields: […]`).
    pub fn summary(&self, path: &JsonPath, whole: bool, extra: &str) -> String {
        let (first, end) = self.shown();
        let full = whole && !self.past_end();
        format!(
            "{path} {}",
            window_summary("items", first, end, self.total, full, extra)
        )
    }

    fn past_end(&self) -> bool {
        self.offset > self.total
    }

    /// The window's items with their absolute indexes, one at a time (a window may be
    /// millions of items, of which a call renders a few before its cap).
    pub fn items(&self) -> Box<dyn Iterator<Item = (u64, NodeRef<'_>)> + '_> {
        match &self.source {
            Source::Streamed(tape) => Box::new(
                tape.root(self.file.bytes())
                    .items()
                    .enumerate()
                    .map(|(i, item)| (self.start + i as u64, item)),
            ),
            Source::Parsed(doc, path) => {
                let Ok(array) = overspill_json::resolve(doc.tape.root(self.file.bytes()), path)
                else {
                    return Box::new(std::iter::empty());
                };
                Box::new(
                    array
                        .items()
                        .enumerate()
                        .skip(usize::try_from(self.start).unwrap_or(usize::MAX))
                        .take(usize::try_from(self.end - self.start).unwrap_or(usize::MAX))
                        .map(|(i, item)| (i as u64, item)),
                )
            }
        }
    }

    /// How many items the window holds.
    pub fn count(&self) -> u64 {
        self.end - self.start
    }

    /// The merged shape of the window's items: remembered for the whole array, merged
    /// afresh for a part of it.
    pub fn shape(&self, ctx: &ExploreContext) -> Arc<Shape<'static>> {
        if let Source::Parsed(doc, path) = &self.source
            && self.start == 0
            && self.end == self.total
            && let Ok(array) = overspill_json::resolve(doc.tape.root(self.file.bytes()), path)
        {
            return items_shape(ctx, &self.file, array);
        }
        let mut shape = Shape::new();
        for (index, item) in self.items() {
            shape.merge(item, index, overspill_json::MAX_DEPTH);
        }
        Arc::new(shape.into_owned())
    }

    /// Whether the window came from a streaming pass.
    pub fn streamed(&self) -> bool {
        matches!(self.source, Source::Streamed(_))
    }
}
