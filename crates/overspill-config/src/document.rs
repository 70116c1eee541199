//! Typed reads from the parsed TOML tree, each failing with a located
//! [`ConfigError`] that names the key path.
//!
//! The tree is toml's spanned `DeTable`, so every key and value keeps its
//! byte range and errors can give a line and column.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

use crate::error::ConfigError;
use crate::location::{KeyPath, Location, quoted};
use crate::suggest;

/// A key of a parsed table.
pub(crate) type Key<'i> = Spanned<DeString<'i>>;
/// A value of a parsed table.
pub(crate) type Value<'i> = Spanned<DeValue<'i>>;

/// The text being loaded, to turn byte spans into [`Location`]s.
pub(crate) struct Doc<'s> {
    text: &'s str,
    file: Option<&'s Path>,
}

/// What a count setting accepts.
#[derive(Clone, Copy)]
pub(crate) enum Count {
    /// 0 and up (`min_tokens`, `turn_depth_bonus`).
    NonNegative,
    /// 1 and up (`context_window`, `max_extraction_tokens`).
    Positive,
}

impl<'s> Doc<'s> {
    /// Parses `text` (read from `file`, when given): its spanned tree, and the `Doc` that turns
    /// the tree's spans into locations.
    pub(crate) fn parse(
        text: &'s str,
        file: Option<&'s Path>,
    ) -> Result<(Spanned<DeTable<'s>>, Self), ConfigError> {
        let parsed = DeTable::parse(text).map_err(|error| ConfigError::Syntax {
            file: file.map(Path::to_path_buf),
            error: Box::new(error),
        })?;
        Ok((parsed, Self { text, file }))
    }

    /// The location of a span's start.
    pub(crate) fn at(&self, span: Range<usize>) -> Location {
        Location::in_text(self.text, span.start, self.file)
    }

    /// The value as a table.
    pub(crate) fn table<'a, 'i>(
        &self,
        path: &KeyPath,
        value: &'a Value<'i>,
        expected: &'static str,
    ) -> Result<&'a DeTable<'i>, ConfigError> {
        match value.get_ref() {
            DeValue::Table(table) => Ok(table),
            _ => Err(self.wrong_type(path, value, expected)),
        }
    }

    /// The value as a boolean.
    /// `key` of `table` (at `path`) read by `read`, given the key's path; `None` when the
    /// table has no such key.
    pub(crate) fn optional<'a, 'i, T>(
        &self,
        table: &'a DeTable<'i>,
        path: &KeyPath,
        key: &str,
        read: impl FnOnce(&KeyPath, &'a Value<'i>) -> Result<T, ConfigError>,
    ) -> Result<Option<T>, ConfigError> {
        match table.get_key_value(key) {
            Some((_, value)) => read(&path.key(key), value).map(Some),
            None => Ok(None),
        }
    }

    pub(crate) fn boolean(&self, path: &KeyPath, value: &Value<'_>) -> Result<bool, ConfigError> {
        value
            .get_ref()
            .as_bool()
            .ok_or_else(|| self.wrong_type(path, value, "a boolean (true or false)"))
    }

