//! The compiled form of an expression: a flat, SSA-style list of instructions over numbered
//! slots, precision-independent, that the CPU evaluator runs column by column and the CUDA
//! generator turns into straight-line device code.

use std::collections::HashMap;

use precision::Real;

/// The number of an instruction's result: instruction `k` of [`Tape::ops`] writes slot `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(pub u32);

impl Slot {
    /// The slot's position in [`Tape::ops`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A function of one argument, under its canonical name ([`Func::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Sqrt,
    Cbrt,
    Exp,
    ExpM1,
    Ln,
    Ln1p,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Floor,
    Ceil,
    Round,
    Trunc,
    Abs,
}

impl Func {
    /// Every one-argument function, in the order error messages list them.
    pub const ALL: [Func; 25] = [
        Func::Sqrt,
        Func::Cbrt,
        Func::Exp,
        Func::ExpM1,
        Func::Ln,
        Func::Ln1p,
        Func::Log2,
        Func::Log10,
        Func::Sin,
        Func::Cos,
        Func::Tan,
        Func::Asin,
        Func::Acos,
        Func::Atan,
        Func::Sinh,
        Func::Cosh,
        Func::Tanh,
        Func::Asinh,
        Func::Acosh,
        Func::Atanh,
        Func::Floor,
        Func::Ceil,
        Func::Round,
        Func::Trunc,
        Func::Abs,
    ];

    /// The canonical name in the expression language (`ln`, `expm1`, `log1p`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Func::Sqrt => "sqrt",
            Func::Cbrt => "cbrt",
            Func::Exp => "exp",
            Func::ExpM1 => "expm1",
            Func::Ln => "ln",
            Func::Ln1p => "log1p",
            Func::Log2 => "log2",
            Func::Log10 => "log10",
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Asin => "asin",
            Func::Acos => "acos",
            Func::Atan => "atan",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Asinh => "asinh",
            Func::Acosh => "acosh",
            Func::Atanh => "atanh",
            Func::Floor => "floor",
            Func::Ceil => "ceil",
            Func::Round => "round",
            Func::Trunc => "trunc",
            Func::Abs => "abs",
        }
    }

    /// Applies the function in `T`, with the meaning of `f64`'s method of the same name.
    #[inline(always)]
    pub fn apply<T: Real>(self, x: T) -> T {
        match self {
            Func::Sqrt => x.sqrt(),
            Func::Cbrt => x.cbrt(),
            Func::Exp => x.exp(),
            Func::ExpM1 => x.exp_m1(),
            Func::Ln => x.ln(),
            Func::Ln1p => x.ln_1p(),
            Func::Log2 => x.log2(),
            Func::Log10 => x.log10(),
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Tan => x.tan(),
            Func::Asin => x.asin(),
            Func::Acos => x.acos(),
            Func::Atan => x.atan(),
            Func::Sinh => x.sinh(),
            Func::Cosh => x.cosh(),
            Func::Tanh => x.tanh(),
            Func::Asinh => x.asinh(),
            Func::Acosh => x.acosh(),
            Func::Atanh => x.atanh(),
            Func::Floor => x.floor(),
            Func::Ceil => x.ceil(),
            Func::Round => x.round(),
            Func::Trunc => x.trunc(),
            Func::Abs => x.abs(),
        }
    }
}

/// A function of two arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func2 {
    /// `atan2(y, x)`, the angle of the point (x, y).
    Atan2,
    Hypot,
    Min,
    Max,
    /// `pow(x, y)` = x^y for a non-integer exponent (`powf`).
    Pow,
}

