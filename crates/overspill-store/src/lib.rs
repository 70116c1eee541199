//! Where tool outputs live on disk.
//!
//! `overspill-store` owns the scratchpad and artifact directory layout ([`Layout`]),
//! content-addressed atomic writes of intercepted outputs ([`Store`]), re-indented JSON or text
//! as given ([`TextLayout`]), format detection ([`Format`]), and the read root ([`ReadRoot`]): the one validation every read goes through
//! (docs/storage.md), which hands out open files ([`RootFile`]), never paths to reopen.
//! `docs/storage.md` describes the on-disk result.
//!
//! ```
//! use overspill_store::{Layout, Output, Store, TextLayout};
//!
//! let memory = tempfile::tempdir()?;
//! let layout = Layout::single_agent(memory.path());
//! let store = Store::open(layout.scratchpad_dir().expect("a single agent has a scratchpad"))?;
//!
//! let stored = store.write_output(&Output {
//!     tool: "k8s_list_pods",
//!     server: Some("k8s"),
//!     content: r#"{"kind":"PodList","items":[{"name":"web-1"}]}"#,
//!     tokens: None,
//!     text_layout: TextLayout::Reindented,
//! })?;
//!
//! // The model later asks for the file by the name its pointer gave.
//! let root = layout.open_read_root()?;
//! let bytes = root.open(&stored.file_name)?.read_to_end()?;
//! assert!(String::from_utf8(bytes)?.contains("\"name\": \"web-1\""));
//! assert!(root.open("../scratchpad/../../etc/passwd").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Architecture invariant
//!
//! This crate depends on no other overspill crate but `overspill-json` (whose re-indenter
//! writes stored JSON) and never counts tokens: a token count is something a caller hands it
//! to record. No path it returns lies outside its read root.

mod atomic;
mod companion;
mod counter;
mod error;
mod format;
mod layout;
mod metadata;
mod name;
mod read_root;
mod relative;
mod retention;
mod root_file;
pub mod shared;
mod store;
mod time;

pub use atomic::{RESERVED_PREFIX, write_replacing};
pub use companion::{COMPANION_MIN_LINES, Companion, MAX_COMPANIONS};
pub use counter::CounterFile;
pub use error::{LayoutError, PathError, StoreError};
pub use format::{Format, atx_heading};
pub use layout::{Layout, Role, validate_id};
pub use metadata::{METADATA_DIR, Metadata, TokenTally};
pub use name::{HASH_HEX_CHARS, MAX_NAME_CHARS, content_hash, count_lines, sanitize_name};
pub use read_root::ReadRoot;
pub use relative::relative_ref;
pub use retention::{DEFAULT_MAX_SESSION_RUNS, RunStarted};
pub use root_file::RootFile;
pub use shared::{Listing, Objects, ObjectsError, SharedStore};
pub use store::{Output, Store, Stored, TextLayout};
