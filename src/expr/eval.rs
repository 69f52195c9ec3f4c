//! Batch evaluation of a tape: constants folded once per precision, then the varying
//! instructions run one at a time over a chunk of points, each as a tight loop over columns
//! (which the compiler vectorises for f64), with column buffers reused once their value dies.

use std::sync::OnceLock;

use precision::Real;

use super::tape::{pow_int, Func, Func2, Op, Tape};

/// Bytes per column buffer: small enough that a handful of live columns stay in L1/L2, large
/// enough that the per-instruction dispatch is spread over many points.
const CHUNK_BYTES: usize = 4096;

/// Where an instruction reads an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operand {
    /// A column buffer written by an earlier instruction.
    Reg(usize),
    /// Coordinate `d` of the batch, read in place.
    Input(usize),
    /// The folded value of a constant slot.
    Const(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    PowI(i32),
    Unary(Func),
    Binary(Func2),
}

/// One column instruction: `dst = kind(a, b)` (`b` unused by one-operand kinds).
#[derive(Clone, Copy, Debug)]
struct Instr {
    kind: Kind,
    dst: usize,
    a: Operand,
    b: Operand,
}

/// The precision-independent evaluation plan of a tape, built once per expression.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    instrs: Vec<Instr>,
    registers: usize,
    result: Operand,
    /// Whether the last instruction computes the result, so that it can write the output
    /// directly instead of a column buffer.
    last_is_result: bool,
    /// How many coordinates the tape reads (one more than the largest `Var`).
    inputs: usize,
    /// The folded constant slots per precision, as limbs, computed on first use.
    folded: [OnceLock<Vec<[f64; 4]>>; 3],
}

impl Plan {
    pub fn new(tape: &Tape) -> Plan {
        let ops = tape.ops();
        // The last instruction that reads each slot; the result lives to the end.
        let mut last_use = vec![0usize; ops.len()];
        for (k, op) in ops.iter().enumerate() {
            for s in op.operands() {
                last_use[s.index()] = k;
            }
        }
        if let Some(l) = last_use.get_mut(tape.result().index()) {
            *l = usize::MAX;
        }

        let mut place: Vec<Operand> = Vec::with_capacity(ops.len());
        let mut free: Vec<usize> = Vec::new();
        let mut registers = 0;
        let mut instrs = Vec::new();
        let mut inputs = 0;
        for (k, op) in ops.iter().enumerate() {
            let slot = super::tape::Slot(k as u32);
            if tape.is_constant(slot) {
                place.push(Operand::Const(k));
                continue;
            }
            let (kind, a, b) = match *op {
                Op::Var(d) => {
                    inputs = inputs.max(d + 1);
                    place.push(Operand::Input(d));
                    continue;
                }
                // Constants were handled above; keep the arm total.
                Op::Const(_) => {
                    place.push(Operand::Const(k));
                    continue;
                }
                Op::Neg(a) => (Kind::Neg, a, a),
                Op::Add(a, b) => (Kind::Add, a, b),
                Op::Sub(a, b) => (Kind::Sub, a, b),
                Op::Mul(a, b) => (Kind::Mul, a, b),
                Op::Div(a, b) => (Kind::Div, a, b),
                Op::PowI(a, n) => (Kind::PowI(n), a, a),
                Op::Unary(f, a) => (Kind::Unary(f), a, a),
                Op::Binary(f, a, b) => (Kind::Binary(f), a, b),
            };
            // The destination is chosen before the operands' buffers are released, so it
            // never aliases an operand.
            let dst = free.pop().unwrap_or_else(|| {
                registers += 1;
                registers - 1
            });
            let (pa, pb) = (place[a.index()], place[b.index()]);
            for s in [a, b] {
                if last_use[s.index()] == k {
                    if let Operand::Reg(r) = place[s.index()] {
                        if !free.contains(&r) {
                            free.push(r);
                        }
                    }
                }
            }
            instrs.push(Instr {
                kind,
                dst,
                a: pa,
                b: pb,
            });
            place.push(Operand::Reg(dst));
        }
        let result = place
            .get(tape.result().index())
            .copied()
            .unwrap_or(Operand::Const(0));
        let last_is_result = matches!(
            (instrs.last(), result),
            (Some(i), Operand::Reg(r)) if i.dst == r
        );
        Plan {
            instrs,
            registers,
            result,
            last_is_result,
            inputs,
            folded: Default::default(),
        }
    }