impl Func2 {
    /// Every two-argument function, in the order error messages list them.
    pub const ALL: [Func2; 5] = [
        Func2::Atan2,
        Func2::Hypot,
        Func2::Min,
        Func2::Max,
        Func2::Pow,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Func2::Atan2 => "atan2",
            Func2::Hypot => "hypot",
            Func2::Min => "min",
            Func2::Max => "max",
            Func2::Pow => "pow",
        }
    }

    #[inline(always)]
    pub fn apply<T: Real>(self, a: T, b: T) -> T {
        match self {
            Func2::Atan2 => a.atan2(b),
            Func2::Hypot => a.hypot(b),
            Func2::Min => a.min(b),
            Func2::Max => a.max(b),
            Func2::Pow => a.powf(b),
        }
    }
}

/// A value in the constants table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Constant {
    /// A literal as exact decimal text (`0.1`, `1.5e-3`), to be parsed in each precision with
    /// [`Real::parse_decimal`] so that it is exact to that precision, never a rounded f64.
    Decimal(String),
    Pi,
    E,
}

impl Constant {
    /// The constant's value in `T`; a literal that `T` cannot parse (none the lexer lets
    /// through should fail) is NaN rather than a panic.
    pub fn value<T: Real>(&self) -> T {
        match self {
            Constant::Decimal(text) => {
                T::parse_decimal(text).unwrap_or_else(|_| T::from_f64(f64::NAN))
            }
            Constant::Pi => T::pi(),
            Constant::E => T::e(),
        }
    }
}

/// One instruction; its result is the slot numbered by its position in the tape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Coordinate `d` (0-based: `x1` is `Var(0)`).
    Var(usize),
    /// Entry of [`Tape::constants`].
    Const(usize),
    Neg(Slot),
    Add(Slot, Slot),
    Sub(Slot, Slot),
    Mul(Slot, Slot),
    Div(Slot, Slot),
    /// An integer power by repeated squaring and multiplication ([`pow_int`]); a negative
    /// exponent is the reciprocal of the positive power.
    PowI(Slot, i32),
    Unary(Func, Slot),
    Binary(Func2, Slot, Slot),
}

impl Op {
    /// The slots the instruction reads.
    pub fn operands(&self) -> impl Iterator<Item = Slot> {
        let (a, b) = match *self {
            Op::Var(_) | Op::Const(_) => (None, None),
            Op::Neg(a) | Op::PowI(a, _) | Op::Unary(_, a) => (Some(a), None),
            Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) | Op::Div(a, b) | Op::Binary(_, a, b) => {
                (Some(a), Some(b))
            }
        };
        a.into_iter().chain(b)
    }

    /// The instruction with every operand renumbered by `f`.
    fn map_slots(self, f: impl Fn(Slot) -> Slot) -> Op {
        match self {
            Op::Var(_) | Op::Const(_) => self,
            Op::Neg(a) => Op::Neg(f(a)),
            Op::Add(a, b) => Op::Add(f(a), f(b)),
            Op::Sub(a, b) => Op::Sub(f(a), f(b)),
            Op::Mul(a, b) => Op::Mul(f(a), f(b)),
            Op::Div(a, b) => Op::Div(f(a), f(b)),
            Op::PowI(a, n) => Op::PowI(f(a), n),
            Op::Unary(g, a) => Op::Unary(g, f(a)),
            Op::Binary(g, a, b) => Op::Binary(g, f(a), f(b)),
        }
    }

    /// Applies the instruction to operand values already computed; `Var` reads `vars`,
    /// `Const` reads `constants` (NaN if either index is out of range).
    #[inline]
    fn apply<T: Real>(&self, values: &[T], vars: &[T], constants: &[Constant]) -> T {
        let v = |s: Slot| values[s.index()];
        let nan = || T::from_f64(f64::NAN);
        match *self {
            Op::Var(d) => vars.get(d).copied().unwrap_or_else(nan),
            Op::Const(k) => constants.get(k).map_or_else(nan, Constant::value),
            Op::Neg(a) => -v(a),
            Op::Add(a, b) => v(a) + v(b),
            Op::Sub(a, b) => v(a) - v(b),
            Op::Mul(a, b) => v(a) * v(b),
            Op::Div(a, b) => v(a) / v(b),
            Op::PowI(a, n) => pow_int(v(a), n),
            Op::Unary(f, a) => f.apply(v(a)),
            Op::Binary(f, a, b) => f.apply(v(a), v(b)),
        }
    }
}

