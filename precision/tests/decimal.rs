//! Decimal input and output of `Dd` and `Qd` (and `f64`'s parse with error columns), checked
//! against MPFR and against `std`'s `f64` parsing and formatting.
//!
//! What is asserted:
//! - parse: within the normal range the relative error is at most 2^-105 for `Dd` and 2^-211
//!   for `Qd` (the expansions are canonical, so the bound is half a unit in the last component,
//!   2^-106 and 2^-212, up to a factor 1 + 2^-52); over the whole range, under- and overflow
//!   included, every component equals the component-by-component rounding of MPFR's 480-bit
//!   value (`Exact::from_mpfr`), so mismatches must be 0;
//! - round trip: `parse(format(x))` gives `x` back bit for bit, for `{}`, `{:e}` and `{:E}`;
//! - `{:.N}` and `{:.Ne}`: the same text as MPFR's correctly rounded digits of the exact value;
//! - the syntax and the error columns: every error path, and random strings that must be
//!   accepted exactly when `f64`'s parser accepts them.

mod common;

use std::fmt::{Display, LowerExp, UpperExp};
use std::str::FromStr;

use common::{random, rng, samples, Exact, MaxError, PREC};
use precision::{Dd, ParseRealError, Qd, Real};
use rand::rngs::StdRng;
use rand::Rng;
use rug::Float;

/// Enough bits to hold any finite `Dd` or `Qd` exactly (2^1024 down to 2^-1074) and its
/// product by 10^N for the N used here.
const EXACT_PREC: u32 = 2600;

/// What the generic tests need of `Dd` and `Qd`.
trait Decimal:
    Exact + FromStr<Err = ParseRealError> + Display + LowerExp + UpperExp + PartialEq
{
    /// The components, most significant first.
    fn parts(&self) -> Vec<f64>;
    /// The exact value (EXACT_PREC bits).
    fn exact(&self) -> Float {
        let mut sum = Float::with_val(EXACT_PREC, 0);
        for c in self.parts() {
            sum += c;
        }
        sum
    }
    /// Significant digits that the type should print for a value it parsed from that many.
    const DIGITS: usize;
}

impl Decimal for Dd {
    fn parts(&self) -> Vec<f64> {
        self.components().to_vec()
    }
    const DIGITS: usize = 31;
}

impl Decimal for Qd {
    fn parts(&self) -> Vec<f64> {
        self.components().to_vec()
    }
    const DIGITS: usize = 62;
}

/// Bitwise equality of the components (so that NaN equals NaN and -0.0 differs from +0.0 in
/// the leading component), except that zero trailing components agree whatever their signs:
/// the sign of an underflowed remainder is not part of the value, and no text can carry it.
fn same_bits<T: Decimal>(a: &T, b: &T) -> bool {
    a.parts()
        .iter()
        .zip(b.parts())
        .enumerate()
        .all(|(i, (x, y))| x.to_bits() == y.to_bits() || (i > 0 && *x == 0.0 && y == 0.0))
}

/// Component-wise `==` (so that zeros of either sign agree).
fn same_value<T: Decimal>(a: &T, b: &T) -> bool {
    a.parts().iter().zip(b.parts()).all(|(x, y)| *x == y)
}

