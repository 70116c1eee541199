//! Colour for terminal output: on only when stdout is a terminal and `NO_COLOR` is unset.

use std::io::IsTerminal;

/// Wraps text in ANSI styles, or leaves it plain.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    enabled: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is not set (<https://no-color.org>).
    pub fn for_stdout() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            enabled: std::io::stdout().is_terminal() && !no_color,
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// A heading.
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Secondary text.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// A command the user could type.
    pub fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }

    /// A good result.
    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }
}