    /// The value of every constant slot in `T` (zero for the others), folded in `T` once per
    /// precision and cached.
    pub fn constants<T: Real>(&self, tape: &Tape) -> Vec<T> {
        let cache = match T::NAME {
            "f64" => Some(&self.folded[0]),
            "dd" => Some(&self.folded[1]),
            "qd" => Some(&self.folded[2]),
            _ => None,
        };
        match cache {
            // Limbs round-trip exactly, so the cached values are the folded bits.
            Some(cell) => cell
                .get_or_init(|| {
                    tape.fold_constants::<T>()
                        .into_iter()
                        .map(T::limbs)
                        .collect()
                })
                .iter()
                .map(|l| T::from_limbs(l))
                .collect(),
            None => tape.fold_constants::<T>(),
        }
    }

    /// Evaluates the tape at `out.len()` points given as columns. Missing or short columns
    /// (a caller's bug, not user input) give NaN everywhere rather than a panic.
    pub fn eval_batch<T: Real>(&self, tape: &Tape, points: &[&[T]], out: &mut [T]) {
        let n = out.len();
        let nan = T::from_f64(f64::NAN);
        if points.len() < self.inputs || points[..self.inputs].iter().any(|c| c.len() < n) {
            out.fill(nan);
            return;
        }
        let folded = self.constants::<T>(tape);
        let scalars: Vec<Scalar<T>> = folded.iter().map(|&v| Scalar::of(v)).collect();
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU was just checked to have the features the function is built for.
            unsafe { self.chunks_avx2(points, out, &scalars) };
            return;
        }
        self.chunks(points, out, &scalars);
    }

    /// [`Plan::chunks`] compiled for AVX2 and FMA: the column loops run four doubles wide,
    /// and dd/qd's explicit fused multiply-adds become single instructions. Rust never fuses
    /// a separate multiply and add, so results are the same bits as the baseline build.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn chunks_avx2<T: Real>(&self, points: &[&[T]], out: &mut [T], scalars: &[Scalar<T>]) {
        self.chunks(points, out, scalars);
    }

    /// Runs the instructions chunk by chunk.
    #[inline(always)]
    fn chunks<T: Real>(&self, points: &[&[T]], out: &mut [T], scalars: &[Scalar<T>]) {
        let n = out.len();
        let chunk = (CHUNK_BYTES / (8 * T::LIMBS.max(1))).max(1);
        let mut regs: Vec<Vec<T>> = vec![vec![T::zero(); chunk.min(n)]; self.registers];

        let mut start = 0;
        while start < n {
            let end = (start + chunk).min(n);
            let len = end - start;
            let last = self.instrs.len().wrapping_sub(1);
            for (i, ins) in self.instrs.iter().enumerate() {
                let mut buffer = std::mem::take(&mut regs[ins.dst]);
                let dst: &mut [T] = if i == last && self.last_is_result {
                    &mut out[start..end]
                } else {
                    &mut buffer[..len]
                };
                let a = resolve(ins.a, &regs, points, scalars, start..end);
                let b = resolve(ins.b, &regs, points, scalars, start..end);
                run(ins.kind, dst, a, b);
                regs[ins.dst] = buffer;
            }
            if !self.last_is_result {
                let o = &mut out[start..end];
                match resolve(self.result, &regs, points, scalars, start..end) {
                    Src::Col(c) => o.copy_from_slice(c),
                    Src::Scalar(v) => o.fill(v),
                    Src::Small(c) => o.fill(T::from_f64(c)),
                }
            }
            start = end;
        }
    }
}