    /// The value as a string.
    pub(crate) fn string<'a>(
        &self,
        path: &KeyPath,
        value: &'a Value<'_>,
        expected: &'static str,
    ) -> Result<&'a str, ConfigError> {
        value
            .get_ref()
            .as_str()
            .ok_or_else(|| self.wrong_type(path, value, expected))
    }

    /// The value as a non-empty string.
    pub(crate) fn non_empty_string<'a>(
        &self,
        path: &KeyPath,
        value: &'a Value<'_>,
        expected: &'static str,
    ) -> Result<&'a str, ConfigError> {
        let text = self.string(path, value, expected)?;
        if text.is_empty() {
            return Err(ConfigError::InvalidValue {
                key: path.clone(),
                at: self.at(value.span()),
                expected,
                found: "an empty string".to_owned(),
            });
        }
        Ok(text)
    }

    /// The value as a token count (`expected` describes it in errors).
    pub(crate) fn count(
        &self,
        path: &KeyPath,
        value: &Value<'_>,
        kind: Count,
        expected: &'static str,
    ) -> Result<u64, ConfigError> {
        let DeValue::Integer(integer) = value.get_ref() else {
            return Err(self.wrong_type(path, value, expected));
        };
        let invalid = || ConfigError::InvalidValue {
            key: path.clone(),
            at: self.at(value.span()),
            expected,
            found: integer.to_string(),
        };
        if integer.as_str().starts_with('-') {
            // Also "-0": a sign has no business in a count.
            return Err(invalid());
        }
        let number = u64::from_str_radix(integer.as_str().trim_start_matches('+'), integer.radix())
            .ok()
            // TOML integers are 64-bit signed; larger ones are not TOML.
            .filter(|&n| i64::try_from(n).is_ok())
            .ok_or_else(invalid)?;
        match kind {
            Count::Positive if number == 0 => Err(invalid()),
            _ => Ok(number),
        }
    }

    /// The value as a `u32` count.
    pub(crate) fn small_count(
        &self,
        path: &KeyPath,
        value: &Value<'_>,
        expected: &'static str,
    ) -> Result<u32, ConfigError> {
        let number = self.count(path, value, Count::NonNegative, expected)?;
        u32::try_from(number).map_err(|_| ConfigError::InvalidValue {
            key: path.clone(),
            at: self.at(value.span()),
            expected,
            found: number.to_string(),
        })
    }

    /// The value as a number (a TOML float or integer).
    pub(crate) fn number(
        &self,
        path: &KeyPath,
        value: &Value<'_>,
        expected: &'static str,
    ) -> Result<f64, ConfigError> {
        let parsed = match value.get_ref() {
            DeValue::Float(float) => float.as_str().parse::<f64>().ok(),
            DeValue::Integer(integer) => i64::from_str_radix(integer.as_str(), integer.radix())
                .ok()
                // Exact for every integer a margin could sensibly be.
                .map(|n| n as f64),
            _ => return Err(self.wrong_type(path, value, expected)),
        };
        parsed.ok_or_else(|| ConfigError::InvalidValue {
            key: path.clone(),
            at: self.at(value.span()),
            expected,
            found: describe(value.get_ref()),
        })
    }

    /// Rejects the first key (in file order) of a scratchpad table that is
    /// not in `known`, suggesting the nearest known key or, for a key of
    /// another table, where it belongs (`misplaced`: key → table).
    pub(crate) fn reject_unknown_keys(
        &self,
        table_path: &KeyPath,
        table: &DeTable<'_>,
        known: &'static [&'static str],
        misplaced: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        for (key, _) in entries(table) {
            let name: &str = key.get_ref();
            if known.contains(&name) {
                continue;
            }
            let belongs_in = misplaced(name);
            return Err(ConfigError::UnknownKey {
                key: table_path.key(name),
                at: self.at(key.span()),
                did_you_mean: if belongs_in.is_some() {
                    None
                } else {
                    suggest::nearest(name, known)
                },
                belongs_in,
                accepted: known,
            });
        }
        Ok(())
    }

    pub(crate) fn wrong_type(
        &self,
        path: &KeyPath,
        value: &Value<'_>,
        expected: &'static str,
    ) -> ConfigError {
        ConfigError::WrongType {
            key: path.clone(),
            at: self.at(value.span()),
            expected,
            found: describe(value.get_ref()),
        }
    }
}

/// The entries of a table in file order (toml sorts them by key).
pub(crate) fn entries<'a, 'i>(table: &'a DeTable<'i>) -> Vec<(&'a Key<'i>, &'a Value<'i>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    entries
}

/// A value's type, and the value itself when it is short: `string "512"`.
pub(crate) fn describe(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(text) if text.chars().count() <= 40 => format!("string {}", quoted(text)),
        DeValue::String(_) => "a string".to_owned(),
        DeValue::Integer(integer) => format!("integer {integer}"),
        DeValue::Float(float) => format!("float {float}"),
        DeValue::Boolean(flag) => format!("boolean {flag}"),
        DeValue::Datetime(datetime) => format!("datetime {datetime}"),
        DeValue::Array(_) => "an array".to_owned(),
        DeValue::Table(_) => "a table".to_owned(),
    }
}
