//! The integrand language against closed forms, its error reports, and robustness on garbage.

use hpquad::expr::{Expr, ExprError, Func, Op};
use hpquad::integrand::Integrand;
use hpquad::precision::Real;

/// Evaluates a 1-D expression at the points `xs` in `T` through the batch path.
fn eval1<T: Real>(source: &str, xs: &[T]) -> Vec<T> {
    let e = Expr::parse(source, 1).unwrap_or_else(|err| panic!("{err}"));
    let mut out = vec![T::zero(); xs.len()];
    e.eval_batch(&[xs], &mut out);
    out
}

fn constant(source: &str) -> f64 {
    Expr::parse(source, 0)
        .unwrap_or_else(|err| panic!("{err}"))
        .eval_constant::<f64>()
}

fn err(source: &str, dims: usize) -> ExprError {
    match Expr::parse(source, dims) {
        Ok(e) => panic!("{source:?} parsed: {:?}", e.tape()),
        Err(e) => e,
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

/// A grid over (0, 1] that avoids the poles and zeros of the examples.
fn grid(n: usize) -> Vec<f64> {
    (1..=n).map(|i| i as f64 / (n as f64 + 0.5)).collect()
}

#[test]
fn issue_examples_match_closed_forms_in_f64() {
    let xs = grid(101);
    type F = fn(f64) -> f64;
    let cases: [(&str, F); 4] = [
        ("(16*x - 16)/(x^4 - 2*x^3 + 4*x - 4)", |x| {
            (16.0 * x - 16.0) / (x.powi(4) - 2.0 * x.powi(3) + 4.0 * x - 4.0)
        }),
        ("sqrt(exp(cos(x^(x^x))))", |x| {
            x.powf(x.powf(x)).cos().exp().sqrt()
        }),
        ("exp(2*x)*sin(3*x)", |x| (2.0 * x).exp() * (3.0 * x).sin()),
        ("sin(10*pi*x)/(pi*x)", |x| {
            (10.0 * std::f64::consts::PI * x).sin() / (std::f64::consts::PI * x)
        }),
    ];
    for (source, f) in cases {
        let got = eval1(source, &xs);
        for (&x, &y) in xs.iter().zip(&got) {
            assert!(close(y, f(x), 1e-14), "{source} at {x}: {y} vs {}", f(x));
        }
    }
}

#[test]
fn the_rational_example_integrates_to_pi() {
    // The integrand of the Romberg paper: its integral over [0, 1] is pi. A midpoint sum of
    // 2^16 points checks the whole batch path, chunk boundaries included.
    let n = 1 << 16;
    let xs: Vec<f64> = (0..n).map(|i| (i as f64 + 0.5) / n as f64).collect();
    let ys = eval1("(16*x-16)/(x^4-2*x^3+4*x-4)", &xs);
    let sum: f64 = ys.iter().sum::<f64>() / n as f64;
    assert!((sum - std::f64::consts::PI).abs() < 1e-9, "{sum}");
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(constant("2^3^2"), 512.0);
    assert_eq!(constant("(2^3)^2"), 64.0);
    assert_eq!(constant("-2^2"), -4.0);
    assert_eq!(constant("(-2)^2"), 4.0);
    assert_eq!(constant("2^-3"), 0.125);
    assert_eq!(constant("2**3"), 8.0);
    assert_eq!(constant("2*3+4"), 10.0);
    assert_eq!(constant("2+3*4"), 14.0);
    assert_eq!(constant("10-4-3"), 3.0);
    assert_eq!(constant("64/4/2"), 8.0);
    assert_eq!(constant("2*-3"), -6.0);
    assert_eq!(constant("2--3"), 5.0);
    assert_eq!(constant("+2"), 2.0);
    assert_eq!(constant("-2^-2"), -0.25);
    assert_eq!(constant("3*2^2"), 12.0);
    assert_eq!(constant("2^2*3"), 12.0);
    assert_eq!(constant(" ( ( 1 ) ) "), 1.0);
}

#[test]
fn functions_constants_and_aliases() {
    let x = 0.3f64;
    let checks: [(&str, f64); 18] = [
        ("ln(x)", x.ln()),
        ("log(x)", x.ln()),
        ("log2(x)", x.log2()),
        ("log10(x)", x.log10()),
        ("log1p(x)", x.ln_1p()),
        ("expm1(x)", x.exp_m1()),
        ("cbrt(x)", x.cbrt()),
        ("arcsin(x) + acos(x)", x.asin() + x.acos()),
        ("atan2(x, 2)", x.atan2(2.0)),
        ("hypot(x, 0.4)", x.hypot(0.4)),
        ("min(x, 0.2) + max(x, 0.2)", 0.2 + x),
        ("pow(x, 2.5)", x.powf(2.5)),
        ("pow(x, 3)", x * (x * x)),
        (
            "abs(-x) + floor(x+1) + ceil(x) + round(x) + trunc(-x)",
            x + 1.0 + 1.0,
        ),
        (
            "tanh(x) * cosh(x) - sinh(x)",
            x.tanh() * x.cosh() - x.sinh(),
        ),
        (
            "asinh(x) + acosh(1+x) + atanh(x)",
            x.asinh() + (1.0 + x).acosh() + x.atanh(),
        ),
        ("e^x", x.exp()),
        (
            "tan(x) - sin(x)/cos(x) + pi - e",
            x.tan() - x.sin() / x.cos() + std::f64::consts::PI - std::f64::consts::E,
        ),
    ];
    for (source, want) in checks {
        let got = eval1(source, &[x])[0];
        assert!(close(got, want, 1e-15), "{source}: {got} vs {want}");
    }
}

#[test]
fn integer_exponents_are_repeated_multiplication() {
    let e = Expr::parse("x^3 + x^-2 + x^(2) + x^2.0 + pow(x, -1) + x^2.5", 1).unwrap();
    let ops = e.tape().ops();
    let powi: Vec<i32> = ops
        .iter()
        .filter_map(|op| match op {
            Op::PowI(_, n) => Some(*n),
            _ => None,
        })
        .collect();
    assert_eq!(powi, [3, -2, 2, -1]);
    assert!(ops
        .iter()
        .any(|op| matches!(op, Op::Binary(hpquad::expr::Func2::Pow, _, _))));
    // 3^20 is exact through multiplication; powf would go through exp and ln.
    assert_eq!(constant("3^20"), 3486784401.0);
    assert_eq!(eval1("x^-2", &[4.0f64])[0], 0.0625);
}

#[test]
fn e_to_a_power_is_exp() {
    let e = Expr::parse("e^(2*x)", 1).unwrap();
    assert!(e
        .tape()
        .ops()
        .iter()
        .any(|op| matches!(op, Op::Unary(Func::Exp, _))));
}

#[test]
fn common_subexpressions_are_shared() {
    let e = Expr::parse("sin(x)*sin(x) + cos(x)*cos(x)", 1).unwrap();
    let sines = e
        .tape()
        .ops()
        .iter()
        .filter(|op| matches!(op, Op::Unary(Func::Sin, _)))
        .count();
    assert_eq!(sines, 1);
    let got = eval1("sin(x)*sin(x) + cos(x)*cos(x)", &[0.7f64])[0];
    assert!((got - 1.0).abs() < 1e-15);
}

#[test]
fn n_dimensional_variables() {
    let e = Expr::parse("x1 + 2*x2 + 3*x3 + 4*x4 + 5*x5", 5).unwrap();
    let cols: Vec<Vec<f64>> = (0..5).map(|d| vec![10f64.powi(d); 3]).collect();
    let refs: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
    let mut out = [0.0; 3];
    e.eval_batch(&refs, &mut out);
    assert_eq!(out, [54321.0; 3]);
    assert_eq!(e.dims(), 5);

    // x, y, z are x1, x2, x3 for up to three dimensions.
    let e = Expr::parse("x*y - x1*x2 + z - x3", 3).unwrap();
    let mut out = [1.0; 2];
    e.eval_batch(&[&[1.5, 2.0], &[3.0, 4.0], &[5.0, 6.0]], &mut out);
    assert_eq!(out, [0.0, 0.0]);

    // An expression may use fewer variables than the domain has.
    let e = Expr::parse("y^2", 2).unwrap();
    let mut out = [0.0; 1];
    e.eval_batch(&[&[7.0], &[3.0]], &mut out);
    assert_eq!(out, [9.0]);
}

#[test]
fn eval_constant_folds_and_reports_non_finite_values() {
    assert_eq!(constant("pi/2"), std::f64::consts::FRAC_PI_2);
    assert_eq!(constant("10*pi"), 10.0 * std::f64::consts::PI);
    assert_eq!(constant("1/0"), f64::INFINITY);
    assert!(constant("sqrt(-1)").is_nan());
    assert_eq!(constant("0.1"), 0.1);
    // A constant expression parsed for a domain still folds; one using a variable does not.
    assert_eq!(
        Expr::parse("e", 2).unwrap().eval_constant::<f64>(),
        std::f64::consts::E
    );
    assert!(Expr::parse("x", 1).unwrap().eval_constant::<f64>().is_nan());
}

#[test]
fn constant_integrands_fill_the_batch() {
    let e = Expr::parse("2^-3", 1).unwrap();
    let mut out = [0.0; 5];
    e.eval_batch(&[&[1.0, 2.0, 3.0, 4.0, 5.0]], &mut out);
    assert_eq!(out, [0.125; 5]);
    let ys = eval1("x", &[1.0f64, 2.0]);
    assert_eq!(ys, [1.0, 2.0]);
}

#[test]
fn source_and_display() {
    let e = Expr::parse("x^2", 1).unwrap();
    assert_eq!(e.source(), "x^2");
    assert!(format!("{e:?}").contains("PowI"));
}

/// Checks an error's column, message and the caret line of its report.
fn check_error(source: &str, dims: usize, column: usize, message: &str) {
    let e = err(source, dims);
    assert_eq!(e.message(), message, "for {source:?}");
    assert_eq!(e.column(), column, "for {source:?}");
    let report = e.to_string();
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 3, "{report}");
    assert_eq!(lines[0], message);
    assert_eq!(lines[1], format!("  {source}"));
    assert_eq!(
        lines[2],
        format!("  {}^", " ".repeat(column - 1)),
        "{report}"
    );
}

#[test]
fn unknown_names() {
    check_error(
        "sine(x)",
        1,
        1,
        "unknown function 'sine' at column 1; did you mean 'sin'?",
    );
    check_error(
        "2*cso(x)",
        1,
        3,
        "unknown function 'cso' at column 3; did you mean 'cos'?",
    );
    let e = err("frobnicate(x)", 1);
    assert!(
        e.message().contains("the functions are sqrt, cbrt, exp"),
        "{e}"
    );
    assert!(e.message().contains("atan2, hypot, min, max, pow"), "{e}");
    check_error(
        "x + Pi",
        1,
        5,
        "unknown name 'Pi' at column 5; did you mean 'pi'?",
    );
    let e = err("x + t", 1);
    assert_eq!(e.column(), 5);
    assert!(
        e.message()
            .starts_with("unknown name 't' at column 5; valid names are the variables x (or x1), the constants pi and e, and the functions sqrt"),
        "{e}"
    );
    check_error(
        "sin x",
        1,
        1,
        "function 'sin' needs its arguments in parentheses at column 1; write sin(...)",
    );
    check_error(
        "x(x+1)",
        1,
        1,
        "'x' is not a function at column 1; write x*(...) to multiply",
    );
}

#[test]
fn variables_beyond_the_domain() {
    check_error(
        "x + y",
        1,
        5,
        "variable 'y' needs a 2-dimensional domain at column 5; this integral is 1-dimensional: use x (or x1)",
    );
    check_error(
        "x4*2",
        3,
        1,
        "variable 'x4' needs a 4-dimensional domain at column 1; this integral is 3-dimensional: use x, y, z (or x1, x2, x3)",
    );
    check_error(
        "x1 + y",
        4,
        6,
        "variable 'y' is not available in a 4-dimensional domain at column 6; x, y, z name the coordinates of domains of up to 3 dimensions; use x1..x4",
    );
    check_error(
        "1 + x",
        0,
        5,
        "variable 'x' needs a 1-dimensional domain at column 5; this expression is a constant: it can use no variables",
    );
}

#[test]
fn wrong_number_of_arguments() {
    check_error(
        "atan2(x)",
        1,
        1,
        "function 'atan2' takes 2 arguments but was given 1 at column 1; write atan2(y, x)",
    );
    check_error(
        "1+sin(x, 2)",
        1,
        3,
        "function 'sin' takes 1 argument but was given 2 at column 3; write sin(x)",
    );
    check_error(
        "sqrt()",
        1,
        1,
        "function 'sqrt' takes 1 argument but was given 0 at column 1; write sqrt(x)",
    );
}

#[test]
fn unbalanced_parentheses() {
    check_error(
        "(x + 1",
        1,
        1,
        "unclosed '(' at column 1; add ')' to close it",
    );
    check_error(
        "sin(x + cos(x)",
        1,
        4,
        "unclosed '(' of 'sin' at column 4; add ')' to close it",
    );
    check_error("x + 1)", 1, 6, "unmatched ')' at column 6");
    check_error(")", 1, 1, "unmatched ')' at column 1");
    check_error(
        "()",
        1,
        1,
        "empty parentheses at column 1; write an expression between '(' and ')'",
    );
}

#[test]
fn empty_input_and_other_syntax_errors() {
    check_error(
        "",
        1,
        1,
        "empty expression at column 1; write a function such as x^2",
    );
    check_error(
        "   ",
        1,
        1,
        "empty expression at column 1; write a function such as x^2",
    );
    check_error(
        "1 +",
        1,
        4,
        "expected an operand, found the end of the expression at column 4",
    );
    check_error(
        "2 x",
        1,
        3,
        "expected an operator before 'x' at column 3; missing '*'?",
    );
    check_error(
        "2e",
        1,
        2,
        "expected an operator before 'e' at column 2; missing '*'?",
    );
    check_error("x # 2", 1, 3, "unexpected character '#' at column 3");
    check_error(
        "2 * π",
        1,
        5,
        "unexpected character 'π' at column 5; write pi",
    );
    check_error(
        "x * . ",
        1,
        5,
        "a lone '.' is not a number at column 5; write digits before or after it, as in 0.5",
    );
    check_error("max(x,)", 1, 7, "unmatched ')' at column 7");
    check_error(
        "x, 1",
        1,
        2,
        "unexpected ',' at column 2; commas separate the arguments of a function such as atan2(y, x)",
    );
    check_error(
        "x * * 2",
        1,
        5,
        "expected an operand, found '*' at column 5; an operand is a number, a variable, a constant, a function call or '('",
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}x{}", "(".repeat(100_000), ")".repeat(100_000));
    let e = err(&deep, 1);
    assert!(e
        .message()
        .starts_with("expression nested more than 100 levels deep"));
    let e = err(&"-".repeat(100_000), 1);
    assert!(e.message().starts_with("expression nested more than"));
    let e = err(&format!("x{}", "^x".repeat(100_000)), 1);
    assert!(e.message().starts_with("expression nested more than"));
    // Nesting within the limit is fine.
    assert_eq!(
        constant(&format!("{}1{}", "(".repeat(90), ")".repeat(90))),
        1.0
    );
}

#[test]
fn long_flat_expressions_parse_and_evaluate() {
    // Loops, not recursion: a hundred thousand terms cost no stack.
    let n = 100_000;
    let source = vec!["x"; n].join("+");
    assert_eq!(eval1(&source, &[1.0f64])[0], n as f64);
    let source = format!("x{}", "*1".repeat(n));
    assert_eq!(eval1(&source, &[3.0f64])[0], 3.0);
}

/// xorshift64*: a reproducible stream of garbage without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn garbage_never_panics() {
    const PIECES: [&str; 40] = [
        "x",
        "y",
        "z",
        "x1",
        "x9",
        "x0",
        "pi",
        "e",
        "sin",
        "atan2",
        "pow",
        "(",
        ")",
        "(",
        ")",
        ",",
        "+",
        "-",
        "*",
        "/",
        "^",
        "**",
        "0",
        "1",
        "0.1",
        ".",
        "1e",
        "1e-3",
        "2.5e+400",
        "99999999999",
        " ",
        "\t",
        "\n",
        "é",
        "π",
        "#",
        "€",
        "\u{0}",
        "sqrt(",
        "foo",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let xs = [0.25f64, 0.5, 2.0];
    let mut parsed = 0;
    for _ in 0..20_000 {
        let len = rng.below(12);
        let source: String = (0..len).map(|_| PIECES[rng.below(PIECES.len())]).collect();
        let dims = rng.below(5);
        match Expr::parse(&source, dims) {
            Ok(e) => {
                parsed += 1;
                let cols = vec![&xs[..]; dims];
                let mut out = [0.0; 3];
                e.eval_batch(&cols, &mut out);
                let _ = e.eval_constant::<f64>();
            }
            Err(e) => {
                assert!(
                    e.column() >= 1 && e.column() <= source.chars().count() + 1,
                    "{e}"
                );
                assert_eq!(e.to_string().lines().count(), 3, "{source:?}: {e}");
            }
        }
    }
    assert!(parsed > 100, "only {parsed} garbage strings parsed");

    // Random bytes too, as far as they are valid UTF-8.
    for _ in 0..5_000 {
        let bytes: Vec<u8> = (0..rng.below(20)).map(|_| rng.next() as u8).collect();
        let source = String::from_utf8_lossy(&bytes);
        let _ = Expr::parse(&source, rng.below(4));
    }
}

#[test]
fn literals_are_exact_decimals_in_f64() {
    // In f64 a literal is the nearest double; the dd and qd contract is tested with them.
    assert_eq!(eval1("0.1", &[0.0f64])[0], 0.1);
    assert_eq!(constant("1.5e-3"), 1.5e-3);
    assert_eq!(constant(".5"), 0.5);
}

/// dd and qd: exact literals, folding in the working precision, the batch path.
mod dd_qd {

    use hpquad::expr::Expr;
    use hpquad::integrand::Integrand;
    use hpquad::precision::{Dd, Qd, Real};

    fn eval1<T: Real>(source: &str, xs: &[T]) -> Vec<T> {
        let e = Expr::parse(source, 1).unwrap_or_else(|err| panic!("{err}"));
        let mut out = vec![T::zero(); xs.len()];
        e.eval_batch(&[xs], &mut out);
        out
    }

    #[test]
    fn literals_are_exact_in_the_working_precision() {
        let tenth_qd: Qd = Expr::parse("0.1", 0).unwrap().eval_constant();
        assert_eq!(tenth_qd, "0.1".parse::<Qd>().unwrap());
        assert_ne!(tenth_qd, Qd::from_f64(0.1));
        let tenth_dd: Dd = Expr::parse("0.1", 0).unwrap().eval_constant();
        assert_eq!(tenth_dd, "0.1".parse::<Dd>().unwrap());
        assert_ne!(tenth_dd, Dd::from_f64(0.1));
        // Through the batch path too, as an operand of a varying instruction.
        let x = [Qd::from_f64(1.0)];
        assert_eq!(eval1("x*0.1", &x)[0], "0.1".parse::<Qd>().unwrap());
        assert_eq!(
            eval1("x+0.1", &x)[0],
            Qd::ONE + "0.1".parse::<Qd>().unwrap()
        );
    }

    #[test]
    fn constants_fold_in_the_working_precision() {
        let ten_pi: Qd = Expr::parse("10*pi", 0).unwrap().eval_constant();
        assert_eq!(ten_pi, Qd::PI * 10.0);
        let half_pi: Dd = Expr::parse("pi/2", 0).unwrap().eval_constant();
        assert_eq!(half_pi, Dd::FRAC_PI_2);
        let third: Qd = Expr::parse("1/3", 0).unwrap().eval_constant();
        assert!((third * 3.0 - Qd::ONE).abs() < Qd::EPSILON * 4.0);
        assert_eq!(
            Expr::parse("2^-3", 0).unwrap().eval_constant::<Qd>(),
            Qd::from_f64(0.125)
        );
    }

    fn examples<T: Real>(tol: f64) {
        let xs: Vec<T> = (1..=33).map(|i| T::from_f64(i as f64 / 33.5)).collect();
        type F<T> = fn(T) -> T;
        let cases: [(&str, F<T>); 4] = [
            ("(16*x - 16)/(x^4 - 2*x^3 + 4*x - 4)", |x| {
                (x * 16.0 - 16.0) / (x.powi(4) - x.powi(3) * 2.0 + x * 4.0 - 4.0)
            }),
            ("sqrt(exp(cos(x^(x^x))))", |x| {
                x.powf(x.powf(x)).cos().exp().sqrt()
            }),
            ("exp(2*x)*sin(3*x)", |x| (x * 2.0).exp() * (x * 3.0).sin()),
            ("sin(10*pi*x)/(pi*x)", |x| {
                (T::pi() * 10.0 * x).sin() / (T::pi() * x)
            }),
        ];
        for (source, f) in cases {
            let got = eval1(source, &xs);
            for (&x, &y) in xs.iter().zip(&got) {
                let want = f(x);
                let err = ((y - want) / want).abs().to_f64();
                assert!(err < tol, "{} {source} at {x}: {y} vs {want}", T::NAME);
            }
        }
    }

    #[test]
    fn issue_examples_in_dd_and_qd() {
        examples::<Dd>(1e-29);
        examples::<Qd>(1e-59);
    }

    #[test]
    fn batch_agrees_with_point_evaluation_in_qd() {
        let e = Expr::parse("atan2(y, x) + hypot(x, y)^-2 - log1p(x*y)", 2).unwrap();
        let xs: Vec<Qd> = (0..700)
            .map(|i| Qd::from_f64(0.1 + i as f64 / 700.0))
            .collect();
        let ys: Vec<Qd> = (0..700)
            .map(|i| Qd::from_f64(1.5 - i as f64 / 900.0))
            .collect();
        let mut out = vec![Qd::ZERO; 700];
        e.eval_batch(&[&xs, &ys], &mut out);
        for i in 0..700 {
            let want = e.tape().eval_point(&[xs[i], ys[i]]);
            assert!(((out[i] - want) / want).abs().to_f64() < 1e-60, "point {i}");
        }
    }
}
