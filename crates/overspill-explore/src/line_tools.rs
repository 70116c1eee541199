//! The line tools of docs/tools.md, one module each: `head`, `slice`, `grep`, `read`.
//!
//! (The JSON tools live in [`crate::json_tools`].)

pub mod grep;
pub mod head;
pub mod read;
pub mod slice;

use crate::numbered::thousands;

/// The footer summary of a window of lines `first..=last` of a file with `total` lines.
pub(crate) fn line_window(first: u64, last: u64, total: u64) -> String {
    if total == 0 {
        return "empty file (0 lines)".to_owned();
    }
    if last < first {
        return format!("no lines (the file has {} lines)", thousands(total));
    }
    if first == last {
        return format!("line {} of {}", thousands(first), thousands(total));
    }
    if first == 1 && last == total {
        return format!(
            "lines 1-{} of {} (whole file)",
            thousands(last),
            thousands(total)
        );
    }
    format!(
        "lines {}-{} of {}",
        thousands(first),
        thousands(last),
        thousands(total)
    )
}

/// `1 region`, `3 regions`.
pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}
