//! The tape as CUDA: the body of `__device__ real_t integrand(real_t x)` for `double`, `dd_t`
//! or `qd_t`, one statement per instruction, spliced into `kernels/uniform_sum.cu` and
//! `kernels/evaluate.cu`. A function of several variables is the body of
//! `integrand(const real_t *x)`, coordinate `d` read as `x[d]`.
//!
//! What keeps the device's values the host's:
//! - every slot that depends on no variable is folded on the host **in the working precision**
//!   (exactly as the CPU evaluator folds it) and emitted as its exact limbs, written as
//!   hex-float literals, so that `0.1` or `pi/3` in qd is the same 212-bit value on both sides;
//! - `x^n` is unrolled in [`pow_int`](super::pow_int)'s order of operations;
//! - `+ - * /` and `sqrt` are the operators of `kernels/dd.cuh` and `qd.cuh`, which mirror
//!   `precision/` bit for bit; the other functions call the device mirrors of
//!   `kernels/exp_log.cuh`, `trig.cuh`, ... through the one name table [`device_name`].
//!
//! For `f64`, the transcendental functions are CUDA's own (libdevice) and may differ from the
//! host's `std` (the platform libm) in the last bit; `+ - * / sqrt` are IEEE and match.

use std::fmt::Write;

use precision::Real;

use super::tape::{Func, Func2, Op, Tape};

/// The integrand as CUDA source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaIntegrand {
    /// The body of `__device__ real_t integrand(real_t x)`, or of
    /// `integrand(const real_t *x)` when `dims > 1`.
    pub body: String,
    /// The number of variables (at least 1: a constant is a function of one).
    pub dims: usize,
    /// Whether the body calls the elementary-function mirrors, whose headers and tables must be
    /// compiled with it (a rational integrand compiles much faster without them).
    pub needs_functions: bool,
}

/// Why a tape cannot become CUDA.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodegenError {
    /// More variables than the point-list kernel takes.
    #[error(
        "the GPU kernels take functions of at most {MAX_DIMS} variables; this expression has {0}"
    )]
    Dimensions(usize),
}

/// The most variables a generated integrand may have: each thread holds its point in
/// registers, and 64 qd coordinates are already 2 KiB.
pub const MAX_DIMS: usize = 64;

/// The device function each one-argument function calls. The elementary functions are named as
/// the mirror headers name them (`hpq_` + the host method's name); `kernels/integrand.cuh`
/// gives each name a `double` overload (libdevice) and the rounding functions for every type.
pub fn device_name(f: Func) -> &'static str {
    match f {
        // IEEE on double, dd_sqrt / qd_sqrt through the overloads of dd.cuh and qd.cuh.
        Func::Sqrt => "sqrt",
        Func::Cbrt => "hpq_cbrt",
        Func::Exp => "hpq_exp",
        Func::ExpM1 => "hpq_exp_m1",
        Func::Ln => "hpq_ln",
        Func::Ln1p => "hpq_ln_1p",
        Func::Log2 => "hpq_log2",
        Func::Log10 => "hpq_log10",
        Func::Sin => "hpq_sin",
        Func::Cos => "hpq_cos",
        Func::Tan => "hpq_tan",
        Func::Asin => "hpq_asin",
        Func::Acos => "hpq_acos",
        Func::Atan => "hpq_atan",
        Func::Sinh => "hpq_sinh",
        Func::Cosh => "hpq_cosh",
        Func::Tanh => "hpq_tanh",
        Func::Asinh => "hpq_asinh",
        Func::Acosh => "hpq_acosh",
        Func::Atanh => "hpq_atanh",
        Func::Floor => "hpq_floor",
        Func::Ceil => "hpq_ceil",
        Func::Round => "hpq_round",
        Func::Trunc => "hpq_trunc",
        Func::Abs => "hpq_abs",
    }
}