/// A random decimal numeral: `(text as a user might write it, the same value in the plain
/// form "±DIGITSeEXP" for MPFR)`, with 1 to `max_digits` significant digits and the leading
/// digit's decimal exponent uniform in `exponents`.
fn random_numeral(
    rng: &mut StdRng,
    max_digits: usize,
    exponents: std::ops::RangeInclusive<i64>,
) -> (String, String) {
    let n = rng.gen_range(1..=max_digits);
    let mut digits: Vec<u8> = (0..n).map(|_| b'0' + rng.gen_range(0..10u8)).collect();
    digits[0] = b'1' + rng.gen_range(0..9u8);
    let digits = String::from_utf8(digits).unwrap_or_default();
    let lead = rng.gen_range(exponents);
    let sign = ["", "-", "+"][rng.gen_range(0..3)];
    // Where the point goes among the digits, and the exponent that makes up for it.
    let before_point = rng.gen_range(0..=n);
    let exponent = lead - (before_point as i64 - 1);
    let mut text = sign.to_string();
    if rng.gen_bool(0.1) {
        text.push_str("000");
    }
    text.push_str(&digits[..before_point]);
    if before_point < n || rng.gen_bool(0.2) {
        text.push('.');
    }
    text.push_str(&digits[before_point..]);
    if exponent != 0 || rng.gen_bool(0.2) {
        text.push(if rng.gen_bool(0.5) { 'e' } else { 'E' });
        if exponent >= 0 && rng.gen_bool(0.3) {
            text.push('+');
        }
        text.push_str(&exponent.to_string());
    }
    let plain = format!(
        "{}{}e{}",
        if sign == "-" { "-" } else { "" },
        digits,
        lead - (n as i64 - 1)
    );
    (text, plain)
}

fn mpfr_parse(plain: &str) -> Float {
    match Float::parse(plain) {
        Ok(p) => Float::with_val(PREC, p),
        Err(e) => panic!("MPFR cannot read {plain}: {e}"),
    }
}

/// Parses random numerals and compares with MPFR: relative error within the normal range,
/// and component-by-component agreement over `full_range`.
fn parse_against_mpfr<T: Decimal>(
    seed: u64,
    normal_range: std::ops::RangeInclusive<i64>,
    full_range: std::ops::RangeInclusive<i64>,
    ulp_log2: i32,
    bound_log2: f64,
) {
    let mut rng = rng(seed);
    let mut max = MaxError::new(format!("parse {}", T::NAME));
    let mut mismatches = Vec::new();
    let n = samples();
    for i in 0..2 * n {
        let range = if i < n {
            normal_range.clone()
        } else {
            full_range.clone()
        };
        let (text, plain) = random_numeral(&mut rng, 80, range);
        let got: T = match text.parse() {
            Ok(v) => v,
            Err(e) => panic!("{text:?} did not parse: {e}"),
        };
        let want = mpfr_parse(&plain);
        if i < n {
            max.record(&got.to_mpfr(), &want, || text.clone());
        }
        if !same_value(&got, &T::from_mpfr(&want)) {
            mismatches.push(text);
        }
    }
    println!(
        "ACCURACY parse {} max err {:.3} ulp (2^{:.1} relative; ulp = 2^{}) over {} strings of \
         1-80 digits; {} component mismatches with MPFR over {} more across the whole range",
        T::NAME,
        max.worst / f64::from(ulp_log2).exp2(),
        max.log2(),
        ulp_log2,
        max.count,
        mismatches.len(),
        n
    );
    max.assert_below_pow2(bound_log2);
    assert!(
        mismatches.is_empty(),
        "differ from MPFR: {:?}",
        &mismatches[..mismatches.len().min(5)]
    );
}

#[test]
fn parse_dd_matches_mpfr() {
    parse_against_mpfr::<Dd>(1, -290..=307, -345..=310, -104, -105.0);
}

#[test]
fn parse_qd_matches_mpfr() {
    parse_against_mpfr::<Qd>(2, -255..=307, -345..=310, -209, -211.0);
}

