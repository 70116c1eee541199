//! Property tests: threshold resolution equals a naive reference
//! implementation of docs/configuration.md#tool-name-patterns–2.2, built here from scratch (its own glob
//! matcher, its own longest-then-smallest rule, its own clash rule), and the
//! loader never panics on arbitrary input.

use std::collections::BTreeMap;

use overspill_config::{Config, ThresholdTable, ToolPattern};
use proptest::prelude::*;

/// One element of a reference pattern.
#[derive(Clone, Debug)]
enum Token {
    Literal(char),
    /// `?`
    One,
    /// `*`
    Any,
    /// `[..]` / `[!..]`
    Class {
        negated: bool,
        chars: Vec<char>,
    },
    /// `{a,b}` with literal branches (possibly empty).
    Alternation(Vec<String>),
}

impl Token {
    fn render(&self, out: &mut String) {
        match self {
            Token::Literal(c) => out.push(*c),
            Token::One => out.push('?'),
            Token::Any => out.push('*'),
            Token::Class { negated, chars } => {
                out.push('[');
                if *negated {
                    out.push('!');
                }
                out.extend(chars);
                out.push(']');
            }
            Token::Alternation(branches) => {
                out.push('{');
                out.push_str(&branches.join(","));
                out.push('}');
            }
        }
    }
}

/// The reference matcher: anchored, case-sensitive, backtracking.
fn reference_match(tokens: &[Token], name: &[char]) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return name.is_empty();
    };
    match first {
        Token::Literal(c) => name.first() == Some(c) && reference_match(rest, &name[1..]),
        Token::One => !name.is_empty() && reference_match(rest, &name[1..]),
        Token::Any => (0..=name.len()).any(|skip| reference_match(rest, &name[skip..])),
        Token::Class { negated, chars } => match name.first() {
            Some(c) => chars.contains(c) != *negated && reference_match(rest, &name[1..]),
            None => false,
        },
        Token::Alternation(branches) => branches.iter().any(|branch| {
            let branch: Vec<char> = branch.chars().collect();
            name.starts_with(&branch) && reference_match(rest, &name[branch.len()..])
        }),
    }
}

/// A pattern: its tokens and its text.
#[derive(Clone, Debug)]
struct Pattern {
    tokens: Vec<Token>,
    text: String,
}

const ALPHABET: &[char] = &['a', 'b', 'c', '_'];

fn letter() -> impl Strategy<Value = char> {
    prop::sample::select(ALPHABET)
}

fn token() -> impl Strategy<Value = Token> {
    prop_oneof![
        4 => letter().prop_map(Token::Literal),
        2 => Just(Token::One),
        2 => Just(Token::Any),
        1 => (any::<bool>(), prop::collection::btree_set(prop::sample::select(&['a', 'b', 'c'][..]), 1..3))
            .prop_map(|(negated, chars)| Token::Class { negated, chars: chars.into_iter().collect() }),
        1 => prop::collection::vec(prop::collection::vec(letter(), 0..3).prop_map(String::from_iter), 1..3)
            .prop_map(Token::Alternation),
    ]
}

fn pattern() -> impl Strategy<Value = Pattern> {
    prop::collection::vec(token(), 1..5).prop_map(|tokens| {
        let mut text = String::new();
        for token in &tokens {
            token.render(&mut text);
        }
        Pattern { tokens, text }
    })
}

fn tool_name() -> impl Strategy<Value = String> {
    prop::collection::vec(letter(), 0..7).prop_map(String::from_iter)
}

/// A server's rules in file order, without repeated pattern texts (a TOML
/// table cannot repeat a key).
fn server_rules() -> impl Strategy<Value = Vec<(Pattern, u64)>> {
    prop::collection::vec((pattern(), 0u64..6), 0..7).prop_map(|rules| {
        let mut seen = std::collections::HashSet::new();
        rules
            .into_iter()
            .filter(|(p, _)| seen.insert(p.text.clone()))
            .collect()
    })
}

/// docs/configuration.md#threshold-resolution for one server, naively: the longest matching pattern (in
/// characters), a tie to the smallest threshold.
fn reference_threshold(rules: &[(Pattern, u64)], tool: &str) -> Option<u64> {
    let name: Vec<char> = tool.chars().collect();
    let matching: Vec<&(Pattern, u64)> = rules
        .iter()
        .filter(|(p, _)| reference_match(&p.tokens, &name))
        .collect();
    let longest = matching.iter().map(|(p, _)| p.text.chars().count()).max()?;
    matching
        .iter()
        .filter(|(p, _)| p.text.chars().count() == longest)
        .map(|(_, t)| *t)
        .min()
}

