//! Conversions between [`Dd`] and twofloat's `TwoFloat` (feature `twofloat`), so that code
//! written against twofloat can hand its values to hpquad and back.
//!
//! Both are unevaluated sums of two doubles; the conversions pass the components through a
//! TwoSum, which is exact and leaves them normalised whatever twofloat's own invariant was.
//! Infinities and NaN map to the other type's own representation of them.

use twofloat::TwoFloat;

use crate::Dd;

impl From<TwoFloat> for Dd {
    /// The same value, exactly; renormalised with a TwoSum.
    fn from(x: TwoFloat) -> Dd {
        let (hi, lo) = (x.hi(), x.lo());
        if !hi.is_finite() {
            // twofloat keeps inf or NaN in both components; a Dd keeps the trailing one zero.
            return Dd::from_f64(hi);
        }
        Dd::from_sum(hi, lo)
    }
}

impl From<Dd> for TwoFloat {
    /// The same value, exactly (a Dd is already normalised, so the TwoSum in
    /// `TwoFloat::new_add` keeps its components).
    fn from(x: Dd) -> TwoFloat {
        if x.hi.is_nan() {
            TwoFloat::NAN
        } else if x.hi == f64::INFINITY {
            TwoFloat::INFINITY
        } else if x.hi == f64::NEG_INFINITY {
            TwoFloat::NEG_INFINITY
        } else {
            TwoFloat::new_add(x.hi, x.lo)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_is_exact() {
        let third = Dd::ONE / Dd::from(3.0);
        let t = TwoFloat::from(third);
        assert_eq!((t.hi(), t.lo()), (third.hi, third.lo));
        assert_eq!(Dd::from(t), third);
        for x in [Dd::MAX, -Dd::PI, Dd::ZERO, Dd::new(1e-300, 1e-317)] {
            assert_eq!(Dd::from(TwoFloat::from(x)), x);
        }
    }

    #[test]
    fn arithmetic_results_convert_exactly() {
        let t = TwoFloat::from(1.0) / TwoFloat::from(7.0) + TwoFloat::from(1e-20);
        let d = Dd::from(t);
        // Normalised, and the same sum: the differences of the components cancel exactly.
        assert_eq!(d.hi + d.lo, d.hi);
        assert_eq!((d.hi - t.hi()) + (d.lo - t.lo()), 0.0);
    }

    #[test]
    fn special_values() {
        assert_eq!(Dd::from(TwoFloat::INFINITY), Dd::INFINITY);
        assert_eq!(Dd::from(TwoFloat::NEG_INFINITY), Dd::NEG_INFINITY);
        assert!(Dd::from(TwoFloat::NAN).is_nan());
        assert_eq!(TwoFloat::from(Dd::INFINITY).hi(), f64::INFINITY);
        assert!(TwoFloat::from(Dd::NAN).hi().is_nan());
    }
}