/// Strings of thousands of digits, including ones whose last digit breaks a tie between two
/// candidates for the last component.
#[test]
fn long_digit_strings() {
    let mut rng = rng(3);
    for _ in 0..200 {
        let (text, plain) = random_numeral(&mut rng, 5000, -300..=300);
        let want = mpfr_parse(&plain);
        let dd: Dd = text.parse().unwrap_or(Dd::NAN);
        let qd: Qd = text.parse().unwrap_or(Qd::NAN);
        assert!(same_value(&dd, &Dd::from_mpfr(&want)), "{text}");
        assert!(same_value(&qd, &Qd::from_mpfr(&want)), "{text}");
    }
    // 1 + 2^-60 + 2^-113: its trailing part is exactly half an ulp of 2^-60, a tie that goes
    // to the even 2^-60; a 1 in the 3000th decimal place tips it up to 2^-60 + 2^-112.
    let tie = Float::with_val(300, 1)
        + Float::with_val(300, -60f64).exp2()
        + Float::with_val(300, -113f64).exp2();
    let (_, digits, exp) = mpfr_digits(&tie, 200);
    let exact = format!("{}.{}", &digits[..1], digits[1..].trim_end_matches('0'));
    assert_eq!(exp, 0);
    let even: Dd = exact.parse().unwrap_or(Dd::NAN);
    assert_eq!((even.hi, even.lo), (1.0, 2f64.powi(-60)));
    let tipped = format!("{exact}{}1", "0".repeat(3000 - exact.len()));
    let up: Dd = tipped.parse().unwrap_or(Dd::NAN);
    assert_eq!((up.hi, up.lo), (1.0, 2f64.powi(-60) + 2f64.powi(-112)));
    let below = format!("{}e-3001", "9".repeat(3001));
    assert_eq!(below.parse::<Qd>().map(|q| q.0[0]), Ok(1.0));
}

/// Values that a round trip must survive: random ones over the whole exponent range, 1 plus
/// a power of two reaching into the subnormals, and values whose lower components are
/// subnormal.
fn round_trip_values<T: Decimal>(seed: u64) -> Vec<T> {
    let mut rng = rng(seed);
    let mut values: Vec<T> = (0..samples())
        .map(|_| random::<T>(&mut rng, -1022..1024, true))
        .collect();
    for k in 1..=1074 {
        let one_plus =
            Float::with_val(EXACT_PREC, 1) + Float::with_val(EXACT_PREC, Float::i_exp(1, -k));
        values.push(T::from_mpfr(&one_plus));
        let j = rng.gen_range(k..=1074 + 60);
        let two = Float::with_val(EXACT_PREC, 1) - Float::with_val(EXACT_PREC, Float::i_exp(1, -k))
            + Float::with_val(EXACT_PREC, Float::i_exp(1, -j));
        values.push(T::from_mpfr(&two));
    }
    for _ in 0..samples() / 10 {
        values.push(random::<T>(&mut rng, -1074..-850, true));
    }
    values
}

/// Prints each value three ways and reads it back: bit for bit when the value is in canonical
/// form (each component the nearest double to what the ones before leave, which is what
/// parsing produces), and to the same exact value otherwise. An expansion whose low component
/// underflowed can leave a value exactly halfway between two doubles, which the canonical form
/// of that value rounds the other way; no text reads back as such an expansion.
fn round_trip<T: Decimal>(seed: u64) {
    let mut failures = Vec::new();
    let mut longest = 0;
    let mut other_form = 0;
    let values = round_trip_values::<T>(seed);
    for x in &values {
        let canonical = same_bits(&T::from_mpfr(&x.exact()), x);
        other_form += usize::from(!canonical);
        for text in [format!("{x}"), format!("{x:e}"), format!("{x:E}")] {
            longest = longest.max(text.len());
            let back: Result<T, _> = text.parse();
            let ok = back.as_ref().is_ok_and(|b| {
                if canonical {
                    same_bits(b, x)
                } else {
                    b.exact() == x.exact()
                }
            });
            if !ok {
                failures.push(format!("{:?} printed {text} read {:?}", x, back));
            }
        }
    }
    println!(
        "ROUNDTRIP {}: {} failures over {} values x 3 formats ({} not in canonical form, compared \
         by value; longest text {} characters)",
        T::NAME,
        failures.len(),
        values.len(),
        other_form,
        longest
    );
    assert!(
        failures.is_empty(),
        "{:?}",
        &failures[..failures.len().min(5)]
    );
}