/// The operand `o` for the points `range` of the batch.
#[inline]
fn resolve<'a, T: Real>(
    o: Operand,
    regs: &'a [Vec<T>],
    points: &[&'a [T]],
    scalars: &[Scalar<T>],
    range: std::ops::Range<usize>,
) -> Src<'a, T> {
    match o {
        Operand::Reg(r) => Src::Col(&regs[r][..range.len()]),
        Operand::Input(d) => Src::Col(&points[d][range]),
        Operand::Const(k) => match scalars[k] {
            Scalar::Full(v) => Src::Scalar(v),
            Scalar::Small(c) => Src::Small(c),
        },
    }
}

/// A folded constant, with those that are exact doubles kept as `f64` so that dd and qd use
/// their cheaper mixed operations (`Qd * f64`), as hand-written code would.
#[derive(Clone, Copy)]
enum Scalar<T> {
    Full(T),
    Small(f64),
}

impl<T: Real> Scalar<T> {
    fn of(v: T) -> Scalar<T> {
        let limbs = v.limbs();
        if T::LIMBS > 1 && limbs[1..].iter().all(|&l| l == 0.0) {
            Scalar::Small(limbs[0])
        } else {
            Scalar::Full(v)
        }
    }
}

/// An operand for one chunk.
#[derive(Clone, Copy)]
enum Src<'a, T> {
    Col(&'a [T]),
    Scalar(T),
    Small(f64),
}

impl<T: Real> Src<'_, T> {
    /// The operand with an f64 constant widened to `T`.
    fn full(self) -> Self {
        match self {
            Src::Small(c) => Src::Scalar(T::from_f64(c)),
            other => other,
        }
    }
}

/// `d[i] = f(a[i])` (or `f(a)` everywhere for a constant operand).
#[inline(always)]
fn map<T: Real>(d: &mut [T], a: Src<'_, T>, f: impl Fn(T) -> T) {
    match a.full() {
        Src::Col(a) => {
            for (y, &x) in d.iter_mut().zip(a) {
                *y = f(x);
            }
        }
        Src::Scalar(c) => d.fill(f(c)),
        Src::Small(c) => d.fill(f(T::from_f64(c))),
    }
}

/// `d[i] = f(a[i], b[i])`, with either operand possibly constant.
#[inline(always)]
fn map2<T: Real>(d: &mut [T], a: Src<'_, T>, b: Src<'_, T>, f: impl Fn(T, T) -> T) {
    match (a.full(), b.full()) {
        (Src::Col(a), Src::Col(b)) => {
            for ((y, &x), &z) in d.iter_mut().zip(a).zip(b) {
                *y = f(x, z);
            }
        }
        (Src::Col(a), Src::Scalar(c)) => {
            for (y, &x) in d.iter_mut().zip(a) {
                *y = f(x, c);
            }
        }
        (Src::Scalar(c), Src::Col(b)) => {
            for (y, &z) in d.iter_mut().zip(b) {
                *y = f(c, z);
            }
        }
        // Two constants are folded before evaluation; kept total for safety.
        (a, b) => {
            let v = f(a.value(), b.value());
            d.fill(v);
        }
    }
}

impl<T: Real> Src<'_, T> {
    /// The value of a constant operand (NaN for a column; never asked of one).
    fn value(self) -> T {
        match self {
            Src::Scalar(c) => c,
            Src::Small(c) => T::from_f64(c),
            Src::Col(_) => T::from_f64(f64::NAN),
        }
    }
}

/// Expands to a `match` on the function with one loop per function, so that each loop calls
/// its function directly (and f64's `sqrt`, `abs`, `floor`... vectorise).
macro_rules! map_func {
    ($f:expr, $d:expr, $a:expr, $($v:ident),*) => {
        match $f {
            $(Func::$v => map($d, $a, |x| Func::$v.apply(x)),)*
        }
    };
}

