use super::*;
use crate::line_index::LineIndex;
use crate::outline;
use crate::shape_summary::MarkdownShape;

fn schema_outline(src: &str) -> String {
    outline::markdown(src.as_bytes(), &LineIndex::build(src.as_bytes()), 6).text
}

#[test]
fn a_c_sharp_heading_reads_the_same_in_the_pointer_and_in_schema() {
    let src = "# Guide\n## Notes on C#\ntext\n## Closed ##\n";
    let pointer = MarkdownShape::of(src).render(200);
    let schema = schema_outline(src);
    assert!(pointer.contains("Notes on C# · Closed"), "{pointer}");
    assert!(schema.contains("## Notes on C# [L2-L3]"), "{schema}");
    assert!(schema.contains("## Closed [L4]"), "{schema}");
}

#[test]
fn a_four_backtick_fence_is_not_closed_by_a_three_backtick_line() {
    let src = "# Top\n## Before\n````md\n```\n# not a heading\n```\n````\n## After\n";
    let pointer = MarkdownShape::of(src).render(200);
    let schema = schema_outline(src);
    assert!(
        pointer.starts_with("3 headings: Top › Before · After"),
        "{pointer}"
    );
    assert!(!schema.contains("not a heading"), "{schema}");
    assert!(schema.contains("## After [L8]"), "{schema}");
    let mut blocks = Blocks::default();
    let kinds: Vec<Line<'_>> = src.lines().map(|line| blocks.line(line)).collect();
    assert_eq!(kinds[4], Line::Code);
}

#[test]
fn headings_need_a_space_and_at_most_three_spaces_of_indent() {
    let mut blocks = Blocks::default();
    assert_eq!(blocks.line("#tag"), Line::Text("#tag"));
    assert_eq!(blocks.line("    # code"), Line::Text("# code"));
    assert_eq!(
        blocks.line("   ### Deep ###"),
        Line::Heading {
            level: 3,
            title: "Deep"
        }
    );
    assert_eq!(blocks.line("####### seven"), Line::Text("####### seven"));
}