#[test]
fn round_trip_dd() {
    round_trip::<Dd>(4);
}

#[test]
fn round_trip_qd() {
    round_trip::<Qd>(5);
}

/// A value parsed from at most `DIGITS` significant digits prints back in no more digits.
fn shortest_is_short<T: Decimal>(seed: u64) {
    let mut rng = rng(seed);
    let mut longer = Vec::new();
    for _ in 0..samples() / 10 {
        let (text, plain) = random_numeral(&mut rng, T::DIGITS, -250..=250);
        let x: T = text.parse().unwrap_or_else(|e| panic!("{e}"));
        let printed = format!("{x:e}");
        let mantissa = printed.split('e').next().unwrap_or_default();
        let count = mantissa.bytes().filter(u8::is_ascii_digit).count();
        let given = plain
            .split('e')
            .next()
            .unwrap_or_default()
            .trim_start_matches('-')
            .len();
        if count > given {
            longer.push(format!("{text} printed {printed}"));
        }
    }
    println!(
        "SHORTEST {}: {} values printed longer than written",
        T::NAME,
        longer.len()
    );
    assert!(longer.is_empty(), "{:?}", &longer[..longer.len().min(5)]);
}

#[test]
fn shortest_dd() {
    shortest_is_short::<Dd>(6);
}

#[test]
fn shortest_qd() {
    shortest_is_short::<Qd>(7);
}

/// MPFR's own correctly rounded `digits` significant digits of `x` (nonzero, finite) and the
/// decimal exponent of the first: `(negative, digits, exponent)`, read off rug's `{:.Ne}`.
fn mpfr_digits(x: &Float, digits: usize) -> (bool, String, i64) {
    let text = format!("{:.*e}", digits, x);
    let negative = text.starts_with('-');
    let text = text.trim_start_matches('-');
    let (mantissa, exponent) = text.split_once(['e', '@']).unwrap_or((text, "0"));
    let mantissa: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(mantissa.len(), digits, "rug printed {text}");
    (negative, mantissa, exponent.parse().unwrap_or(i64::MIN))
}

/// `{:.N}` from MPFR: the exact value times 10^N rounded to an integer, ties to even.
fn mpfr_fixed(x: &Float, negative: bool, decimals: usize) -> String {
    let scaled = Float::with_val(
        EXACT_PREC,
        x * Float::with_val(EXACT_PREC, Float::u_pow_u(10, decimals as u32)),
    );
    let rounded = scaled.abs().round_even();
    let mut integer = if rounded.is_zero() {
        "0".to_string()
    } else {
        // Enough digits for the whole integer, which MPFR then prints exactly.
        let (_, mut digits, e) = mpfr_digits(&rounded, 800);
        let len = (e + 1) as usize;
        digits.truncate(len.min(digits.len()));
        digits.push_str(&"0".repeat(len - digits.len()));
        digits
    };
    if integer.len() <= decimals {
        integer = format!("{}{integer}", "0".repeat(decimals + 1 - integer.len()));
    }
    let point = integer.len() - decimals;
    let sign = if negative { "-" } else { "" };
    if decimals == 0 {
        format!("{sign}{integer}")
    } else {
        format!("{sign}{}.{}", &integer[..point], &integer[point..])
    }
}

/// `{:.Ne}` from MPFR's own correctly rounded digits.
fn mpfr_scientific(x: &Float, decimals: usize) -> String {
    if x.is_zero() {
        let sign = if x.is_sign_negative() { "-" } else { "" };
        let point = if decimals == 0 { "" } else { "." };
        return format!("{sign}0{point}{}e0", "0".repeat(decimals));
    }
    let (negative, s, e) = mpfr_digits(x, decimals + 1);
    let sign = if negative { "-" } else { "" };
    if decimals == 0 {
        format!("{sign}{s}e{e}")
    } else {
        format!("{sign}{}.{}e{e}", &s[..1], &s[1..])
    }
}

