//! The `hpquad` command as a user runs it: its output checked against independent references
//! (published digits of π, MPFR), and its exit codes and messages on bad input.

use std::process::{Command, Output};

use rug::Float;

/// π to 100 decimal places, typed in from the published expansion.
const PI_100: &str = "3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679";

/// π from the typed-in digits, as an MPFR number.
fn pi() -> Float {
    Float::with_val(400, Float::parse(PI_100).expect("the literal parses"))
}

/// `x` correctly rounded to `digits` significant digits by MPFR (rug's precision counts
/// significant digits).
fn mpfr_rounded(x: &Float, digits: usize) -> String {
    format!("{:.*}", digits, x)
}

fn hpquad(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hpquad"))
        .args(args)
        .output()
        .expect("the hpquad binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Correct significant digits of a printed decimal against a reference, measured in MPFR:
/// `-log10(|printed - reference| / |reference|)`, 1000 when they are equal.
fn correct_digits(printed: &str, reference: &str) -> f64 {
    let parse = |s: &str| match Float::parse(s.trim()) {
        Ok(v) => Float::with_val(600, v),
        Err(_) => Float::with_val(600, f64::NAN),
    };
    let (p, r) = (parse(printed), parse(reference));
    let rel = Float::with_val(600, &p - &r).abs() / r.abs();
    if rel.is_zero() {
        1000.0
    } else {
        -rel.log10().to_f64()
    }
}

#[test]
fn pi_prints_sixty_correct_digits_in_qd() {
    let out = hpquad(&["pi"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("π ≈ "))
        .expect("a result line");
    let value = line.trim_start_matches("π ≈ ");
    assert_eq!(value, mpfr_rounded(&pi(), 60));
    // The diagonal is printed level by level, ending with the converged value.
    assert!(text.contains("Romberg integration of"));
    assert!(
        text.lines()
            .filter(|l| l.trim_start().starts_with(char::is_numeric))
            .count()
            >= 15
    );
}

#[test]
fn pi_in_lower_precisions() {
    for (precision, digits) in [("dd", 30), ("f64", 15)] {
        let out = hpquad(&["pi", "--precision", precision]);
        assert!(out.status.success(), "{precision}: {}", stderr(&out));
        let text = stdout(&out);
        let line = text
            .lines()
            .find(|l| l.starts_with("π ≈ "))
            .expect("a result line");
        assert_eq!(line.trim_start_matches("π ≈ "), mpfr_rounded(&pi(), digits));
    }
}

#[test]
fn pi_refuses_more_digits_than_the_precision_carries() {
    let out = hpquad(&["pi", "--precision", "dd", "--digits", "40"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("carries about 31 digits"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn eval_prints_e_to_62_digits() {
    let out = hpquad(&["eval", "exp(1)", "--precision", "qd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stdout(&out).trim().to_string();
    assert_eq!(printed, mpfr_rounded(&Float::with_val(400, 1).exp(), 62));
}

#[test]
fn integrate_agrees_with_closed_forms_in_each_precision() {
    // ∫₀^{π/2} sin = 1 and ∫₀¹ eˣ = e − 1, each method and precision.
    let e_minus_1 = format!("{:.70}", Float::with_val(400, 1).exp() - 1u32);
    for (precision, digits) in [("f64", 14.0), ("dd", 29.0), ("qd", 58.0)] {
        let out = hpquad(&[
            "integrate",
            "exp(x)",
            "--from",
            "0",
            "--to",
            "1",
            "-p",
            precision,
        ]);
        assert!(out.status.success(), "{precision}: {}", stderr(&out));
        let value = stdout(&out).lines().next().unwrap_or_default().to_string();
        assert!(
            correct_digits(&value, &e_minus_1) >= digits,
            "{precision}: {value}"
        );
    }
    for method in ["trapezoid", "richardson", "romberg"] {
        let out = hpquad(&[
            "integrate",
            "sin(x)",
            "--from",
            "0",
            "--to",
            "pi/2",
            "-m",
            method,
            "-p",
            "dd",
            "--intervals",
            "4096",
            "--json",
        ]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let value: f64 = json["value"]
            .as_str()
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN);
        let error = json["error_estimate"].as_f64().unwrap_or(f64::NAN);
        assert!(
            (value - 1.0).abs() <= error.max(1e-15),
            "{method}: {value} ± {error}"
        );
    }
}

#[test]
fn integrate_reports_bad_input_clearly() {
    let pole = hpquad(&[
        "integrate",
        "1/(x-0.5)",
        "--from",
        "0",
        "--to",
        "1",
        "-m",
        "romberg",
    ]);
    assert_eq!(pole.status.code(), Some(1));
    assert!(stderr(&pole).contains("x = 0.5"), "{}", stderr(&pole));

    let infinite = hpquad(&[
        "integrate",
        "exp(-x)",
        "--from",
        "0",
        "--to",
        "inf",
        "-m",
        "romberg",
    ]);
    assert_eq!(infinite.status.code(), Some(2));
    assert!(
        stderr(&infinite).contains("tanh-sinh"),
        "{}",
        stderr(&infinite)
    );

    let typo = hpquad(&["integrate", "sine(x)", "--from", "0", "--to", "1"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        stderr(&typo).contains("did you mean 'sin'"),
        "{}",
        stderr(&typo)
    );
    assert!(stderr(&typo).contains('^'));
}

#[test]
fn integrate_flags_an_unmet_tolerance() {
    let out = hpquad(&[
        "integrate",
        "exp(-x*x)",
        "--from",
        "0",
        "--to",
        "3",
        "-p",
        "qd",
        "-m",
        "romberg",
        "--max-levels",
        "6",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("not met"), "{}", stderr(&out));
    for method in ["auto", "tanh-sinh", "gauss-legendre", "gauss-kronrod"] {
        let out = hpquad(&[
            "integrate",
            "sqrt(x)*exp(-x*x)",
            "--from",
            "0",
            "--to",
            "3",
            "-p",
            "qd",
            "-m",
            method,
            "--max-evals",
            "40",
        ]);
        assert_eq!(out.status.code(), Some(3), "{method}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not met"),
            "{method}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn integrate_over_infinite_ranges_and_says_what_auto_chose() {
    // ∫₀^∞ e^(−x) dx = 1 (in dd cut at 88: Gauss–Legendre before, exp-sinh after) and
    // ∫ e^(−x²) dx over the real line = √π (sinh-sinh).
    let sqrt_pi = format!(
        "{:.70}",
        Float::with_val(400, rug::float::Constant::Pi).sqrt()
    );
    for (expression, from, to, exact, method) in [
        ("exp(-x)", "0", "inf", "1".to_string(), "gauss-legendre"),
        ("exp(-x*x)", "-inf", "inf", sqrt_pi, "tanh-sinh"),
    ] {
        let out = hpquad(&[
            "integrate",
            expression,
            "--from",
            from,
            "--to",
            to,
            "-p",
            "dd",
            "--json",
        ]);
        assert!(out.status.success(), "{expression}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let value = json["value"].as_str().unwrap_or_default();
        assert!(
            correct_digits(value, &exact) >= 29.0,
            "{expression}: {value}"
        );
        assert_eq!(json["method"], method, "{json}");
        assert!(
            json["reason"]
                .as_str()
                .unwrap_or_default()
                .contains("infinite"),
            "{json}"
        );
    }
}

#[test]
fn reversed_and_empty_intervals() {
    let forward = hpquad(&["integrate", "x^2", "--from", "0", "--to", "1", "-p", "dd"]);
    let backward = hpquad(&["integrate", "x^2", "--from", "1", "--to", "0", "-p", "dd"]);
    let f = stdout(&forward)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    let b = stdout(&backward)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert_eq!(format!("-{f}"), b);
    let empty = hpquad(&["integrate", "x^2", "--from", "2", "--to", "2"]);
    assert!(empty.status.success());
    assert_eq!(stdout(&empty).lines().next(), Some("0"));
}

/// `--device gpu` on a machine without a usable GPU: exit code 1 (the computation could not
/// run, not bad input) and a message that says what is missing, from `pi`, `integrate` and a
/// parameter sweep alike; on a machine with one, the same commands succeed.
#[test]
fn device_gpu_without_a_gpu_says_what_is_missing() {
    let commands: [&[&str]; 3] = [
        &["pi", "--device", "gpu", "-p", "f64"],
        &[
            "integrate",
            "x",
            "--from",
            "0",
            "--to",
            "1",
            "--device",
            "gpu",
        ],
        &[
            "integrate",
            "exp(-p*x)",
            "--from",
            "0",
            "--to",
            "1",
            "--param",
            "p=1:2:3",
            "--device",
            "gpu",
        ],
    ];
    let available = hpquad::gpu::is_available();
    for args in commands {
        let out = hpquad(args);
        if available {
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        } else {
            assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
            let message = stderr(&out);
            assert!(message.contains("GPU"), "{args:?}: {message}");
            assert!(
                message.contains("CUDA") || message.contains("NVRTC"),
                "{args:?}: {message}"
            );
        }
    }
}