/// `x^n` by binary powering: `x^2 = x*x`, `x^3 = x*(x*x)`, `x^4 = (x*x)*(x*x)`, ...; a
/// negative `n` gives `1 / x^|n|`, and `x^0 = 1` for every `x` (as `f64::powi`).
#[inline]
pub fn pow_int<T: Real>(x: T, n: i32) -> T {
    if n == 0 {
        return T::one();
    }
    let mut k = n.unsigned_abs();
    let mut base = x;
    let mut acc: Option<T> = None;
    loop {
        if k & 1 == 1 {
            acc = Some(match acc {
                None => base,
                Some(a) => a * base,
            });
        }
        k >>= 1;
        if k == 0 {
            break;
        }
        base = base * base;
    }
    // `acc` is set: the highest bit of a non-zero `k` is always reached.
    let p = acc.unwrap_or(base);
    if n < 0 {
        T::one() / p
    } else {
        p
    }
}

/// A compiled expression: instructions in evaluation order, each writing its own slot, the
/// constants they load, and the slot holding the value.
///
/// Every slot is used (dead instructions are removed) and identical instructions appear once.
/// [`Tape::is_constant`] tells which slots depend on no variable, so that a consumer can fold
/// them once per precision; the CPU evaluator does, in the working precision, never in f64.
///
/// ```
/// use hpquad::expr::{Constant, Expr, Op, Slot};
///
/// let e = Expr::parse("x^2 + 0.1", 1).unwrap();
/// let tape = e.tape();
/// assert_eq!(
///     tape.ops(),
///     &[Op::Var(0), Op::PowI(Slot(0), 2), Op::Const(0), Op::Add(Slot(1), Slot(2))]
/// );
/// assert_eq!(tape.constants(), &[Constant::Decimal("0.1".into())]);
/// assert_eq!(tape.result(), Slot(3));
/// assert!(tape.is_constant(Slot(2)) && !tape.is_constant(Slot(3)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Tape {
    ops: Vec<Op>,
    constants: Vec<Constant>,
    result: Slot,
    dims: usize,
    constant: Vec<bool>,
}

impl Tape {
    /// The instructions; `ops()[k]` writes `Slot(k)` and reads only lower slots.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// The constants table that [`Op::Const`] indexes.
    pub fn constants(&self) -> &[Constant] {
        &self.constants
    }

    /// The slot holding the expression's value.
    pub fn result(&self) -> Slot {
        self.result
    }

    /// The number of variables of the domain the expression was parsed for.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Whether `slot` depends on no variable (false for a slot beyond the tape).
    pub fn is_constant(&self, slot: Slot) -> bool {
        self.constant.get(slot.index()).copied().unwrap_or(false)
    }

    /// Whether an operation on a variable can make the expression non-smooth at a point where
    /// it stays finite: `abs`, `floor`, `ceil`, `round`, `trunc`, `min`, `max`, `hypot` (a
    /// kink or a jump where its arguments meet or vanish), `atan2` (a jump across its branch
    /// cut) and `cbrt` (a finite infinite-slope point at 0). Every other operation is analytic
    /// wherever its result is finite, except `sqrt`, `pow` and the logarithms at a zero of
    /// their argument that the expression only touches (sqrt(x²)), which this cannot see.
    ///
    /// ```
    /// use hpquad::expr::Expr;
    /// assert!(Expr::parse("abs(x - 0.3)", 1)?.tape().has_kinks());
    /// assert!(!Expr::parse("exp(-x) * sin(x) + abs(-2)", 1)?.tape().has_kinks());
    /// # Ok::<(), hpquad::expr::ExprError>(())
    /// ```
    pub fn has_kinks(&self) -> bool {
        self.ops.iter().enumerate().any(|(k, op)| {
            let kinked = matches!(
                op,
                Op::Unary(
                    Func::Abs | Func::Floor | Func::Ceil | Func::Round | Func::Trunc | Func::Cbrt,
                    _
                ) | Op::Binary(Func2::Min | Func2::Max | Func2::Hypot | Func2::Atan2, _, _)
            );
            kinked && !self.constant[k]
        })
    }