fn digits_against_mpfr<T: Decimal>(seed: u64, exponents: std::ops::Range<i32>) {
    let mut rng = rng(seed);
    let mut wrong = Vec::new();
    let n = samples() / 5;
    for i in 0..n {
        // Half the values near 1, where `{:.N}` shows many significant digits.
        let range = if i % 2 == 0 {
            -40..40
        } else {
            exponents.clone()
        };
        let x: T = random(&mut rng, range, true);
        let exact = x.exact();
        let negative = x.parts()[0] < 0.0;
        let decimals = rng.gen_range(0..=75);
        let fixed = format!("{x:.decimals$}");
        let want = mpfr_fixed(&exact, negative, decimals);
        if fixed != want {
            wrong.push(format!("{x:?} {{:.{decimals}}}: {fixed} but MPFR {want}"));
        }
        let sci = format!("{x:.decimals$e}");
        let want = mpfr_scientific(&exact, decimals);
        if sci != want {
            wrong.push(format!("{x:?} {{:.{decimals}e}}: {sci} but MPFR {want}"));
        }
    }
    // Ties: values whose exact expansion ends in 5 at the rounding position.
    for (text, decimals, fixed) in [("0.125", 2, "0.12"), ("0.375", 2, "0.38"), ("2.5", 0, "2")] {
        let x: T = text.parse().unwrap_or_else(|e| panic!("{e}"));
        let got = format!("{x:.decimals$}");
        if got != fixed || got != mpfr_fixed(&x.exact(), false, decimals) {
            wrong.push(format!("{text} {{:.{decimals}}} printed {got}"));
        }
    }
    println!(
        "DIGITS {}: {} of {} {{:.N}} and {{:.Ne}} texts differ from MPFR",
        T::NAME,
        wrong.len(),
        2 * n
    );
    assert!(wrong.is_empty(), "{:?}", &wrong[..wrong.len().min(5)]);
}

#[test]
fn digits_dd_match_mpfr() {
    digits_against_mpfr::<Dd>(8, -1000..1000);
}

#[test]
fn digits_qd_match_mpfr() {
    digits_against_mpfr::<Qd>(9, -850..1000);
}

/// Sign, width, fill, alignment and zero padding as `f64` applies them, on values whose
/// shortest digits are the same in every precision.
#[test]
fn formatter_options_follow_f64() {
    macro_rules! same_as_f64 {
        ($($spec:literal),*) => {
            for v in [1.5, -2.25, 1234.5, 0.0, -0.0, 1e21, 0.0078125, 9.5367431640625e-7, f64::INFINITY,
                      f64::NEG_INFINITY, f64::NAN] {
                $(
                    assert_eq!(format!($spec, Dd::from(v)), format!($spec, v), "{} of {v}", $spec);
                    assert_eq!(format!($spec, Qd::from(v)), format!($spec, v), "{} of {v}", $spec);
                )*
            }
        };
    }
    same_as_f64!(
        "{}",
        "{:+}",
        "{:10}",
        "{:<10}",
        "{:^10}",
        "{:>10}",
        "{:*^11}",
        "{:010}",
        "{:+010}",
        "{:.3}",
        "{:+.0}",
        "{:.1}",
        "{:e}",
        "{:E}",
        "{:.2e}",
        "{:12.3e}",
        "{:+012.3E}",
        "{:.0e}",
        "{:-^9}",
        "{:<+8.2}",
        "{:^08}",
        "{:2}"
    );
}

