//! The accuracy of two other double-double crates, measured against MPFR on ordinary inputs,
//! for the comparison table in precision/README.md (the figures printed here go there).
//!
//! - twofloat 0.8.4's `TwoFloat`: `+ * / sqrt exp ln sin cos`;
//! - the `qd` crate 0.1: despite its name its arithmetic type is the double-double
//!   `qd::Double<f64>` (its `Quad` is only a four-field container): `+ * / sqrt exp ln`.
//!
//! These are measurements, not bounds: the tests assert only that every sample ran, and print
//! `PEER <crate> <op> max rel err 2^-xx (~yy digits)`.

mod common;

use common::{rng, samples, uniform, MaxError, PREC};
use rand::rngs::StdRng;
use rug::Float;
use twofloat::TwoFloat;

type QdDouble = qd::Double<f64>;

/// The samples per operation: a tenth of `samples()`, at least 10 000 (the peers' worst cases
/// are far above their rounding, so the figure settles quickly).
fn peer_samples() -> usize {
    (samples() / 10).max(10_000)
}

/// A double-double drawn with a full-precision significand, as its two components.
fn draw(rng: &mut StdRng, lo: f64, hi: f64) -> (f64, f64) {
    let d: precision::Dd = uniform(rng, lo, hi);
    (d.hi, d.lo)
}

fn mpfr(c: (f64, f64)) -> Float {
    Float::with_val(PREC, c.0) + c.1
}

/// Measures one operation of one crate and prints its PEER line.
fn measure(
    name: &str,
    seed: u64,
    range: (f64, f64),
    op: impl Fn((f64, f64), (f64, f64)) -> (f64, f64),
    exact: impl Fn(Float, Float) -> Float,
) {
    let mut r = rng(seed);
    let mut err = MaxError::new(name);
    for _ in 0..peer_samples() {
        let (a, b) = (
            draw(&mut r, range.0, range.1),
            draw(&mut r, range.0, range.1),
        );
        let got = mpfr(op(a, b));
        err.record(&got, &exact(mpfr(a), mpfr(b)), || format!("{a:?}, {b:?}"));
    }
    let digits = -err.worst.log10();
    println!(
        "PEER {name:<18} max rel err 2^{:.1} (~{digits:.1} digits) over {} inputs",
        err.log2(),
        err.count
    );
    assert_eq!(err.count, peer_samples());
}

fn tf(c: (f64, f64)) -> TwoFloat {
    TwoFloat::new_add(c.0, c.1)
}

fn from_tf(x: TwoFloat) -> (f64, f64) {
    (x.hi(), x.lo())
}

fn qd(c: (f64, f64)) -> QdDouble {
    qd::Double(c.0, c.1)
}

fn from_qd(x: QdDouble) -> (f64, f64) {
    (x.0, x.1)
}

const NORMAL: (f64, f64) = (0.5, 2.0);
const SIGNED: (f64, f64) = (-10.0, 10.0);

#[test]
fn twofloat_accuracy() {
    let t = |name: &str| format!("twofloat {name}");
    measure(
        &t("+"),
        1,
        SIGNED,
        |a, b| from_tf(tf(a) + tf(b)),
        |a, b| a + b,
    );
    measure(
        &t("*"),
        2,
        SIGNED,
        |a, b| from_tf(tf(a) * tf(b)),
        |a, b| a * b,
    );
    measure(
        &t("/"),
        3,
        NORMAL,
        |a, b| from_tf(tf(a) / tf(b)),
        |a, b| a / b,
    );
    measure(
        &t("sqrt"),
        4,
        NORMAL,
        |a, _| from_tf(tf(a).sqrt()),
        |a, _| a.sqrt(),
    );
    measure(
        &t("exp"),
        5,
        SIGNED,
        |a, _| from_tf(tf(a).exp()),
        |a, _| a.exp(),
    );
    measure(
        &t("ln"),
        6,
        NORMAL,
        |a, _| from_tf(tf(a).ln()),
        |a, _| a.ln(),
    );
    measure(
        &t("sin"),
        7,
        SIGNED,
        |a, _| from_tf(tf(a).sin()),
        |a, _| a.sin(),
    );
    measure(
        &t("cos"),
        8,
        SIGNED,
        |a, _| from_tf(tf(a).cos()),
        |a, _| a.cos(),
    );
}

#[test]
fn qd_crate_accuracy() {
    let q = |name: &str| format!("qd-crate {name}");
    measure(
        &q("+"),
        11,
        SIGNED,
        |a, b| from_qd(qd(a) + qd(b)),
        |a, b| a + b,
    );
    measure(
        &q("*"),
        12,
        SIGNED,
        |a, b| from_qd(qd(a) * qd(b)),
        |a, b| a * b,
    );
    measure(
        &q("/"),
        13,
        NORMAL,
        |a, b| from_qd(qd(a) / qd(b)),
        |a, b| a / b,
    );
    measure(
        &q("sqrt"),
        14,
        NORMAL,
        |a, _| from_qd(qd(a).sqrt()),
        |a, _| a.sqrt(),
    );
    measure(
        &q("exp"),
        15,
        SIGNED,
        |a, _| from_qd(qd(a).exp()),
        |a, _| a.exp(),
    );
    measure(
        &q("ln"),
        16,
        NORMAL,
        |a, _| from_qd(qd(a).ln()),
        |a, _| a.ln(),
    );
}
