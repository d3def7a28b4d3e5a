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
    let mut text = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let word = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        let sextet = |k: u32| ALPHABET[(word >> (18 - 6 * k) & 63) as usize];
        text.push(sextet(0));
        text.push(sextet(1));
        text.push(if chunk.len() > 1 { sextet(2) } else { b'=' });
        text.push(if chunk.len() > 2 { sextet(3) } else { b'=' });
    }
    String::from_utf8(text).expect("base64 is ASCII")
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

/// `bits` packed lowest first, as base64.
pub fn pack_bits(bits: impl ExactSizeIterator<Item = bool>) -> String {
    let mut bytes = vec![0u8; bits.len().div_ceil(8)];
    for (k, bit) in bits.enumerate() {
        bytes[k >> 3] |= u8::from(bit) << (k & 7);
    }
    to_base64(&bytes)
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

/// Numbers as 8 little-endian bytes each, base64.
pub fn pack_numbers(values: &[f64]) -> String {
    let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    to_base64(&bytes)
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
        let text = pack_bits(bits.iter().copied());
        assert_eq!(unpack_bits("spins", &text, 21).unwrap(), bits);
        assert!(unpack_bits("spins", &text, 16).is_err());
        // A stray bit beyond the count is refused.
        assert!(unpack_bits("spins", &pack_bits([true; 24].into_iter()), 21).is_err());
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