#[test]
fn special_values() {
    for (text, want) in [
        ("inf", f64::INFINITY),
        ("-Infinity", f64::NEG_INFINITY),
        ("+INF", f64::INFINITY),
        ("1e400", f64::INFINITY),
        ("-1e400", f64::NEG_INFINITY),
        ("1e99999999999999999999999", f64::INFINITY),
        ("1e-400", 0.0),
        ("-1e-99999999999999999999", -0.0),
        ("0e999999999999999999", 0.0),
        ("-0", -0.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e+5", 1e5),
        (
            "000000000000000000000000000000000000000000000000000000000001e0",
            1.0,
        ),
    ] {
        let dd: Dd = text.parse().unwrap_or(Dd::NAN);
        let qd: Qd = text.parse().unwrap_or(Qd::NAN);
        assert_eq!(dd.hi.to_bits(), want.to_bits(), "{text}");
        assert_eq!(qd.0[0].to_bits(), want.to_bits(), "{text}");
        assert!(
            dd.lo == 0.0 && qd.0[1..].iter().all(|c| *c == 0.0),
            "{text}"
        );
    }
    for text in ["nan", "NaN", "-nan", "+NAN"] {
        assert!(text.parse::<Dd>().is_ok_and(Dd::is_nan), "{text}");
        assert!(text.parse::<Qd>().is_ok_and(Qd::is_nan), "{text}");
    }
    assert_eq!(Dd::NAN.to_string(), "NaN");
    assert_eq!(Qd::NEG_INFINITY.to_string(), "-inf");
    assert_eq!(format!("{:e}", Qd::INFINITY), "inf");
    assert_eq!(Dd::from(-0.0).to_string(), "-0");
    assert_eq!(format!("{:.3e}", Qd::ZERO), "0.000e0");
    // The largest finite values print and read back bit for bit (both are in the canonical
    // form that parsing produces: tests/constants.rs checks Qd::MAX's components).
    assert_eq!(Dd::MAX.to_string().parse::<Dd>(), Ok(Dd::MAX));
    let max = Qd::MAX.to_string().parse::<Qd>().unwrap_or(Qd::NAN);
    assert_eq!(max.0.map(f64::to_bits), Qd::MAX.0.map(f64::to_bits));
    // A tie (a lower component exactly half an ulp of the one above: not the canonical form)
    // prints its shortest digits, not its exact expansion: found by the fuzzer as
    // 1e-307 + 2^-1073 in qd, whose exact expansion has about 750 digits. So does Qd::MAX.
    let tie = Qd::new(1e-307, 2f64.powi(-1073), 0.0, 0.0);
    for (value, printed) in [
        (tie, format!("{tie:e}")),
        (Qd::MAX, format!("{:e}", Qd::MAX)),
    ] {
        assert!(
            printed.len() <= 75,
            "{} characters: {printed}",
            printed.len()
        );
        let back = printed.parse::<Qd>().unwrap_or(Qd::NAN);
        assert_eq!(back.exact(), value.exact(), "{printed}");
    }
    // 1e300 prints every digit, as f64 does.
    assert_eq!(
        Dd::from(1e300).to_string().len(),
        format!("{}", 1e300).len()
    );
}

#[test]
fn every_error_path_names_its_column() {
    for (text, column, message) in [
        ("", 1, "expected a number, found an empty text"),
        (
            "-",
            2,
            "expected a digit, '.', 'inf' or 'nan' after the sign, found the end of the text",
        ),
        (
            "+-1",
            2,
            "expected a digit, '.', 'inf' or 'nan' after the sign, found '-'",
        ),
        (
            " 1",
            1,
            "expected a digit, '.', 'inf' or 'nan' at the start of a number, found ' '",
        ),
        (
            "1 ",
            2,
            "expected a digit, '.', an exponent 'e' or the end of the number, found ' '",
        ),
        (
            ".",
            2,
            "expected a digit after the decimal point, found the end of the text",
        ),
        (
            "-.e5",
            3,
            "expected a digit after the decimal point, found 'e'",
        ),
        (
            "1.2.3",
            4,
            "expected a digit, an exponent 'e' or the end of the number, found '.'",
        ),
        (
            "1e",
            3,
            "expected a digit after the exponent marker 'e', found the end of the text",
        ),
        (
            "2.5E",
            5,
            "expected a digit after the exponent marker 'E', found the end of the text",
        ),
        (
            "1e+",
            4,
            "expected a digit after the exponent sign '+', found the end of the text",
        ),
        (
            "1e-x",
            4,
            "expected a digit after the exponent sign '-', found 'x'",
        ),
        (
            "1e5.0",
            4,
            "expected a digit or the end of the number, found '.'",
        ),
        (
            "1_000",
            2,
            "expected a digit, '.', an exponent 'e' or the end of the number, found '_'",
        ),
        (
            "0x10",
            2,
            "expected a digit, '.', an exponent 'e' or the end of the number, found 'x'",
        ),
        (
            "e5",
            1,
            "expected a digit, '.', 'inf', 'infinity' or 'nan', found 'e'",
        ),
        (
            "infx",
            4,
            "expected the end of the number after 'inf', found 'x'",
        ),
        (
            "infinit",
            8,
            "expected the rest of 'infinity', found the end of the text",
        ),
        (
            "infinityy",
            9,
            "expected the end of the number after 'infinity', found 'y'",
        ),
        (
            "nana",
            4,
            "expected the end of the number after 'nan', found 'a'",
        ),
        (
            "-nx",
            3,
            "expected a digit, '.', 'inf', 'infinity' or 'nan', found 'x'",
        ),
        (
            "ééé1",
            1,
            "expected a digit, '.', 'inf' or 'nan' at the start of a number, found 'é'",
        ),
        (
            "1.5∞",
            4,
            "expected a digit, an exponent 'e' or the end of the number, found '∞'",
        ),
    ] {
        let want = ParseRealError {
            text: text.to_string(),
            column,
            message: message.to_string(),
        };
        assert_eq!(text.parse::<Dd>(), Err(want.clone()), "{text:?}");
        assert_eq!(text.parse::<Qd>(), Err(want.clone()), "{text:?}");
        assert_eq!(<f64 as Real>::parse_decimal(text), Err(want), "{text:?}");
    }
    let err = "1e".parse::<Dd>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a digit after the exponent marker 'e', found the end of the text at column 3 of \"1e\""
    );
}

