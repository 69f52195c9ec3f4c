//! Batch evaluation of a tape: constants folded once per precision, then the varying
//! instructions run one at a time over a chunk of points, each as a tight loop over columns
//! (which the compiler vectorises for f64), with column buffers reused once their value dies.

use std::any::TypeId;
use std::sync::OnceLock;

use precision::lanes::{self, Columns, Isa};
use precision::{Dd, Qd, Real};

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
        self.folded_with(tape, |v| v)
    }

    /// [`Plan::constants`] as the instructions read them, in one allocation per call.
    fn scalars<T: Real>(&self, tape: &Tape) -> Vec<Scalar<T>> {
        self.folded_with(tape, Scalar::of)
    }

    /// `each` of the constants folded in `T`, from the cache where `T` has one.
    fn folded_with<T: Real, R>(&self, tape: &Tape, each: impl Fn(T) -> R) -> Vec<R> {
        let cache = match T::NAME {
            "f64" => &self.folded[0],
            "dd" => &self.folded[1],
            "qd" => &self.folded[2],
            _ => return tape.fold_constants::<T>().into_iter().map(each).collect(),
        };
        // Limbs round-trip exactly, so the cached values are the folded bits.
        cache
            .get_or_init(|| {
                tape.fold_constants::<T>()
                    .into_iter()
                    .map(T::limbs)
                    .collect()
            })
            .iter()
            .map(|l| each(T::from_limbs(l)))
            .collect()
    }

    /// Evaluates the tape at `out.len()` points given as columns. Missing or short columns
    /// (a caller's bug, not user input) give NaN everywhere rather than a panic.
    pub fn eval_batch<T: Real>(&self, tape: &Tape, points: &[&[T]], out: &mut [T]) {
        self.eval_batch_with(tape, points, out, lanes_enabled());
    }

    /// [`Plan::eval_batch`], with dd and qd's arithmetic in SIMD lanes or not (the same bits
    /// either way).
    fn eval_batch_with<T: Real>(&self, tape: &Tape, points: &[&[T]], out: &mut [T], lanes: bool) {
        let n = out.len();
        let nan = T::from_f64(f64::NAN);
        if points.len() < self.inputs || points[..self.inputs].iter().any(|c| c.len() < n) {
            out.fill(nan);
            return;
        }
        let scalars = self.scalars::<T>(tape);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU was just checked to have the features the function is built for.
            unsafe { self.chunks_avx2(points, out, &scalars, lanes) };
            return;
        }
        self.chunks(points, out, &scalars, lanes);
    }

    /// [`Plan::chunks`] compiled for AVX2 and FMA: the column loops run four doubles wide,
    /// and dd/qd's explicit fused multiply-adds become single instructions. Rust never fuses
    /// a separate multiply and add, so results are the same bits as the baseline build.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn chunks_avx2<T: Real>(
        &self,
        points: &[&[T]],
        out: &mut [T],
        scalars: &[Scalar<T>],
        lanes: bool,
    ) {
        self.chunks(points, out, scalars, lanes);
    }

    /// Runs the instructions chunk by chunk.
    #[inline(always)]
    fn chunks<T: Real>(&self, points: &[&[T]], out: &mut [T], scalars: &[Scalar<T>], lanes: bool) {
        let n = out.len();
        let chunk = (CHUNK_BYTES / (8 * T::LIMBS.max(1))).max(1);
        // The registers side by side in one buffer (one allocation per call, which counts in
        // calls of a few points): register r is regs[r * width..][..width].
        let width = chunk.min(n);
        let mut regs: Vec<T> = zeros(self.registers * width);

        let mut start = 0;
        while start < n {
            let end = (start + chunk).min(n);
            let len = end - start;
            let last = self.instrs.len().wrapping_sub(1);
            for (i, ins) in self.instrs.iter().enumerate() {
                // The destination never aliases an operand (see `Plan::new`), so the registers
                // below and above it can be read while it is written.
                let (below, rest) = regs.split_at_mut(ins.dst * width);
                let (buffer, above) = rest.split_at_mut(width);
                let others = Registers {
                    below,
                    above,
                    skipped: ins.dst,
                    width,
                };
                let dst: &mut [T] = if i == last && self.last_is_result {
                    &mut out[start..end]
                } else {
                    &mut buffer[..len]
                };
                let a = resolve(ins.a, &others, points, scalars, start..end);
                let b = resolve(ins.b, &others, points, scalars, start..end);
                if !(lanes && run_lanes(ins.kind, dst, a, b)) {
                    run(ins.kind, dst, a, b);
                }
            }
            if !self.last_is_result {
                let all = Registers {
                    below: &regs,
                    above: &[],
                    skipped: self.registers,
                    width,
                };
                let o = &mut out[start..end];
                match resolve(self.result, &all, points, scalars, start..end) {
                    Src::Col(c) => o.copy_from_slice(c),
                    Src::Scalar(v) => o.fill(v),
                    Src::Small(c) => o.fill(T::from_f64(c)),
                }
            }
            start = end;
        }
    }
}

