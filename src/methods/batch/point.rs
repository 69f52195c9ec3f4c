//! The integrand at one point, as one thread of a batch evaluates it: the tape's instructions
//! in order over a buffer of slots, its constants folded once per task in the working
//! precision, nothing allocated per point.
//!
//! `Integrand::eval_batch` works op by op over columns, which pays off over hundreds of
//! points; the per-integral methods here ask for one point at a time (each forward-quadrature
//! step depends on the last value), where its per-call set-up (the folded constants, the
//! column buffers) costs more than the instructions (see the module's report in
//! `methods/batch/mod.rs`).

use precision::Real;

use crate::expr::{pow_int, Op, Slot, Tape};

/// A tape ready to evaluate point by point in `T`.
pub(crate) struct PointEval<'a, T> {
    tape: &'a Tape,
    /// One value per slot; the constant slots hold their folded values from the start.
    slots: Vec<T>,
    /// For each slot, its value as a double when it is a constant that is an exact double in
    /// dd or qd: it enters + − × ÷ through the mixed operations (`Qd * f64`), as in
    /// `Expr::eval_batch` and the generated CUDA (`src/expr/cuda.rs`), whose bits the GPU's
    /// batch kernel must give.
    small: Vec<Option<f64>>,
}

impl<'a, T: Real> PointEval<'a, T> {
    /// Folds the tape's constants in `T`.
    pub fn new(tape: &'a Tape) -> PointEval<'a, T> {
        let slots = tape.fold_constants::<T>();
        let small = slots
            .iter()
            .enumerate()
            .map(|(k, v)| {
                let limbs = v.limbs();
                let exact = T::LIMBS > 1
                    && tape.is_constant(Slot(k as u32))
                    && limbs[1..].iter().all(|&l| l == 0.0);
                exact.then_some(limbs[0])
            })
            .collect();
        PointEval { slots, small, tape }
    }

    /// The value at `vars` (coordinates, then parameters); a missing variable reads as NaN.
    pub fn at(&mut self, vars: &[T]) -> T {
        let tape = self.tape;
        let s = &mut self.slots;
        let small = &self.small;
        let c = |i: Slot| small.get(i.index()).copied().flatten();
        for (k, op) in tape.ops().iter().enumerate() {
            // Constant slots (literals, and pi/2, sqrt(2), ...) hold their folded values.
            if tape.is_constant(Slot(k as u32)) {
                continue;
            }
            let v = |i: Slot| s[i.index()];
            s[k] = match *op {
                Op::Var(d) => vars
                    .get(d)
                    .copied()
                    .unwrap_or_else(|| T::from_f64(f64::NAN)),
                Op::Const(_) => continue,
                Op::Neg(a) => -v(a),
                Op::Add(a, b) => match (c(a), c(b)) {
                    (None, Some(y)) => v(a) + y,
                    (Some(y), None) => v(b) + y,
                    _ => v(a) + v(b),
                },
                Op::Sub(a, b) => match c(b) {
                    Some(y) => v(a) - y,
                    None => v(a) - v(b),
                },
                Op::Mul(a, b) => match (c(a), c(b)) {
                    (None, Some(y)) => v(a) * y,
                    (Some(y), None) => v(b) * y,
                    _ => v(a) * v(b),
                },
                Op::Div(a, b) => match c(b) {
                    Some(y) => v(a) / y,
                    None => v(a) / v(b),
                },
                Op::PowI(a, n) => pow_int(v(a), n),
                Op::Unary(f, a) => f.apply(v(a)),
                Op::Binary(f, a, b) => f.apply(v(a), v(b)),
            };
        }
        s.get(tape.result().index())
            .copied()
            .unwrap_or_else(|| T::from_f64(f64::NAN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Expr;
    use crate::integrand::Integrand;
    use precision::Qd;

    #[test]
    fn agrees_with_the_batch_evaluator() {
        let f =
            Expr::parse_with_parameters("exp(-p*x^2) + sin(pi/3*x)/(1+q) + 0.1", 1, &["p", "q"])
                .unwrap();
        let mut point = PointEval::<Qd>::new(f.tape());
        for (x, p, q) in [(0.5, 2.0, 3.0), (1.25, 0.1, -0.5), (-2.0, 7.0, 0.0)] {
            let vars = [Qd::from(x), Qd::from(p), Qd::from(q)];
            let mut out = [Qd::from(0)];
            f.eval_batch(&[&vars[0..1], &vars[1..2], &vars[2..3]], &mut out);
            assert_eq!(point.at(&vars), out[0]);
        }
    }
}
