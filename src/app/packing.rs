//! Bits and numbers packed as base64 text (RFC 4648, the alphabet of JS `btoa`/`atob`,
//! with `=` padding), for sessions: a 2048² lattice's spins are 512 KiB of bits, about
//! 700 000 characters, where '+'/'-' text takes four million.
//!
//! Bit k of a bit string is bit k % 8 (lowest first) of byte k / 8; numbers are IEEE 754
//! doubles, 8 little-endian bytes each, so they read back bit for bit.

use crate::error::ParamError;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as base64 text.
pub fn to_base64(bytes: &[u8]) -> String {
    let mut text = Vec::new();
    push_base64(&mut text, bytes);
    String::from_utf8(text).expect("base64 is ASCII")
}

/// Appends `bytes` as base64 (ASCII) to the UTF-8 bytes `out`.
pub fn push_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    out.resize(start + bytes.len().div_ceil(3) * 4, 0);
    let sextet = |word: u32, k: u32| ALPHABET[(word >> (18 - 6 * k) & 63) as usize];
    let whole = bytes.len() / 3;
    for (chunk, four) in bytes.chunks_exact(3).zip(out[start..].chunks_exact_mut(4)) {
        let word = u32::from(chunk[0]) << 16 | u32::from(chunk[1]) << 8 | u32::from(chunk[2]);
        four.copy_from_slice(&[
            sextet(word, 0),
            sextet(word, 1),
            sextet(word, 2),
            sextet(word, 3),
        ]);
    }
    let rest = &bytes[3 * whole..];
    if !rest.is_empty() {
        let word = u32::from(rest[0]) << 16 | u32::from(rest.get(1).copied().unwrap_or(0)) << 8;
        let four = &mut out[start + 4 * whole..];
        four[0] = sextet(word, 0);
        four[1] = sextet(word, 1);
        four[2] = if rest.len() > 1 {
            sextet(word, 2)
        } else {
            b'='
        };
        four[3] = b'=';
    }
}

/// The bytes of base64 `text` (padded, no whitespace); errors name `field`.
pub fn from_base64(field: &'static str, text: &str) -> Result<Vec<u8>, ParamError> {
    let bad = |reason: String| ParamError::Invalid { field, reason };
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return Err(bad(format!(
            "not base64: {} characters, not a multiple of 4",
            text.len()
        )));
    }
    let value = |c: u8| -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    };
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    let groups = text.len() / 4;
    for (g, quad) in text.chunks_exact(4).enumerate() {
        let padding = if g + 1 == groups {
            quad.iter().rev().take_while(|&&c| c == b'=').count()
        } else {
            0
        };
        if padding > 2 {
            return Err(bad("not base64: too much '=' padding".into()));
        }
        let mut word = 0u32;
        for (k, &c) in quad.iter().enumerate() {
            let v = if k >= 4 - padding {
                0
            } else {
                value(c).ok_or_else(|| {
                    bad(format!(
                        "not base64: character {} is '{}'",
                        4 * g + k,
                        char::from(c).escape_default()
                    ))
                })?
            };
            word = word << 6 | v;
        }
        let three = [(word >> 16) as u8, (word >> 8) as u8, word as u8];
        bytes.extend_from_slice(&three[..3 - padding]);
    }
    Ok(bytes)
}

/// One bit per value (`bit(value)`), packed lowest first: ⌈n/8⌉ bytes.
pub fn bit_bytes<T>(values: &[T], bit: impl Fn(&T) -> bool) -> Vec<u8> {
    let byte = |eight: &[T]| {
        eight
            .iter()
            .enumerate()
            .fold(0u8, |b, (k, v)| b | u8::from(bit(v)) << k)
    };
    values.chunks(8).map(byte).collect()
}

/// [`bit_bytes`] as base64.
pub fn pack_bits<T>(values: &[T], bit: impl Fn(&T) -> bool) -> String {
    to_base64(&bit_bytes(values, bit))
}

/// `count` bits from base64 `text` written by [`pack_bits`]: exactly ⌈count/8⌉ bytes, the
/// unused high bits of the last byte zero; errors name `field`.
pub fn unpack_bits(field: &'static str, text: &str, count: usize) -> Result<Vec<bool>, ParamError> {
    let need = count.div_ceil(8);
    if text.len() != need.div_ceil(3) * 4 {
        return Err(ParamError::Invalid {
            field,
            reason: format!(
                "need {count} bits ({need} bytes, {} base64 characters), got {} characters",
                need.div_ceil(3) * 4,
                text.len()
            ),
        });
    }
    let bytes = from_base64(field, text)?;
    if bytes.len() != need || (!count.is_multiple_of(8) && bytes[need - 1] >> (count % 8) != 0) {
        return Err(ParamError::Invalid {
            field,
            reason: format!("need {count} bits ({need} bytes) and nothing after them"),
        });
    }
    Ok((0..count)
        .map(|k| bytes[k >> 3] >> (k & 7) & 1 == 1)
        .collect())
}

/// Numbers as 8 little-endian bytes each.
pub fn number_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// [`number_bytes`] as base64.
pub fn pack_numbers(values: &[f64]) -> String {
    to_base64(&number_bytes(values))
}

/// `count` numbers from base64 `text` written by [`pack_numbers`]; errors name `field`.
pub fn unpack_numbers(
    field: &'static str,
    text: &str,
    count: usize,
) -> Result<Vec<f64>, ParamError> {
    let need = count * 8;
    if text.len() != need.div_ceil(3) * 4 {
        return Err(ParamError::Invalid {
            field,
            reason: format!(
                "need {count} numbers ({need} bytes, {} base64 characters), got {} characters",
                need.div_ceil(3) * 4,
                text.len()
            ),
        });
    }
    let bytes = from_base64(field, text)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648_and_reads_back() {
        // RFC 4648 §10's test vectors.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(to_base64(plain.as_bytes()), coded);
            assert_eq!(from_base64("x", coded).unwrap(), plain.as_bytes());
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(from_base64("x", &to_base64(&all)).unwrap(), all);
        for bad in ["Zg=", "Z===", "Zm9v!A==", "Zg==Zg=="] {
            assert!(from_base64("x", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bits_and_numbers_read_back_exactly() {
        let bits: Vec<bool> = (0..21).map(|k| k % 3 == 0 || k == 20).collect();
        let text = pack_bits(&bits, |&b| b);
        assert_eq!(unpack_bits("spins", &text, 21).unwrap(), bits);
        assert!(unpack_bits("spins", &text, 16).is_err());
        // A stray bit beyond the count is refused.
        assert!(unpack_bits("spins", &pack_bits(&[true; 24], |&b| b), 21).is_err());
        let values = [0.1, -0.0, f64::MIN_POSITIVE, 1e300, -7.25];
        let back = unpack_numbers("bonds", &pack_numbers(&values), 5).unwrap();
        assert_eq!(
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            values.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        let err = unpack_numbers("bonds", "AAAA", 5).unwrap_err().to_string();
        assert!(err.starts_with("bonds"), "{err}");
    }
}