/// `n` zeros of `T`, allocated through `malloc` and filled. Not `vec![T::zero(); n]`: for
/// f64 that becomes `calloc`, which in glibc bypasses the thread's cache of small blocks;
/// measured (callgrind), a call to auto over a 30-point rule spent 9% of its instructions in
/// the calloc of its few evaluation buffers.
pub(crate) fn zeros<T: Real>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.resize(n, T::zero());
    v
}

/// The registers other than the one being written: those below it and those above it.
struct Registers<'a, T> {
    below: &'a [T],
    above: &'a [T],
    /// The register left out (the destination).
    skipped: usize,
    width: usize,
}

impl<'a, T> Registers<'a, T> {
    /// The first `len` values of register `r` (never the skipped one: `Plan::new` gives no
    /// instruction its destination as an operand).
    #[inline]
    fn column(&self, r: usize, len: usize) -> &'a [T] {
        debug_assert_ne!(r, self.skipped, "an operand aliases its destination");
        if r < self.skipped {
            &self.below[r * self.width..][..len]
        } else {
            &self.above[(r - self.skipped - 1) * self.width..][..len]
        }
    }
}

/// The operand `o` for the points `range` of the batch.
#[inline]
fn resolve<'a, T: Real>(
    o: Operand,
    regs: &Registers<'a, T>,
    points: &[&'a [T]],
    scalars: &[Scalar<T>],
    range: std::ops::Range<usize>,
) -> Src<'a, T> {
    match o {
        Operand::Reg(r) => Src::Col(regs.column(r, range.len())),
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

/// Whether dd and qd arithmetic runs in SIMD lanes (the tape here, a uniform sum's points and
/// chunk sums in `cpu::lanes`): yes unless the environment variable `HPQUAD_NO_LANES` is set
/// (read once), which runs the scalar loops instead, to measure one against the other or to
/// rule the lanes out when chasing a discrepancy.
pub(crate) fn lanes_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os("HPQUAD_NO_LANES").is_none())
}

/// Runs the instruction through [`precision::lanes`] when `T` is `Dd` or `Qd` and the
/// instruction is one the lanes have (add, sub, mul, div, their forms with a double, x^2, 1/x,
/// sqrt, exp, expm1, sinh, cosh, tanh, ln, sin, cos, powf): the same bits as [`run`]'s loops,
/// several points per instruction. Returns whether it did.
#[inline(always)]
fn run_lanes<T: Real>(kind: Kind, d: &mut [T], a: Src<'_, T>, b: Src<'_, T>) -> bool {
    if TypeId::of::<T>() == TypeId::of::<Dd>() {
        // SAFETY: T is Dd.
        unsafe { columns::<Dd>(kind, cast(d), a.cast(), b.cast()) }
    } else if TypeId::of::<T>() == TypeId::of::<Qd>() {
        // SAFETY: T is Qd.
        unsafe { columns::<Qd>(kind, cast(d), a.cast(), b.cast()) }
    } else {
        false
    }
}

/// `d` as a slice of `U`.
///
/// # Safety
/// `T` and `U` must be the same type.
#[inline(always)]
unsafe fn cast<T, U>(d: &mut [T]) -> &mut [U] {
    std::slice::from_raw_parts_mut(d.as_mut_ptr().cast::<U>(), d.len())
}

