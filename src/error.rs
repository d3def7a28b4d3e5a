//! The typed error returned wherever a value enters from outside (UI, URL, file, CLI).
//!
//! Every message names the field and the allowed range, so the user can fix the input;
//! a function that returns an error leaves the state it was called on unchanged.

use std::fmt;

/// A parameter that was rejected at the boundary, with the reason.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamError {
    /// NaN or ±∞ where a finite number in `[min, max]` is required.
    NotFinite {
        field: &'static str,
        value: f64,
        min: f64,
        max: f64,
    },
    /// A number outside its documented range `[min, max]`.
    OutOfRange {
        field: &'static str,
        value: f64,
        min: f64,
        max: f64,
    },
    /// A count or size that must be a whole number in `[min, max]`.
    NotInteger {
        field: &'static str,
        value: f64,
        min: f64,
        max: f64,
    },
    /// A count whose upper bound depends on the run (the room left, the last test image),
    /// refused where that bound is not known yet: NaN, ±∞, a fraction or a number below
    /// `min`. The bound is named in words (`upper`): "the last stored pattern".
    NotCount {
        field: &'static str,
        value: f64,
        min: u64,
        upper: &'static str,
    },
    /// A name that is not one of the allowed choices.
    UnknownChoice {
        field: &'static str,
        value: String,
        allowed: &'static str,
    },
    /// A value that is fine alone but not with the rest (shapes, symmetry, combinations).
    Invalid { field: &'static str, reason: String },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::NotFinite {
                field,
                value,
                min,
                max,
            } => write!(
                f,
                "{field} must be a finite number{}, got {}",
                span(*min, *max),
                given(*value)
            ),
            ParamError::OutOfRange {
                field,
                value,
                min,
                max,
            } => write!(
                f,
                "{field} must be {}, got {}",
                between(*min, *max),
                given(*value)
            ),
            ParamError::NotInteger {
                field,
                value,
                min,
                max,
            } => write!(
                f,
                "{field} must be a whole number between {} and {}, got {}",
                bound(*min),
                bound(*max),
                given(*value)
            ),
            ParamError::NotCount {
                field,
                value,
                min,
                upper,
            } => write!(
                f,
                "{field} must be a whole number from {min} to {upper}, got {}",
                given(*value)
            ),
            ParamError::UnknownChoice {
                field,
                value,
                allowed,
            } => write!(
                f,
                "{field} must be one of {allowed}, got '{}'",
                shorten(value)
            ),
            ParamError::Invalid { field, reason } => write!(f, "{field}: {reason}"),
        }
    }
}

impl std::error::Error for ParamError {}

impl ParamError {
    /// The field the error is about (as the engine names it).
    pub fn field(&self) -> &'static str {
        match self {
            ParamError::NotFinite { field, .. }
            | ParamError::OutOfRange { field, .. }
            | ParamError::NotInteger { field, .. }
            | ParamError::NotCount { field, .. }
            | ParamError::UnknownChoice { field, .. }
            | ParamError::Invalid { field, .. } => field,
        }
    }
}

/// The range of a finite number as words: " between a and b", " of at least a", " of at
/// most b" (an infinite bound is left out: the number must be finite anyway), and " above 0
/// and at most b" for a lower bound of the smallest positive double.
fn span(min: f64, max: f64) -> String {
    if min == f64::MIN_POSITIVE && !max.is_finite() {
        return " above 0".into();
    }
    match (min.is_finite(), max.is_finite()) {
        (true, true) => format!(" {}", between(min, max)),
        (true, false) => format!(" of at least {}", bound(min)),
        (false, true) => format!(" of at most {}", bound(max)),
        (false, false) => String::new(),
    }
}

/// "between a and b", or "above 0 and at most b" where a is the smallest positive double (a
/// bound that means "above 0", and says so).
fn between(min: f64, max: f64) -> String {
    if min == f64::MIN_POSITIVE && max == f64::INFINITY {
        "above 0".into()
    } else if min == f64::MIN_POSITIVE {
        format!("above 0 and at most {}", bound(max))
    } else {
        format!("between {} and {}", bound(min), bound(max))
    }
}

/// The value a refusal quotes back, as a person reads it: NaN, which is what a text that is
/// not a number reads as (an empty box, "abc", "1,5" on the page or the command line), as "no
/// number"; ±∞ as ∞ rather than `inf`.
pub fn given(x: f64) -> String {
    if x.is_nan() {
        "no number".into()
    } else {
        bound(x)
    }
}

/// A range bound as a person writes it: ∞ rather than `inf`.
fn bound(x: f64) -> String {
    if x == f64::INFINITY {
        "∞".into()
    } else if x == f64::NEG_INFINITY {
        "−∞".into()
    } else {
        number(x)
    }
}

