//! Text the page's editors take, read into engine values: training patterns ("0110" per
//! line) and annealing schedules ("T:sweeps, …"). Errors name the field and the line.

use crate::error::{ParamError, finite_in, whole_in};

/// Patterns from text: one per line, of 0s and 1s (spaces ignored, blank lines skipped),
/// all of the same length. Errors name `patterns` and the line.
pub fn parse_patterns(text: &str) -> Result<Vec<Vec<u8>>, ParamError> {
    let mut patterns: Vec<Vec<u8>> = Vec::new();
    for (line, row) in text.lines().enumerate() {
        let bits: String = row.chars().filter(|c| !c.is_whitespace()).collect();
        if bits.is_empty() {
            continue;
        }
        let pattern: Vec<u8> = bits
            .chars()
            .map(|c| match c {
                '0' => Ok(0),
                '1' => Ok(1),
                other => Err(ParamError::Invalid {
                    field: "patterns",
                    reason: format!("line {}: \"{other}\" is not 0 or 1", line + 1),
                }),
            })
            .collect::<Result<_, _>>()?;
        if let Some(first) = patterns.first()
            && first.len() != pattern.len()
        {
            return Err(ParamError::Invalid {
                field: "patterns",
                reason: format!(
                    "line {} has {} values, but the first pattern has {}: every pattern needs the same length",
                    line + 1,
                    pattern.len(),
                    first.len()
                ),
            });
        }
        patterns.push(pattern);
    }
    if patterns.is_empty() {
        return Err(ParamError::Invalid {
            field: "patterns",
            reason: "draw or type at least one pattern".into(),
        });
    }
    Ok(patterns)
}

/// "T:sweeps, T:sweeps" → steps; errors name `schedule`.
pub fn parse_schedule(text: &str) -> Result<Vec<(f64, f64)>, ParamError> {
    let bad = |reason: String| ParamError::Invalid {
        field: "schedule",
        reason,
    };
    let mut steps = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (t, s) = part
            .split_once(':')
            .ok_or_else(|| bad(format!("write each step as T:sweeps, got \"{part}\"")))?;
        let t: f64 = t
            .trim()
            .parse()
            .map_err(|_| bad(format!("\"{t}\" is not a temperature")))?;
        let s: f64 = s
            .trim()
            .parse()
            .map_err(|_| bad(format!("\"{s}\" is not a number of sweeps")))?;
        finite_in("schedule temperature", t, f64::MIN_POSITIVE, 1000.0)?;
        whole_in("schedule sweeps", s, 0, 100_000)?;
        steps.push((t, s));
    }
    if steps.is_empty() {
        return Err(bad("needs at least one step T:sweeps".into()));
    }
    Ok(steps)
}