impl<'a, T: Copy> Src<'a, T> {
    /// The operand as one of `U`.
    ///
    /// # Safety
    /// `T` and `U` must be the same type.
    #[inline(always)]
    unsafe fn cast<U: Copy>(self) -> Src<'a, U> {
        match self {
            Src::Col(c) => Src::Col(std::slice::from_raw_parts(c.as_ptr().cast::<U>(), c.len())),
            Src::Scalar(v) => Src::Scalar(std::ptr::from_ref(&v).cast::<U>().read()),
            Src::Small(c) => Src::Small(c),
        }
    }
}

/// The operand for the lanes (`None` for a small constant, which `full` never leaves).
#[inline(always)]
fn lane_operand<T: Real>(s: Src<'_, T>) -> Option<lanes::Operand<'_, T>> {
    match s.full() {
        Src::Col(c) => Some(lanes::Operand::Column(c)),
        Src::Scalar(v) => Some(lanes::Operand::Constant(v)),
        Src::Small(_) => None,
    }
}

/// [`run_lanes`] for `Dd` or `Qd`, each case choosing the operation `run` chooses.
#[inline(always)]
fn columns<X: Real + Columns>(kind: Kind, d: &mut [X], a: Src<'_, X>, b: Src<'_, X>) -> bool {
    let isa = Isa::best();
    let (Some(oa), Some(ob)) = (lane_operand(a), lane_operand(b)) else {
        return false;
    };
    match kind {
        Kind::Add => match (a, b) {
            (Src::Col(x), Src::Small(c)) | (Src::Small(c), Src::Col(x)) => {
                X::add_f64_cols(isa, d, x, c)
            }
            _ => X::add_cols(isa, d, oa, ob),
        },
        Kind::Sub => match (a, b) {
            // `x - c` is `x + (-c)` for dd and qd.
            (Src::Col(x), Src::Small(c)) => X::add_f64_cols(isa, d, x, -c),
            _ => X::sub_cols(isa, d, oa, ob),
        },
        Kind::Mul => match (a, b) {
            (Src::Col(x), Src::Small(c)) | (Src::Small(c), Src::Col(x)) => {
                X::mul_f64_cols(isa, d, x, c)
            }
            _ => X::mul_cols(isa, d, oa, ob),
        },
        Kind::Div => match (a, b) {
            (Src::Col(x), Src::Small(c)) => X::div_f64_cols(isa, d, x, c),
            _ => X::div_cols(isa, d, oa, ob),
        },
        Kind::PowI(2) => X::mul_cols(isa, d, oa, oa),
        Kind::PowI(-1) => X::div_cols(isa, d, lanes::Operand::Constant(X::one()), oa),
        Kind::Unary(Func::Sqrt) => match a {
            Src::Col(x) => X::sqrt_cols(isa, d, x),
            _ => return false,
        },
        Kind::Unary(Func::Exp) => match a {
            Src::Col(x) => X::exp_cols(isa, d, x),
            _ => return false,
        },
        Kind::Unary(f @ (Func::Ln | Func::Sin | Func::Cos)) => match a {
            Src::Col(x) => match f {
                Func::Ln => X::ln_cols(isa, d, x),
                Func::Sin => X::sin_cols(isa, d, x),
                _ => X::cos_cols(isa, d, x),
            },
            _ => return false,
        },
        Kind::Unary(f @ (Func::ExpM1 | Func::Sinh | Func::Cosh | Func::Tanh)) => match a {
            Src::Col(x) => match f {
                Func::ExpM1 => X::exp_m1_cols(isa, d, x),
                Func::Sinh => X::sinh_cols(isa, d, x),
                Func::Cosh => X::cosh_cols(isa, d, x),
                _ => X::tanh_cols(isa, d, x),
            },
            _ => return false,
        },
        Kind::Binary(Func2::Pow) => X::powf_cols(isa, d, oa, ob),
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Expr;

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
        e.eval_points(&[&xs, &ys], &mut out);
        for i in 0..n {
            assert_eq!(out[i], e.tape().eval_point(&[xs[i], ys[i]]), "point {i}");
        }
    }

    /// Every instruction the lanes run (add, sub, mul, div with columns, exact-double and
    /// full constants on either side, x^2, x^-1, sqrt) gives the scalar loops' bits in dd and
    /// qd, over random points of both signs and many magnitudes, across chunks.
    #[test]
    fn lanes_give_the_scalar_loops_bits() {
        use rand::{Rng, SeedableRng};
        let source = "sqrt(x*y + 1.5) / (x - y^2) + (x + 0.1)*3 - 2/y + (x/3.7 - y)^-1 \
                      + sqrt(x) - 0.5 + x/0.1 - pi*y + (y - x)/pi + 1/(x*x + y) + y^2 - 7*x \
                      + (pi - x)*(y + pi) + 4/(1 + x^2)";
        let e = Expr::parse(source, 2).unwrap();
        let kinds: Vec<Kind> = e.plan.instrs.iter().map(|i| i.kind).collect();
        for k in [
            Kind::Add,
            Kind::Sub,
            Kind::Mul,
            Kind::Div,
            Kind::PowI(2),
            Kind::PowI(-1),
        ] {
            assert!(kinds.contains(&k), "{k:?} missing from {kinds:?}");
        }
        assert!(kinds.contains(&Kind::Unary(Func::Sqrt)));
        let mut rng = rand::rngs::StdRng::seed_from_u64(16);
        let n = 3001;
        let mut draw = || {
            let m: f64 = rng.gen_range(-2.0..2.0);
            m * 2f64.powi(rng.gen_range(-40..40))
        };
        let xs: Vec<f64> = (0..n).map(|_| draw()).collect();
        let ys: Vec<f64> = (0..n).map(|_| draw()).collect();
        fn check<T: Real>(e: &Expr, xs: &[f64], ys: &[f64]) {
            let lanes = lanes_against_scalar::<T>(e, xs, ys, "");
            let finite = lanes.iter().filter(|v| v.limbs()[0].is_finite()).count();
            assert!(finite > xs.len() / 3, "{finite} finite values");
        }
        check::<Dd>(&e, &xs, &ys);
        check::<Qd>(&e, &xs, &ys);
    }

    /// Each of `integrands` (which must use one of the instructions `uses`) through the lanes
    /// and the scalar loops in dd and qd at the points (xs[i], ys[i]): the same bits.
    fn integrands_through_lanes(integrands: &[&str], uses: &[Kind], xs: &[f64], ys: &[f64]) {
        for source in integrands {
            let e = Expr::parse(source, 2).unwrap();
            let kinds: Vec<Kind> = e.plan.instrs.iter().map(|i| i.kind).collect();
            assert!(
                uses.iter().any(|k| kinds.contains(k)),
                "{source}: {kinds:?}"
            );
            lanes_against_scalar::<Dd>(&e, xs, ys, source);
            lanes_against_scalar::<Qd>(&e, xs, ys, source);
        }
    }

    /// `e` at the points (xs[i], ys[i]) in T (each with a component below the leading one, so
    /// that every limb is exercised) through the lanes and through the scalar loops, asserting
    /// the same bits at every point (NaN for NaN); the lanes' values.
    fn lanes_against_scalar<T: Real>(e: &Expr, xs: &[f64], ys: &[f64], source: &str) -> Vec<T> {
        let widen = |v: &[f64]| -> Vec<T> {
            v.iter()
                .map(|&x| T::from_f64(x) + T::from_f64(x * 1e-17) / 3.0)
                .collect()
        };
        let (x, y) = (widen(xs), widen(ys));
        let mut lanes = vec![T::zero(); xs.len()];
        let mut scalar = vec![T::zero(); xs.len()];
        e.plan
            .eval_batch_with(e.tape(), &[&x, &y], &mut lanes, true);
        e.plan
            .eval_batch_with(e.tape(), &[&x, &y], &mut scalar, false);
        for i in 0..xs.len() {
            let (l, s) = (lanes[i].limbs(), scalar[i].limbs());
            let same = l
                .iter()
                .zip(&s)
                .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()));
            assert!(
                same,
                "{source} in {} at point {i}: lanes {l:?}, scalar {s:?}",
                T::NAME
            );
        }
        lanes
    }

    /// Integrands of the test suite with exp (and two with cosh, expm1, sinh and tanh) give the
    /// scalar loops' bits in dd and qd, at random points of the unit square and beyond it, out to where exp overflows
    /// and underflows.
    #[test]
    fn lanes_give_the_scalar_loops_bits_through_exp() {
        use rand::{Rng, SeedableRng};
        let integrands = [
            "exp(-(x+y))",
            "exp(-(x^2+y^2))",
            "exp(-3*x)*cos(5*pi*x)",
            "exp(-625*((x - 0.5)^2 + (y - 0.5)^2))",
            "exp(-x)*sin(x+1) + sqrt(x)*log(2+x) + x^0.7 + pow(x, 1.5)",
            "exp(1-x)/sqrt(x)",
            "exp(2*x)*sin(3*x)",
            "exp(4*x)/sqrt(1+exp(4*x))",
            "exp(x - y) * cos(3*x + y) + y^3",
            "sqrt(exp(cos(x^(x^x))))",
            "exp(x*y) - exp(-y/x)",
            "cosh(3*x) - exp(y)*cosh(x*y)",
            "sinh(x) + tanh(2*x - y)*expm1(x*y) - expm1(-x/7)",
        ];
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let n = 2001;
        let mut draw = |wide: bool| {
            if wide {
                rng.gen_range(-800.0..800.0)
            } else {
                rng.gen_range(0.0..1.0)
            }
        };
        let xs: Vec<f64> = (0..n).map(|i| draw(i % 3 == 0)).collect();
        let ys: Vec<f64> = (0..n).map(|i| draw(i % 5 == 0)).collect();
        integrands_through_lanes(
            &integrands,
            &[
                Kind::Unary(Func::Exp),
                Kind::Unary(Func::Cosh),
                Kind::Unary(Func::ExpM1),
            ],
            &xs,
            &ys,
        );
    }

    /// Integrands with ln give the scalar loops' bits in dd and qd, at points of the unit
    /// square, near 1 (where ln takes its Newton path), across many magnitudes, and at
    /// negative points and zero (NaN and -inf).
    #[test]
    fn lanes_give_the_scalar_loops_bits_through_ln() {
        use rand::{Rng, SeedableRng};
        let integrands = [
            "log(x)",
            "log(1+x)",
            "log(x)/sqrt(x)",
            "x*log(x) + y*log(y)",
            "log(x)^2 - log(y)",
            "log(x*y)",
            "log(1 + x^2 + y^2)",
            "exp(-x)*sin(x+1) + sqrt(x)*log(2+x) + x^0.7 + pow(x, 1.5)",
            "log(x)*log(y)",
            "log(abs(x - y))",
            "exp(x*log(y))",
            "log(x)/(1 + x^2)",
            "log(1 - x*y/2) + log(x/(1+y))",
            "log(exp(x) + exp(y))",
            "sqrt(x)*log(1/x)",
        ];
        let mut rng = rand::rngs::StdRng::seed_from_u64(18);
        let n = 2001;
        let mut draw = |i: usize| match i % 4 {
            0 => rng.gen_range(0.0..1.0),
            1 => 1.0 + rng.gen_range(-1.0..1.0) * 2f64.powi(-rng.gen_range(1..60)),
            2 => rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-1000..1000)),
            _ => [0.0, -0.0, 1.0, 2.0, 0.5, -1.0][rng.gen_range(0..6)],
        };
        let xs: Vec<f64> = (0..n).map(|i| draw(i % 7)).collect();
        let ys: Vec<f64> = (0..n).map(|i| draw(i % 5)).collect();
        integrands_through_lanes(&integrands, &[Kind::Unary(Func::Ln)], &xs, &ys);
    }

    /// Integrands with sin and cos give the scalar loops' bits in dd and qd, at points of the
    /// unit square, near multiples of π/2 (where a result is tiny and the scalar functions take
    /// another path), at large arguments and at special values.
    #[test]
    fn lanes_give_the_scalar_loops_bits_through_sin_and_cos() {
        use rand::{Rng, SeedableRng};
        let integrands = [
            "sin(x)",
            "cos(x)",
            "exp(2*x)*sin(3*x)",
            "exp(-3*x)*cos(5*pi*x)",
            "sqrt(exp(cos(x^(x^x))))",
            "exp(x - y) * cos(3*x + y) + y^3",
            "sin(x)*cos(y)",
            "sin(x)/x",
            "cos(x1 + 2*x2)",
            "sin(pi*x)^2 + cos(pi*y)^2",
            "exp(-x)*sin(x+1) + sqrt(x)*log(2+x) + x^0.7 + pow(x, 1.5)",
            "cos(2*pi*x + y)",
            "sin(1/x)",
            "x*sin(10*x*y) - cos(x*y)",
            "sin(exp(x)) + cos(log(1 + y))",
        ];
        let mut rng = rand::rngs::StdRng::seed_from_u64(19);
        let n = 2001;
        let mut draw = |i: usize| match i % 4 {
            0 => rng.gen_range(0.0..1.0),
            1 => {
                let k = rng.gen_range(-20..20) as f64;
                k * std::f64::consts::FRAC_PI_2 + rng.gen_range(-1.0..1.0) * 1e-9
            }
            2 => rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-40..70)),
            _ => [0.0, -0.0, 1.0, f64::INFINITY, f64::NAN, 1e300][rng.gen_range(0..6)],
        };
        let xs: Vec<f64> = (0..n).map(|i| draw(i % 7)).collect();
        let ys: Vec<f64> = (0..n).map(|i| draw(i % 5)).collect();
        integrands_through_lanes(
            &integrands,
            &[Kind::Unary(Func::Sin), Kind::Unary(Func::Cos)],
            &xs,
            &ys,
        );
    }

    /// Integrands with powers (`powf`: x^y, x^c, c^y) give the scalar loops' bits in dd and qd,
    /// at points of the unit square, near 1, across many magnitudes (overflow and underflow),
    /// and at negative points, zeros and special values.
    #[test]
    fn lanes_give_the_scalar_loops_bits_through_powf() {
        use rand::{Rng, SeedableRng};
        let integrands = [
            "sqrt(exp(cos(x^(x^x))))",
            "x^(-x)",
            "x^2.5",
            "(1+x)^y",
            "x^y",
            "pow(x, 1.5) + x^0.7",
            "exp(-x)*sin(x+1) + sqrt(x)*log(2+x) + x^0.7 + pow(x, 1.5)",
            "x^x",
            "(x*y)^(1/3)",
            "2^(x*y)",
            "(1 + x^2)^(-1.5)",
            "y^(-0.5) + x^(y - 1)",
            "(1 - x)^(y + 0.25) * x^(0.5 - y)",
            "pow(1 + x/100, 100*y)",
            "abs(x - y)^0.3",
            "(x + 2)^(y^2)",
        ];
        let mut rng = rand::rngs::StdRng::seed_from_u64(20);
        let n = 2001;
        let mut draw = |i: usize| match i % 5 {
            0 | 1 => rng.gen_range(0.0..1.0),
            2 => 1.0 + rng.gen_range(-1.0..1.0) * 2f64.powi(-rng.gen_range(1..60)),
            3 => rng.gen_range(-1.0..1.0) * 2f64.powi(rng.gen_range(-100..100)),
            _ => [
                0.0,
                -0.0,
                1.0,
                2.0,
                -1.0,
                -2.5,
                f64::INFINITY,
                f64::NAN,
                200.0,
            ][rng.gen_range(0..9)],
        };
        let xs: Vec<f64> = (0..n).map(|i| draw(i % 7)).collect();
        let ys: Vec<f64> = (0..n).map(|i| draw(i % 5)).collect();
        integrands_through_lanes(&integrands, &[Kind::Binary(Func2::Pow)], &xs, &ys);
    }

    #[test]
    fn short_columns_give_nan() {
        let e = Expr::parse("x + y", 2).unwrap();
        let mut out = [0.0; 3];
        e.eval_points(&[&[1.0, 2.0, 3.0], &[1.0]], &mut out);
        assert!(out.iter().all(|v| v.is_nan()));
    }
}