/// Runs one instruction over a chunk (inlined so that the AVX2 build gets its own copy).
#[inline(always)]
fn run<T: Real>(kind: Kind, d: &mut [T], a: Src<'_, T>, b: Src<'_, T>) {
    match kind {
        Kind::Neg => map(d, a, |x| -x),
        // A constant that is an exact double uses the mixed operation.
        Kind::Add => match (a, b) {
            (Src::Col(_), Src::Small(c)) => map(d, a, |x| x + c),
            (Src::Small(c), Src::Col(_)) => map(d, b, |x| x + c),
            _ => map2(d, a, b, |x, y| x + y),
        },
        Kind::Sub => match (a, b) {
            (Src::Col(_), Src::Small(c)) => map(d, a, |x| x - c),
            _ => map2(d, a, b, |x, y| x - y),
        },
        Kind::Mul => match (a, b) {
            (Src::Col(_), Src::Small(c)) => map(d, a, |x| x * c),
            (Src::Small(c), Src::Col(_)) => map(d, b, |x| x * c),
            _ => map2(d, a, b, |x, y| x * y),
        },
        Kind::Div => match (a, b) {
            (Src::Col(_), Src::Small(c)) => map(d, a, |x| x / c),
            _ => map2(d, a, b, |x, y| x / y),
        },
        // The common small powers as straight-line code, in pow_int's order of operations.
        Kind::PowI(n) => match n {
            1 => map(d, a, |x| x),
            2 => map(d, a, |x| x * x),
            3 => map(d, a, |x| x * (x * x)),
            4 => map(d, a, |x| {
                let s = x * x;
                s * s
            }),
            -1 => map(d, a, |x| T::one() / x),
            -2 => map(d, a, |x| T::one() / (x * x)),
            n => map(d, a, |x| pow_int(x, n)),
        },
        Kind::Unary(f) => map_func!(
            f, d, a, Sqrt, Cbrt, Exp, ExpM1, Ln, Ln1p, Log2, Log10, Sin, Cos, Tan, Asin, Acos,
            Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Floor, Ceil, Round, Trunc, Abs
        ),
        Kind::Binary(f) => match f {
            Func2::Atan2 => map2(d, a, b, |x, y| Func2::Atan2.apply(x, y)),
            Func2::Hypot => map2(d, a, b, |x, y| Func2::Hypot.apply(x, y)),
            Func2::Min => map2(d, a, b, |x, y| Func2::Min.apply(x, y)),
            Func2::Max => map2(d, a, b, |x, y| Func2::Max.apply(x, y)),
            Func2::Pow => map2(d, a, b, |x, y| Func2::Pow.apply(x, y)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Expr;
    use crate::integrand::Integrand;

    #[test]
    fn registers_are_reused() {
        // A chain of independent squares needs only a couple of live columns at a time.
        let e = Expr::parse("((x^2+1)^2+1)^2+1", 1).unwrap();
        let plan = Plan::new(e.tape());
        assert!(plan.registers <= 2, "{plan:?}");
        assert!(plan.last_is_result);
    }

    #[test]
    fn batch_agrees_with_point_evaluation_across_chunks() {
        let e = Expr::parse("sin(3*x)*y - x/(1+y^2) + atan2(y, x)^-3", 2).unwrap();
        let n = 3000;
        let xs: Vec<f64> = (0..n).map(|i| 0.1 + i as f64 / n as f64).collect();
        let ys: Vec<f64> = (0..n).map(|i| 1.0 - i as f64 / (2 * n) as f64).collect();
        let mut out = vec![0.0; n];
        Integrand::eval_batch(&e, &[&xs, &ys], &mut out);
        for i in 0..n {
            assert_eq!(out[i], e.tape().eval_point(&[xs[i], ys[i]]), "point {i}");
        }
    }

    #[test]
    fn short_columns_give_nan() {
        let e = Expr::parse("x + y", 2).unwrap();
        let mut out = [0.0; 3];
        Integrand::eval_batch(&e, &[&[1.0, 2.0, 3.0], &[1.0]], &mut out);
        assert!(out.iter().all(|v| v.is_nan()));
    }
}
