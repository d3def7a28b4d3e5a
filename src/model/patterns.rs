//! Training vectors: 0/1 patterns over a network's visible units, as the learners, the
//! exact likelihood and the KL estimate take them, and the one check they all apply.

use crate::error::ParamError;

/// Checks training vectors against the number of visible units: at least one vector,
/// each of length `visible`, each value 0 (off) or 1 (on). Errors name `patterns`.
pub fn check_patterns(patterns: &[Vec<u8>], visible: usize) -> Result<(), ParamError> {
    if patterns.is_empty() {
        return Err(ParamError::Invalid {
            field: "patterns",
            reason: "need at least one training vector".into(),
        });
    }
    if patterns.len() > MAX_PATTERNS {
        return Err(ParamError::OutOfRange {
            field: "patterns",
            value: patterns.len() as f64,
            min: 1.0,
            max: MAX_PATTERNS as f64,
        });
    }
    for (k, pattern) in patterns.iter().enumerate() {
        if pattern.len() != visible {
            return Err(ParamError::Invalid {
                field: "patterns",
                reason: format!(
                    "vector {k} has {} values, but there are {visible} visible units",
                    pattern.len()
                ),
            });
        }
        if let Some(i) = pattern.iter().position(|&b| b > 1) {
            return Err(ParamError::Invalid {
                field: "patterns",
                reason: format!(
                    "vector {k}, value {i} is {}: values are 0 (off) or 1 (on)",
                    pattern[i]
                ),
            });
        }
    }
    Ok(())
}

/// Most training vectors a learner accepts: 65 536.
pub const MAX_PATTERNS: usize = 1 << 16;
