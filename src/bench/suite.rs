//! The benchmark suite: integrands with trusted reference values.
//!
//! The values live in `data/references.json`, embedded in the binary so that `hpquad bench`
//! runs from any directory. Each entry says how its value was obtained (a closed form evaluated
//! in MPFR, or an MPFR quadrature with its own convergence check) and how many digits are
//! trusted. `cargo run --release --example references` regenerates the file.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The reference file as shipped.
const BUILTIN: &str = include_str!("../../data/references.json");

/// The integrals of the quick suite (`hpquad bench --quick`, run in CI).
pub const QUICK: &[&str] = &["pi", "exp_cos"];

/// The name of the π integral, whose line heads each summary.
pub const PI: &str = "pi";

/// One integral of the suite and its reference value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// A short identifier, e.g. `pi` or `sinc_10pi`.
    pub name: String,
    /// The integral as a person reads it.
    pub title: String,
    /// What kind of integrand it is (smooth, oscillatory, peaked, ...).
    pub kind: String,
    /// The integrand in hpquad's expression language.
    pub expression: String,
    /// The lower bound, a constant expression read in the working precision.
    pub from: String,
    /// The upper bound.
    pub to: String,
    /// The value as a decimal string with at least `trusted_digits` significant digits.
    pub value: String,
    /// Significant digits of `value` that are trusted; correct digits are capped here.
    pub trusted_digits: u32,
    /// How the value was obtained and checked.
    pub provenance: String,
}

impl Reference {
    /// Whether a bound is infinite (`inf`, `-inf`).
    pub fn is_infinite(&self) -> bool {
        [&self.from, &self.to].iter().any(|bound| {
            crate::integral::parse_bound::<f64>(bound).is_ok_and(|x: f64| x.is_infinite())
        })
    }
}

/// The reference file: the integrals and how the file was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct References {
    /// The command that writes the file.
    pub generated_by: String,
    /// The integrals.
    pub integrals: Vec<Reference>,
}

impl References {
    /// The references embedded in the binary (`data/references.json`).
    pub fn builtin() -> Result<References> {
        References::parse(BUILTIN)
    }

    /// Reads a reference file in the format of `data/references.json`.
    pub fn parse(text: &str) -> Result<References> {
        let references: References =
            serde_json::from_str(text).map_err(|e| Error::InvalidOption {
                option: "references",
                reason: format!("the reference file is not valid: {e}"),
            })?;
        for r in &references.integrals {
            if r.trusted_digits == 0 || significant_digits(&r.value) < r.trusted_digits as usize {
                return Err(Error::InvalidOption {
                    option: "references",
                    reason: format!(
                        "reference '{}' claims {} trusted digits but its value has {}",
                        r.name,
                        r.trusted_digits,
                        significant_digits(&r.value)
                    ),
                });
            }
        }
        Ok(references)
    }

    /// The integral called `name`.
    pub fn get(&self, name: &str) -> Option<&Reference> {
        self.integrals.iter().find(|r| r.name == name)
    }
}

/// The significant digits written in a decimal string (leading zeros and the exponent aside).
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    mantissa
        .chars()
        .filter(char::is_ascii_digit)
        .skip_while(|&c| c == '0')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_references_parse_and_hold_the_quick_suite() {
        let refs = References::builtin().expect("the shipped reference file parses");
        for name in QUICK {
            assert!(refs.get(name).is_some(), "{name} is in the quick suite");
        }
        assert!(refs.integrals.iter().all(|r| r.trusted_digits >= 64));
    }

    #[test]
    fn counts_significant_digits() {
        assert_eq!(significant_digits("3.14159"), 6);
        assert_eq!(significant_digits("0.00123e5"), 3);
        assert_eq!(significant_digits("-12.5E-3"), 3);
    }
}
