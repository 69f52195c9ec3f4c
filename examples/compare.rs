//! hpquad's side of the quadrature comparison (`bench/quadrature/`): each case of the suite in
//! f64, dd and qd on one CPU thread, one JSON line per case and precision.
//!
//! ```text
//! cargo run --release --example compare                                  # every case, f64/dd/qd
//! cargo run --release --example compare -- --case pi --precision qd --method tanh-sinh
//! cargo run --release --example compare -- --case pi --precision qd --once   # first call only
//! ```
//!
//! Timing: the first call, then the best of up to five more calls in the same process (cut
//! once they have taken 3 s together). `--once` makes the one call of a fresh process, which is
//! what a user of the `hpquad` command pays (thread pool, tables, first-touch). Digits are
//! counted against the suite's MPFR reference in quad-double (at most 63, and at most the
//! reference's trusted digits); the report recounts them at 130 digits for every library.

use std::error::Error;
use std::time::Instant;

use clap::Parser;
use hpquad::expr::Expr;
use hpquad::precision::Qd;
use hpquad::{Device, Estimate, Integral, Method, Precision};
use serde_json::{json, Value};

/// Command-line options.
#[derive(Parser)]
#[command(about = "hpquad on the quadrature comparison suite, one JSON line per run")]
struct Args {
    /// The suite file.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/quadrature/suite.json"))]
    suite: String,
    /// Only this case (by name); every case when absent.
    #[arg(long)]
    case: Option<String>,
    /// f64, dd or qd; all three when absent.
    #[arg(long)]
    precision: Option<String>,
    /// auto, romberg, tanh-sinh, gauss-legendre or gauss-kronrod.
    #[arg(long, default_value = "auto")]
    method: String,
    /// Relative tolerance (default: hpquad's own, 1000 units in the last place).
    #[arg(long)]
    tolerance: Option<f64>,
    /// One call only: the first call of a fresh process.
    #[arg(long)]
    once: bool,
}

/// Repetitions after the first call, and the time they may take together.
const REPEATS: u32 = 5;
const REPEAT_BUDGET_S: f64 = 3.0;

fn main() -> Result<(), Box<dyn Error>> {
    let args = Args::parse();
    let method = parse_method(&args.method)?;
    let precisions = match args.precision.as_deref() {
        None => vec![Precision::F64, Precision::Dd, Precision::Qd],
        Some(p) => vec![p
            .parse::<Precision>()
            .map_err(|e| format!("--precision: {e}"))?],
    };
    let text = std::fs::read_to_string(&args.suite).map_err(|e| format!("{}: {e}", args.suite))?;
    let suite: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", args.suite))?;
    let cases = suite["cases"]
        .as_array()
        .ok_or_else(|| format!("{}: no \"cases\" array", args.suite))?;
    let mut found = false;
    for case in cases {
        let name = case["name"].as_str().unwrap_or("");
        if args.case.as_deref().is_some_and(|c| c != name) {
            continue;
        }
        found = true;
        for &precision in &precisions {
            let line = run_case(case, precision, method, args.tolerance, args.once)
                .unwrap_or_else(|e| json!({ "failure": e.to_string() }));
            let mut line = line;
            line["case"] = json!(name);
            line["precision"] = json!(precision.to_string());
            line["method"] = json!(method.to_string());
            println!("{line}");
        }
    }
    if !found {
        return Err(format!("no case {:?} in {}", args.case, args.suite).into());
    }
    Ok(())
}

/// The method named on the command line.
fn parse_method(name: &str) -> Result<Method, String> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "auto" => Method::Auto,
        "romberg" => Method::Romberg,
        "tanh-sinh" | "tanhsinh" => Method::TanhSinh,
        "gauss-legendre" | "gausslegendre" => Method::GaussLegendre,
        "gauss-kronrod" | "gausskronrod" => Method::GaussKronrod,
        other => {
            return Err(format!(
                "--method {other}: use auto, romberg, tanh-sinh, gauss-legendre or gauss-kronrod"
            ))
        }
    })
}

/// One case in one precision: its JSON record.
fn run_case(
    case: &Value,
    precision: Precision,
    method: Method,
    tolerance: Option<f64>,
    once: bool,
) -> Result<Value, Box<dyn Error>> {
    let field = |key: &str| -> Result<&str, String> {
        case[key]
            .as_str()
            .ok_or_else(|| format!("a case without a string \"{key}\""))
    };
    let mut integral = Integral::new(field("hpquad")?)?
        .bounds(field("from")?, field("to")?)
        .method(method)
        .precision(precision)
        .device(Device::Cpu)
        .threads(1);
    if let Some(t) = tolerance {
        integral = integral.tolerance(t);
    }
    let start = Instant::now();
    let mut estimate = match integral.compute() {
        Ok(e) => e,
        Err(e) => {
            return Ok(json!({
                "failure": e.to_string(),
                "first_s": start.elapsed().as_secs_f64(),
            }))
        }
    };
    let first = start.elapsed().as_secs_f64();
    let (mut best, mut spent, mut reps) = (f64::INFINITY, 0.0, 0);
    while !once && reps < REPEATS && spent < REPEAT_BUDGET_S {
        let start = Instant::now();
        estimate = integral.compute()?;
        let t = start.elapsed().as_secs_f64();
        best = best.min(t);
        spent += t;
        reps += 1;
    }
    let trusted = case["trusted_digits"].as_f64().unwrap_or(0.0);
    let digits = digits(&estimate, field("reference")?, trusted)?;
    Ok(json!({
        "value": estimate.value.to_string(),
        "digits": digits,
        "evaluations": estimate.evaluations,
        "error": format!("{:e}", estimate.error),
        "converged": estimate.converged,
        "method_ran": estimate.method.to_string(),
        "first_s": first,
        "best_s": if reps > 0 { best } else { first },
        "reps": reps,
    }))
}

/// Correct digits of the estimate against the reference, counted in quad-double:
/// −log10 |v − r|/|r|, at most 63 and at most the reference's trusted digits.
fn digits(estimate: &Estimate, reference: &str, trusted: f64) -> Result<f64, Box<dyn Error>> {
    if !estimate.value.to_f64().is_finite() {
        return Ok(0.0);
    }
    let r: Qd = Expr::parse(reference, 0)?.eval_constant();
    let v: Qd = Expr::parse(&estimate.value.to_string(), 0)?.eval_constant();
    let cap = trusted.min(63.0);
    let relative = ((v - r) / r).abs().to_f64();
    Ok(if relative == 0.0 {
        cap
    } else {
        (-relative.log10()).clamp(0.0, cap)
    })
}