/// The device function of each two-argument function, as [`device_name`].
pub fn device_name2(f: Func2) -> &'static str {
    match f {
        Func2::Atan2 => "hpq_atan2",
        Func2::Hypot => "hpq_hypot",
        Func2::Min => "hpq_min",
        Func2::Max => "hpq_max",
        Func2::Pow => "hpq_powf",
    }
}

/// The one-argument functions with an element-wise kernel in `kernels/functions.cu`
/// (the GPU backend's `Gpu::function`): the elementary functions whose `dd_t` and
/// `qd_t` mirrors live in `kernels/exp_log.cuh`, `trig.cuh`, ..., in the order the agreement
/// tests (`tests/gpu_functions.rs`) report them.
pub const MIRRORED: &[Func] = &[
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
    Func::Cbrt,
];

/// The two-argument functions with an element-wise kernel
/// (the GPU backend's `Gpu::function2`), as [`MIRRORED`].
pub const MIRRORED2: &[Func2] = &[Func2::Pow, Func2::Atan2, Func2::Hypot];

/// The name of a function of [`MIRRORED`]: the host method's (`exp_m1`, `ln_1p`), which is its
/// [`device_name`] without `hpq_` and the suffix of its kernels (`fn_dd_exp_m1`). `None` for a
/// function without an element-wise kernel.
pub fn mirror_name(f: Func) -> Option<&'static str> {
    MIRRORED
        .contains(&f)
        .then(|| device_name(f).strip_prefix("hpq_"))
        .flatten()
}

/// The name of a function of [`MIRRORED2`] (`powf`, `atan2`, `hypot`), as [`mirror_name`].
pub fn mirror_name2(f: Func2) -> Option<&'static str> {
    MIRRORED2
        .contains(&f)
        .then(|| device_name2(f).strip_prefix("hpq_"))
        .flatten()
}