fn toml_for(servers: &[(String, Vec<(Pattern, u64)>)]) -> String {
    let mut text = String::new();
    for (server, rules) in servers {
        text.push_str(&format!("[mcp.servers.{server}.scratchpad]\n"));
        for (pattern, threshold) in rules {
            // Basic-string escaping: the alphabet needs none, but be exact.
            let key = pattern.text.replace('\\', "\\\\").replace('"', "\\\"");
            text.push_str(&format!("\"{key}\" = {{ min_tokens = {threshold} }}\n"));
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn tool_pattern_matches_like_the_reference_matcher(p in pattern(), tool in tool_name()) {
        let compiled = ToolPattern::new(&p.text).unwrap();
        let name: Vec<char> = tool.chars().collect();
        prop_assert_eq!(compiled.matches(&tool), reference_match(&p.tokens, &name), "pattern {}", p.text);
        prop_assert_eq!(compiled.len_chars(), p.text.chars().count());
    }

    #[test]
    fn resolved_threshold_equals_the_naive_reference(
        a in server_rules(),
        b in server_rules(),
        a_tools in prop::collection::vec(tool_name(), 0..8),
        b_tools in prop::collection::vec(tool_name(), 0..8),
    ) {
        let servers = vec![("a".to_owned(), a), ("b".to_owned(), b)];
        let config = Config::from_toml_str(&toml_for(&servers)).unwrap();
        let tools = BTreeMap::from([("a", a_tools.clone()), ("b", b_tools.clone())]);
        let table = ThresholdTable::resolve(&config, &tools);

        // Per server, then the clash rule: a name intercepted on both servers
        // gets the smaller threshold.
        let own = |server: usize, tool: &str| reference_threshold(&servers[server].1, tool);
        let offered = |server: usize, tool: &str| {
            let list = if server == 0 { &a_tools } else { &b_tools };
            list.iter().any(|t| t == tool)
        };
        for (index, server, list) in [(0, "a", &a_tools), (1, "b", &b_tools)] {
            for tool in list {
                let other = 1 - index;
                let expected = match (own(index, tool), offered(other, tool).then(|| own(other, tool)).flatten()) {
                    (Some(mine), Some(theirs)) => Some(mine.min(theirs)),
                    (mine, _) => mine,
                };
                prop_assert_eq!(table.threshold(server, tool), expected, "server {} tool {:?}", server, tool);
            }
        }
        // By name: the smallest over the servers intercepting that name.
        for tool in a_tools.iter().chain(&b_tools) {
            let expected = [(0, &a_tools), (1, &b_tools)]
                .into_iter()
                .filter(|(_, list)| list.contains(tool))
                .filter_map(|(server, _)| own(server, tool))
                .min();
            prop_assert_eq!(table.threshold_by_name(tool), expected, "by name {:?}", tool);
        }
        // Nothing outside the given lists is in the table.
        prop_assert_eq!(table.threshold("a", "not-in-any-list"), None);
        // Every clash reported is a name with two different own thresholds.
        for clash in table.clashes() {
            prop_assert_eq!(clash.servers.len(), 2);
            prop_assert_ne!(clash.servers[0].2, clash.servers[1].2);
        }
    }

    #[test]
    fn server_rules_resolve_agrees_with_the_table(rules in server_rules(), tool in tool_name()) {
        let servers = vec![("s".to_owned(), rules)];
        let config = Config::from_toml_str(&toml_for(&servers)).unwrap();
        let direct = config.rules("s").and_then(|r| r.resolve(&tool)).map(|r| r.min_tokens);
        let table = ThresholdTable::resolve(&config, [("s", [tool.as_str()])]);
        prop_assert_eq!(direct, table.threshold("s", &tool));
        prop_assert_eq!(direct, reference_threshold(&servers[0].1, &tool));
    }

    #[test]
    fn any_pattern_text_compiles_or_errors_without_panicking(text in ".{0,24}") {
        let _ = ToolPattern::new(&text);
    }

    #[test]
    fn any_text_loads_or_errors_without_panicking(text in "(\\[[a-z.\"]{0,12}\\]\n|[a-z_\"*\\[{]{0,8} = [0-9a-z{}\"=. -]{0,10}\n){0,6}") {
        let _ = Config::from_toml_str(&text);
    }
}
