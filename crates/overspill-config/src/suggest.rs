//! "Did you mean …?" for unknown keys.

/// The known key closest to `unknown`, when one is close enough to be the
/// likely intent: a small edit distance for its length (a typo such as
/// `enabledd`), or a strong common prefix (`turn_depth` for
/// `turn_depth_bonus`).
pub(crate) fn nearest<'k>(unknown: &str, known: &[&'k str]) -> Option<&'k str> {
    let unknown_lower = unknown.to_lowercase();
    known
        .iter()
        .map(|&candidate| {
            let distance = strsim::damerau_levenshtein(&unknown_lower, candidate);
            let similarity = strsim::jaro_winkler(&unknown_lower, candidate);
            (candidate, distance, similarity)
        })
        .filter(|&(candidate, distance, similarity)| {
            let allowed = (candidate.chars().count() / 3).max(1);
            distance <= allowed || similarity >= 0.9
        })
        .min_by(|a, b| a.1.cmp(&b.1).then(b.2.total_cmp(&a.2)))
        .map(|(candidate, _, _)| candidate)
}

#[cfg(test)]
mod tests;