/// A double as a C literal that the compiler reads back exactly: a hex float for finite values,
/// the bit pattern for infinities and NaN.
pub fn f64_literal(x: f64) -> String {
    if !x.is_finite() {
        return format!("__longlong_as_double(0x{:016x}LL)", x.to_bits());
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let mantissa = bits & ((1u64 << 52) - 1);
    // Normal numbers are 1.m * 2^(e-1023), subnormals 0.m * 2^-1022.
    let (lead, exp) = if exponent == 0 {
        (0, -1022)
    } else {
        (1, exponent - 1023)
    };
    format!("{sign}0x{lead}.{mantissa:013x}p{exp:+}")
}

/// A value of `T` as a `real_t` expression built from its exact limbs.
pub fn literal<T: Real>(value: T) -> String {
    let parts: Vec<String> = value.limbs()[..T::LIMBS]
        .iter()
        .map(|&limb| f64_literal(limb))
        .collect();
    match T::LIMBS {
        1 => parts.join(""),
        2 => format!("dd_make({})", parts.join(", ")),
        _ => format!("qd_make({})", parts.join(", ")),
    }
}

/// The CUDA body of the integrand for precision `T`.
///
/// ```
/// use hpquad::expr::{cuda, Expr};
///
/// let e = Expr::parse("x^3 + 0.5", 1)?;
/// let code = cuda::integrand::<f64>(e.tape())?;
/// assert!(code.body.contains("const real_t s1 = s0 * (s0 * s0);"));
/// assert!(code.body.contains("0x1.0000000000000p-1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn integrand<T: Real>(tape: &Tape) -> Result<CudaIntegrand, CodegenError> {
    if tape.dims() > MAX_DIMS {
        return Err(CodegenError::Dimensions(tape.dims()));
    }
    let dims = tape.dims().max(1);
    let folded = tape.fold_constants::<T>();
    let ops = tape.ops();
    // A constant slot is emitted only where a variable slot (or the result) reads it.
    let mut emit_constant = vec![false; ops.len()];
    if let Some(e) = emit_constant.get_mut(tape.result().index()) {
        *e = tape.is_constant(tape.result());
    }
    for (k, op) in ops.iter().enumerate() {
        if !tape.is_constant(super::Slot(k as u32)) {
            for s in op.operands() {
                emit_constant[s.index()] = true;
            }
        }
    }
    // A constant that is an exact double enters + - * / as a double, through the mixed
    // operations (`dd_t * double`), where the CPU evaluator uses them too: they round
    // differently from the full operation, and the device must give the host's bits.
    let small = |s: super::Slot| -> Option<String> {
        let limbs = folded.get(s.index())?.limbs();
        let exact =
            <T as Real>::LIMBS > 1 && tape.is_constant(s) && limbs[1..].iter().all(|&l| l == 0.0);
        exact.then(|| format!("({})", f64_literal(limbs[0])))
    };
    let mut body = String::new();
    let mut needs_functions = false;
    for (k, op) in ops.iter().enumerate() {
        let slot = super::Slot(k as u32);
        if tape.is_constant(slot) {
            if emit_constant[k] {
                let _ = writeln!(body, "const real_t s{k} = {};", literal(folded[k]));
            }
            continue;
        }
        let rhs = match *op {
            Op::Var(_) if dims == 1 => "x".to_string(),
            Op::Var(d) => format!("x[{d}]"),
            Op::Const(_) => unreachable_constant(),
            Op::Neg(a) => format!("-s{}", a.0),
            // The same cases as the evaluator's `run` (src/expr/eval.rs).
            Op::Add(a, b) | Op::Mul(a, b) => {
                let sign = if matches!(op, Op::Add(..)) { '+' } else { '*' };
                match (small(a), small(b)) {
                    (None, Some(c)) => format!("s{} {sign} {c}", a.0),
                    (Some(c), None) => format!("s{} {sign} {c}", b.0),
                    _ => format!("s{} {sign} s{}", a.0, b.0),
                }
            }
            Op::Sub(a, b) | Op::Div(a, b) => {
                let sign = if matches!(op, Op::Sub(..)) { '-' } else { '/' };
                match small(b) {
                    Some(c) => format!("s{} {sign} {c}", a.0),
                    None => format!("s{} {sign} s{}", a.0, b.0),
                }
            }
            Op::PowI(a, n) => pow_int_expr::<T>(&mut body, k, &format!("s{}", a.0), n),
            Op::Unary(f, a) => {
                needs_functions |= f != Func::Sqrt;
                format!("{}(s{})", device_name(f), a.0)
            }
            Op::Binary(f, a, b) => {
                needs_functions = true;
                format!("{}(s{}, s{})", device_name2(f), a.0, b.0)
            }
        };
        let _ = writeln!(body, "const real_t s{k} = {rhs};");
    }
    let _ = write!(body, "return s{};", tape.result().0);
    Ok(CudaIntegrand {
        body,
        dims,
        needs_functions,
    })
}

/// `Const` is always a constant slot, folded above; the match arm cannot be reached.
fn unreachable_constant() -> String {
    "0.0".to_string()
}

/// `x^n` in the order of operations of [`pow_int`](super::pow_int): binary powering from the
/// lowest bit, `acc * base` when a bit is set, `base * base` between bits, and `1 / p` for a
/// negative exponent. Small powers are one expression; from |n| = 16 on, each square and each
/// partial product is a statement of its own (named after `slot`) written to `body`, because
/// the expression doubles in length with every bit (x^-80000000 would be 2^27 terms).
fn pow_int_expr<T: Real>(body: &mut String, slot: usize, x: &str, n: i32) -> String {
    let one = literal(T::one());
    if n == 0 {
        return one;
    }
    let mut k = n.unsigned_abs();
    let statements = k >= 16;
    let mut name = |what: &str, step: u32, value: String| -> String {
        if statements {
            let name = format!("s{slot}_{what}{step}");
            let _ = writeln!(body, "const real_t {name} = {value};");
            name
        } else {
            value
        }
    };
    let mut base = x.to_string();
    let mut acc: Option<String> = None;
    let mut step = 0;
    loop {
        if k & 1 == 1 {
            acc = Some(match acc {
                None => base.clone(),
                Some(a) => name("p", step, format!("{a} * {}", paren(&base))),
            });
        }
        k >>= 1;
        if k == 0 {
            break;
        }
        step += 1;
        base = name("b", step, format!("{} * {}", paren(&base), paren(&base)));
    }
    let p = acc.unwrap_or(base);
    if n < 0 {
        format!("{one} / {}", paren(&p))
    } else {
        p
    }
}