    /// The degree of the expression as a polynomial in coordinate `var` (the other
    /// coordinates and parameters held fixed), or `None` when it is not one: sums, products,
    /// non-negative integer powers and divisions by what does not depend on `var` of that
    /// coordinate and constants, and any function of what does not depend on it. An upper
    /// bound: x² − x² counts 2.
    ///
    /// ```
    /// use hpquad::expr::Expr;
    /// assert_eq!(Expr::parse("x^8 + 3*x^4/7 - x", 1)?.tape().polynomial_degree(0), Some(8));
    /// assert_eq!(Expr::parse("(x + 1)*(x - exp(2))", 1)?.tape().polynomial_degree(0), Some(2));
    /// assert_eq!(Expr::parse("1/(1 + x^2)", 1)?.tape().polynomial_degree(0), None);
    /// assert_eq!(Expr::parse("sqrt(x)", 1)?.tape().polynomial_degree(0), None);
    /// # Ok::<(), hpquad::expr::ExprError>(())
    /// ```
    pub fn polynomial_degree(&self, var: usize) -> Option<u32> {
        let mut degrees: Vec<Option<u32>> = Vec::with_capacity(self.ops.len());
        for (k, op) in self.ops.iter().enumerate() {
            let of = |slot: Slot| degrees[slot.index()];
            let degree = if self.constant[k] {
                Some(0)
            } else {
                match *op {
                    Op::Var(v) => Some(u32::from(v == var)),
                    Op::Const(_) => Some(0),
                    Op::Neg(a) => of(a),
                    Op::Add(a, b) | Op::Sub(a, b) => of(a).zip(of(b)).map(|(a, b)| a.max(b)),
                    Op::Mul(a, b) => of(a).zip(of(b)).and_then(|(a, b)| a.checked_add(b)),
                    Op::Div(a, b) => of(a).filter(|_| of(b) == Some(0)),
                    Op::PowI(a, n) => match of(a) {
                        Some(0) => Some(0),
                        d => d
                            .zip(u32::try_from(n).ok())
                            .and_then(|(d, n)| d.checked_mul(n)),
                    },
                    Op::Unary(_, a) => (of(a) == Some(0)).then_some(0),
                    Op::Binary(_, a, b) => (of(a) == Some(0) && of(b) == Some(0)).then_some(0),
                }
            };
            degrees.push(degree);
        }
        degrees.get(self.result.index()).copied().flatten()
    }

    /// Evaluates the expression at one point, instruction by instruction, in `T`; a reference
    /// for tests and for the CUDA generator's agreement checks. A missing coordinate is NaN.
    pub fn eval_point<T: Real>(&self, vars: &[T]) -> T {
        let mut values: Vec<T> = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            let v = op.apply(&values, vars, &self.constants);
            values.push(v);
        }
        values
            .get(self.result.index())
            .copied()
            .unwrap_or_else(|| T::from_f64(f64::NAN))
    }

    /// The value of every constant slot in `T`, in slot order (the other entries are zero).
    pub(crate) fn fold_constants<T: Real>(&self) -> Vec<T> {
        let mut values: Vec<T> = Vec::with_capacity(self.ops.len());
        for (op, &constant) in self.ops.iter().zip(&self.constant) {
            let v = if constant {
                op.apply(&values, &[], &self.constants)
            } else {
                T::zero()
            };
            values.push(v);
        }
        values
    }
}