/// Random strings over the characters of numbers and a few others: the parsers never panic,
/// accept exactly what `f64` accepts, agree with `f64` on the leading component, and point
/// errors at a column inside the text or just past its end.
#[test]
fn random_strings_are_accepted_exactly_when_f64_accepts_them() {
    let alphabet: Vec<char> = "0123456789012345678901234567890.....eE++--iInNfFaAtTyY _xé∞\t"
        .chars()
        .collect();
    let mut rng = rng(10);
    let mut accepted = 0;
    for _ in 0..samples() {
        let len = rng.gen_range(0..10);
        let text: String = (0..len)
            .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
            .collect();
        let std = text.parse::<f64>();
        let ours = <f64 as Real>::parse_decimal(&text);
        let dd = text.parse::<Dd>();
        let qd = text.parse::<Qd>();
        match (&std, &ours, &dd, &qd) {
            (Ok(s), Ok(o), Ok(d), Ok(q)) => {
                accepted += 1;
                assert!(
                    s.to_bits() == o.to_bits() || (s.is_nan() && o.is_nan()),
                    "{text:?}"
                );
                assert!(
                    s.to_bits() == d.hi.to_bits() || (s.is_nan() && d.is_nan()),
                    "{text:?}"
                );
                assert!(
                    s.to_bits() == q.0[0].to_bits() || (s.is_nan() && q.is_nan()),
                    "{text:?}"
                );
            }
            (Err(_), Err(o), Err(d), Err(q)) => {
                assert!(o == d && d == q, "{text:?}");
                assert!(
                    (1..=text.chars().count() + 1).contains(&d.column),
                    "{text:?}: {d}"
                );
            }
            _ => panic!("{text:?}: std {std:?}, f64 {ours:?}, dd {dd:?}, qd {qd:?}"),
        }
    }
    println!(
        "FUZZ {accepted} of {} random strings were numbers",
        samples()
    );
    assert!(accepted > 0);
}