/// Parenthesises a product so that `a * (b * c)` keeps its grouping.
fn paren(e: &str) -> String {
    if e.contains(' ') {
        format!("({e})")
    } else {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Expr;
    use precision::{Dd, Qd};

    fn body<T: Real>(src: &str) -> CudaIntegrand {
        integrand::<T>(Expr::parse(src, 1).unwrap().tape()).unwrap()
    }

    #[test]
    fn hex_literals_are_exact() {
        assert_eq!(f64_literal(1.0), "0x1.0000000000000p+0");
        assert_eq!(f64_literal(-0.5), "-0x1.0000000000000p-1");
        assert_eq!(f64_literal(0.1), "0x1.999999999999ap-4");
        assert_eq!(
            f64_literal(f64::MIN_POSITIVE / 4.0),
            "0x0.4000000000000p-1022"
        );
        assert_eq!(f64_literal(-0.0), "-0.0");
        assert_eq!(
            f64_literal(f64::INFINITY),
            "__longlong_as_double(0x7ff0000000000000LL)"
        );
    }

    #[test]
    fn exact_double_constants_use_the_mixed_operations() {
        // As the CPU evaluator does: `x * 3` is dd_t * double, not dd_t * dd_t.
        let c = body::<Dd>("3*x + x/5 - 7 + 0.1*x").body;
        assert!(c.contains("s1 * (0x1.8000000000000p+1)"), "{c}");
        assert!(c.contains("s1 / (0x1.4000000000000p+2)"), "{c}");
        assert!(c.contains(" - (0x1.c000000000000p+2)"), "{c}");
        // 0.1 is not a double in dd: the full operation.
        assert!(!c.contains("0x1.999999999999ap-4)"), "{c}");
        // Nothing changes for f64, where every constant is a double.
        let f = body::<f64>("3*x").body;
        assert!(f.contains("s0 * s1"), "{f}");
    }

    #[test]
    fn constants_are_the_working_precision_limbs() {
        let c = body::<Qd>("x + 0.1").body;
        let tenth = Qd::parse_decimal("0.1").unwrap().components();
        let expected: Vec<String> = tenth.iter().map(|&l| f64_literal(l)).collect();
        assert!(
            c.contains(&format!("qd_make({})", expected.join(", "))),
            "{c}"
        );
        // The low limbs of 0.1 in qd are not zero: it is not the rounded double.
        assert!(tenth[1] != 0.0);
        let d = body::<Dd>("x * pi").body;
        let pi = Dd::pi().components();
        assert!(d.contains(&format!(
            "dd_make({}, {})",
            f64_literal(pi[0]),
            f64_literal(pi[1])
        )));
    }

    #[test]
    fn constant_subexpressions_fold_on_the_host() {
        // pi/3 is one folded literal, never a device division.
        let c = body::<Dd>("sin(pi/3 * x)").body;
        assert!(!c.contains(" / "), "{c}");
        let third = (Dd::pi() / Dd::from(3.0)).components();
        assert!(c.contains(&f64_literal(third[1])), "{c}");
    }

    #[test]
    fn integer_powers_follow_pow_int() {
        assert!(body::<f64>("x^3").body.contains("s0 * (s0 * s0)"));
        assert!(body::<f64>("x^4").body.contains("(s0 * s0) * (s0 * s0)"));
        let inv = body::<Dd>("x^-2").body;
        assert!(
            inv.contains("dd_make(0x1.0000000000000p+0, 0.0) / (s0 * s0)"),
            "{inv}"
        );
        // A large power: one statement a bit, in pow_int's order (x^19 = x * x^2 * x^16).
        let big = body::<f64>("x^-19").body;
        assert!(big.contains("const real_t s1_b1 = s0 * s0;"), "{big}");
        assert!(big.contains("const real_t s1_p1 = s0 * s1_b1;"), "{big}");
        assert!(big.contains("const real_t s1_b4 = s1_b3 * s1_b3;"), "{big}");
        assert!(big.contains("const real_t s1_p4 = s1_p1 * s1_b4;"), "{big}");
        assert!(
            big.contains("const real_t s1 = 0x1.0000000000000p+0 / s1_p4;"),
            "{big}"
        );
        let huge = body::<Qd>("x^-80000000").body;
        assert!(huge.len() < 10_000, "{} bytes", huge.len());
        // x^5 = x * x^4
        assert!(body::<f64>("x^5")
            .body
            .contains("s0 * ((s0 * s0) * (s0 * s0))"));
    }

    #[test]
    fn shape_of_the_pi_integrand() {
        let c = body::<Qd>("(16*x-16)/(x^4-2*x^3+4*x-4)");
        assert!(!c.needs_functions);
        assert!(c.body.ends_with(';'));
        assert!(c.body.contains("return s"));
        for line in c.body.lines() {
            assert!(line.starts_with("const real_t s") || line.starts_with("return s"));
        }
    }

    #[test]
    fn functions_use_the_name_table() {
        let c = body::<Dd>("sqrt(exp(cos(x^(x^x))))");
        assert!(c.needs_functions);
        for name in ["sqrt(", "hpq_exp(", "hpq_cos(", "hpq_powf("] {
            assert!(c.body.contains(name), "{name} in {}", c.body);
        }
        assert!(!body::<f64>("sqrt(x)").needs_functions);
        assert!(body::<f64>("min(x, 1)").body.contains("hpq_min("));
    }

    #[test]
    fn every_mirrored_function_has_its_kernels() {
        let functions_cu = include_str!("../../kernels/functions.cu");
        let names: Vec<&str> = MIRRORED
            .iter()
            .map(|&f| mirror_name(f).unwrap())
            .chain(MIRRORED2.iter().map(|&f| mirror_name2(f).unwrap()))
            .collect();
        assert_eq!(names[..3], ["exp", "exp_m1", "ln"]);
        for name in &names {
            assert!(
                functions_cu.contains(&format!("HPQ_ELEMENTWISE(fn_##TN##_{name}, ")),
                "no kernel for {name}"
            );
            assert!(
                functions_cu.contains(&format!(" f64_{name}(")),
                "no libdevice wrapper for {name}"
            );
        }
        // And no kernel outside the list.
        assert_eq!(
            functions_cu.matches("HPQ_ELEMENTWISE(fn_##TN##_").count(),
            names.len()
        );
        assert_eq!(mirror_name(Func::Floor), None);
        assert_eq!(mirror_name(Func::Sqrt), None);
        assert_eq!(mirror_name2(Func2::Min), None);
        assert_eq!(mirror_name2(Func2::Pow), Some("powf"));
    }

    #[test]
    fn constant_integrand_and_two_dimensions() {
        let c = body::<f64>("2");
        assert!(c.body.contains("return s0;"), "{}", c.body);
        let e = Expr::parse("x + y*y", 2).unwrap();
        let c = integrand::<f64>(e.tape()).unwrap();
        assert_eq!(c.dims, 2);
        assert!(
            c.body.contains("= x[0];") && c.body.contains("= x[1];"),
            "{}",
            c.body
        );
        let wide = Expr::parse("x65", 65).unwrap();
        assert_eq!(
            integrand::<f64>(wide.tape()),
            Err(CodegenError::Dimensions(65))
        );
    }
}