/// A number as a message shows it: as written (the shortest digits that give it back) when
/// that is short, else in exponent form, so that 1e300 or 5e-324 is not hundreds of digits
/// (which a page cannot wrap). The command line prints its headers' numbers so too.
pub fn number(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 20 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// At most this many characters of a rejected text are quoted back in a message (a 100 kB
/// link must not become a 100 kB message).
pub const QUOTE_CHARS: usize = 40;

/// `text` cut to [`QUOTE_CHARS`] characters (with `…` if cut), for quoting in a message.
pub fn shorten(text: &str) -> String {
    shorten_to(text, QUOTE_CHARS)
}

/// `text` cut to `chars` characters (with `…` if cut).
pub fn shorten_to(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// Checks that `value` is finite and lies in `[min, max]`.
pub fn finite_in(field: &'static str, value: f64, min: f64, max: f64) -> Result<f64, ParamError> {
    if !value.is_finite() {
        return Err(ParamError::NotFinite {
            field,
            value,
            min,
            max,
        });
    }
    if !(min..=max).contains(&value) {
        return Err(ParamError::OutOfRange {
            field,
            value,
            min,
            max,
        });
    }
    Ok(value)
}

/// Checks that `value` is a whole number in `[min, max]` and returns it as `u64`
/// (`max` must not exceed 2^53, where every integer is exact in an `f64`).
pub fn whole_in(field: &'static str, value: f64, min: u64, max: u64) -> Result<u64, ParamError> {
    let (lo, hi) = (min as f64, max as f64);
    if value.is_nan() {
        return Err(ParamError::NotFinite {
            field,
            value,
            min: lo,
            max: hi,
        });
    }
    if value.is_finite() && value.fract() != 0.0 {
        return Err(ParamError::NotInteger {
            field,
            value,
            min: lo,
            max: hi,
        });
    }
    finite_in(field, value, min as f64, max as f64).map(|v| v as u64)
}

/// The temperatures a computation accepts, each with the reason for its bounds. Every
/// temperature that enters from outside is checked by [`check_temperature`] against one of
/// these; a refusal names the field `temperature`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TemperatureDomain {
    /// 0 ≤ T ≤ ∞, the samplers' and schedules' range: T = 0 is energy descent, T = ∞ a
    /// coin flip. NaN and T < 0 are [`ParamError::OutOfRange`] ("between 0 and ∞").
    Sampling,
    /// 0 < T ≤ ∞, exact enumeration: at T = 0 the weights e^{−E/T} have no finite sum; at
    /// T = ∞ every state has weight 1. NaN and T < 0 are [`ParamError::OutOfRange`]
    /// ("above 0"), and T = 0 is [`ParamError::Invalid`] with that reason.
    Enumeration,
    /// 0 < T < ∞, the estimates of ln Z (at T = ∞, ln Z = n ln 2 needs no estimator). NaN
    /// and ±∞ are [`ParamError::NotFinite`] ("a finite number above 0"), T ≤ 0 is
    /// [`ParamError::Invalid`].
    LogZ,
    /// 0 < T < ∞, the mean-field equations q_i = σ((s_high − s_low) h_i / T): every
    /// refusal is [`ParamError::OutOfRange`] over [f64::MIN_POSITIVE, f64::MAX].
    MeanField,
    /// 0 ≤ T ≤ `max`, finite: a control's range (the page's slider, its links and files),
    /// as [`finite_in`] checks it.
    Control { max: f64 },
}

/// Checks a temperature against its domain (see [`TemperatureDomain`] for each domain's
/// bounds and errors) and returns it unchanged.
pub fn check_temperature(temperature: f64, domain: TemperatureDomain) -> Result<f64, ParamError> {
    const FIELD: &str = "temperature";
    let (min, max) = (0.0, f64::INFINITY);
    match domain {
        TemperatureDomain::Sampling | TemperatureDomain::Enumeration => {
            // ∞ is a temperature here, so NaN is out of range, not "not finite"; enumeration's
            // range starts above 0 (T = 0 itself gets its reason below).
            let min = match domain {
                TemperatureDomain::Enumeration if temperature != 0.0 => f64::MIN_POSITIVE,
                _ => min,
            };
            if temperature.is_nan() || temperature < 0.0 {
                return Err(ParamError::OutOfRange {
                    field: FIELD,
                    value: temperature,
                    min,
                    max,
                });
            }
            if domain == TemperatureDomain::Enumeration && temperature == 0.0 {
                return Err(ParamError::Invalid {
                    field: FIELD,
                    reason: "exact enumeration needs 0 < T ≤ ∞: at T = 0 the Boltzmann weights \
                             e^{−E/T} have no finite sum"
                        .into(),
                });
            }
        }
        TemperatureDomain::LogZ => {
            if !temperature.is_finite() {
                return Err(ParamError::NotFinite {
                    field: FIELD,
                    value: temperature,
                    min: f64::MIN_POSITIVE,
                    max,
                });
            }
            if temperature <= 0.0 {
                return Err(ParamError::Invalid {
                    field: FIELD,
                    reason: format!(
                        "ln Z needs a finite temperature above 0 (at T = 0 the weights \
                         e^{{−E/T}} have no finite sum), got {}",
                        number(temperature)
                    ),
                });
            }
        }
        TemperatureDomain::MeanField => {
            if temperature.is_nan() || temperature <= 0.0 || !temperature.is_finite() {
                return Err(ParamError::OutOfRange {
                    field: FIELD,
                    value: temperature,
                    min: f64::MIN_POSITIVE,
                    max: f64::MAX,
                });
            }
        }
        TemperatureDomain::Control { max } => {
            finite_in(FIELD, temperature, 0.0, max)?;
        }
    }
    Ok(temperature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_in_rejects_nan_infinities_and_values_outside_the_range() {
        assert!(matches!(
            finite_in("temperature", f64::NAN, 0.0, 1.0),
            Err(ParamError::NotFinite { .. })
        ));
        assert!(matches!(
            finite_in("temperature", f64::INFINITY, 0.0, 1.0),
            Err(ParamError::NotFinite { .. })
        ));
        assert!(matches!(
            finite_in("temperature", -0.5, 0.0, 1.0),
            Err(ParamError::OutOfRange { .. })
        ));
        assert_eq!(finite_in("temperature", 0.5, 0.0, 1.0), Ok(0.5));
        assert_eq!(
            finite_in("temperature", f64::NEG_INFINITY, 0.0, f64::INFINITY)
                .unwrap_err()
                .to_string(),
            "temperature must be a finite number of at least 0, got −∞"
        );
    }

    #[test]
    fn each_temperature_domain_states_its_own_range() {
        let message = |t: f64, domain| check_temperature(t, domain).unwrap_err().to_string();
        use TemperatureDomain::*;
        // Sampling takes 0 ≤ T ≤ ∞: NaN is out of that range, not "not finite".
        assert_eq!(
            message(f64::NAN, Sampling),
            "temperature must be between 0 and ∞, got no number"
        );
        assert_eq!(
            message(-1.0, Sampling),
            "temperature must be between 0 and ∞, got -1"
        );
        assert!(check_temperature(f64::INFINITY, Sampling).is_ok());
        // Enumeration takes 0 < T ≤ ∞; T = 0 gets its reason.
        assert_eq!(
            message(f64::NAN, Enumeration),
            "temperature must be above 0, got no number"
        );
        assert_eq!(
            message(f64::NEG_INFINITY, Enumeration),
            "temperature must be above 0, got −∞"
        );
        assert!(message(0.0, Enumeration).contains("no finite sum"));
        // ln Z takes 0 < T < ∞.
        for (t, got) in [(f64::NAN, "no number"), (f64::INFINITY, "∞")] {
            assert_eq!(
                message(t, LogZ),
                format!("temperature must be a finite number above 0, got {got}")
            );
        }
        assert!(message(-1e-300, LogZ).ends_with("got -1e-300"));
    }

    #[test]
    fn numbers_in_messages_stay_short() {
        // "Above 0" for the smallest positive bound, and exponent form where the plain digits
        // would run to hundreds (a page cannot wrap them).
        let zero_rate = ParamError::OutOfRange {
            field: "learning rate",
            value: 0.0,
            min: f64::MIN_POSITIVE,
            max: 100.0,
        };
        assert_eq!(
            zero_rate.to_string(),
            "learning rate must be above 0 and at most 100, got 0"
        );
        let nan = finite_in("schedule temperature", f64::NAN, f64::MIN_POSITIVE, 1000.0);
        assert_eq!(
            nan.unwrap_err().to_string(),
            "schedule temperature must be a finite number above 0 and at most 1000, got no number"
        );
        let huge = finite_in("temperature", 1e300, 0.0, 100.0).unwrap_err();
        assert_eq!(
            huge.to_string(),
            "temperature must be between 0 and 100, got 1e300"
        );
        let tiny = finite_in("field", -5e-324, 0.0, 1.0).unwrap_err();
        assert_eq!(
            tiny.to_string(),
            "field must be between 0 and 1, got -5e-324"
        );
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(123_456.0), "123456");
    }

    #[test]
    fn long_rejected_texts_are_shortened_in_messages() {
        let err = ParamError::UnknownChoice {
            field: "model",
            value: "x".repeat(100_000),
            allowed: "a, b",
        };
        let message = err.to_string();
        assert!(message.len() < 200, "{}", message.len());
        assert!(message.ends_with("…'"), "{message}");
        assert_eq!(shorten("ferromagnet"), "ferromagnet");
        assert_eq!(shorten_to("abcdef", 3), "abc…");
        assert_eq!(shorten(&"é".repeat(50)), format!("{}…", "é".repeat(40)));
    }

    #[test]
    fn whole_in_rejects_fractions_and_names_the_field() {
        let err = whole_in("size", 2.5, 1, 10).unwrap_err();
        assert!(matches!(err, ParamError::NotInteger { field: "size", .. }));
        assert!(err.to_string().contains("size"));
        assert_eq!(
            err.to_string(),
            "size must be a whole number between 1 and 10, got 2.5"
        );
        assert_eq!(
            whole_in("size", f64::NAN, 1, 10).unwrap_err().to_string(),
            "size must be a finite number between 1 and 10, got no number"
        );
        let err = whole_in("size", 0.0, 1, 10).unwrap_err();
        assert_eq!(err.to_string(), "size must be between 1 and 10, got 0");
        assert_eq!(whole_in("size", 10.0, 1, 10), Ok(10));
    }
}