/// Builds a tape instruction by instruction, sharing identical instructions and constants.
#[derive(Default)]
pub(crate) struct TapeBuilder {
    ops: Vec<Op>,
    seen: HashMap<Op, Slot>,
    constants: Vec<Constant>,
    constant_index: HashMap<Constant, usize>,
}

impl TapeBuilder {
    /// Appends `op` unless the same instruction is already there (common subexpressions).
    pub fn push(&mut self, op: Op) -> Slot {
        if let Some(&slot) = self.seen.get(&op) {
            return slot;
        }
        // Slots are u32; an expression with four billion instructions cannot be parsed from
        // any string that fits in memory, so the cast cannot wrap in practice.
        let slot = Slot(self.ops.len() as u32);
        self.ops.push(op);
        self.seen.insert(op, slot);
        slot
    }

    pub fn constant(&mut self, c: Constant) -> Slot {
        let next = self.constants.len();
        let k = *self.constant_index.entry(c.clone()).or_insert(next);
        if k == next {
            self.constants.push(c);
        }
        self.push(Op::Const(k))
    }

    /// The finished tape with instructions that do not reach `result` removed.
    pub fn finish(self, result: Slot, dims: usize) -> Tape {
        let n = self.ops.len();
        let mut live = vec![false; n];
        if let Some(l) = live.get_mut(result.index()) {
            *l = true;
        }
        for k in (0..n).rev() {
            if live[k] {
                for s in self.ops[k].operands() {
                    live[s.index()] = true;
                }
            }
        }
        let mut renumber = vec![Slot(0); n];
        let mut ops = Vec::new();
        let mut constant = Vec::new();
        for k in (0..n).filter(|&k| live[k]) {
            let op = self.ops[k].map_slots(|s| renumber[s.index()]);
            let is_const = match op {
                Op::Var(_) => false,
                Op::Const(_) => true,
                _ => op.operands().all(|s| constant[s.index()]),
            };
            renumber[k] = Slot(ops.len() as u32);
            ops.push(op);
            constant.push(is_const);
        }
        // Constants no live instruction loads are dropped, keeping the table's order.
        let mut used = vec![None; self.constants.len()];
        let mut constants = Vec::new();
        for op in &mut ops {
            if let Op::Const(k) = op {
                let new = *used[*k].get_or_insert_with(|| {
                    constants.push(self.constants[*k].clone());
                    constants.len() - 1
                });
                *k = new;
            }
        }
        Tape {
            result: renumber.get(result.index()).copied().unwrap_or(Slot(0)),
            ops,
            constants,
            dims,
            constant,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow_int_matches_powi_on_exact_cases() {
        for n in -6..=12 {
            assert_eq!(pow_int(2.0f64, n), 2.0f64.powi(n), "n = {n}");
        }
        assert_eq!(pow_int(f64::NAN, 0), 1.0);
        assert_eq!(pow_int(0.0f64, -1), f64::INFINITY);
        assert_eq!(pow_int(3.0f64, i32::MIN), 0.0);
    }

    #[test]
    fn builder_shares_and_prunes() {
        let mut b = TapeBuilder::default();
        let x = b.push(Op::Var(0));
        // A constant nothing uses: pruned from the finished tape.
        let _unused = b.constant(Constant::Decimal("3".into()));
        let two = b.constant(Constant::Decimal("2".into()));
        let two_again = b.constant(Constant::Decimal("2".into()));
        assert_eq!(two, two_again);
        let p = b.push(Op::Mul(two, x));
        let q = b.push(Op::Mul(two, x));
        assert_eq!(p, q);
        let tape = b.finish(p, 1);
        assert_eq!(
            tape.ops(),
            &[Op::Var(0), Op::Const(0), Op::Mul(Slot(1), Slot(0))]
        );
        assert_eq!(tape.constants(), &[Constant::Decimal("2".into())]);
        assert_eq!(tape.eval_point(&[5.0f64]), 10.0);
    }
}
