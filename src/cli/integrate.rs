//! `hpquad integrate EXPR --from A --to B`: one integral, any method, precision and device.

use hpquad::methods::cuhre::{RuleChoice, Schedule};
use hpquad::methods::pbcaq::{IntervalRule, Scheme, DEFAULT_SEED};
use hpquad::{Device, Estimate, Integral, Method, Precision};

use super::pi::devices_used;
use super::progress::with_spinner;
use super::CliError;

/// Exit code of a result that did not meet its tolerance (it is still printed).
pub const NOT_CONVERGED: u8 = 3;

/// The methods selectable on the command line.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum MethodName {
    /// Chosen from the interval and a probe of the integrand (printed with the reason).
    Auto,
    /// Tanh-sinh; exp-sinh and sinh-sinh on infinite intervals.
    TanhSinh,
    /// Adaptive Gauss-Legendre.
    GaussLegendre,
    /// Adaptive Gauss-Kronrod (QUADPACK QAG style).
    GaussKronrod,
    /// Romberg extrapolation of the trapezoid rule.
    Romberg,
    /// Richardson extrapolation over --grids trapezoid grids.
    Richardson,
    /// The composite trapezoid rule on --intervals intervals.
    Trapezoid,
    /// Adaptive quadrature, queue-based divide and conquer on one thread (the baseline).
    Caq,
    /// Side-cutting adaptive quadrature, one interval a step, on one thread.
    Scaq,
    /// Block-cutting adaptive quadrature (PBCAQ's steps) on one thread.
    Bcaq,
    /// Side-cutting adaptive quadrature, a region of intervals a step, on all threads.
    Pscaq,
    /// Parallel block-cutting adaptive quadrature (Kern-Alaghband), on all threads.
    Pbcaq,
    /// PBCAQ with the expansion step on a coin flip seeded by --seed (reproducible).
    PbcaqR,
    /// PBCAQ with the expansion step when the errors fall across the region.
    PbcaqS,
    /// PBCAQ with the expansion step when ln(tolerance / error) leaves room for it.
    PbcaqG,
    /// n-D adaptive cubature (CUHRE, degree-7 or degree-9 rule), one region split at a time on one
    /// thread (the baseline).
    Cuhre,
    /// n-D adaptive cubature (CUHRE), a batch of the worst regions split a round, evaluated on
    /// all threads.
    CuhreParallel,
    /// n-D adaptive cubature with products of Gauss-Legendre rules (m^n points a region): smooth
    /// integrands of a few variables to the full accuracy of dd and qd, on all threads or the
    /// GPU.
    GaussProduct,
}

/// The rule pair on each interval of the adaptive family (caq ... pbcaq-g).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum RuleName {
    /// A Gauss-Kronrod pair whose order fits the precision (G10-K21 in f64, G20-K41 in dd and qd).
    GaussKronrod,
    /// Trapezoid against Simpson, as in the paper (cannot reach dd or qd accuracy).
    TrapezoidSimpson,
}

/// Options of `hpquad integrate`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit codes: 0 converged, 1 failed, 2 bad input, 3 not converged \
                        (the estimate and its error are still printed)."
)]
pub struct IntegrateArgs {
    /// The integrand in x, e.g. "exp(2*x)*sin(3*x)"; in x1..xn (or x, y, z) over a box.
    pub expression: String,
    /// Lower bound, parsed in the working precision ("0", "pi/4", "1e-6", "-inf"); for a box,
    /// one per axis separated by commas ("0,0,0").
    #[arg(long, allow_hyphen_values = true)]
    pub from: String,
    /// Upper bound, parsed in the working precision ("inf" for an infinite range); for a box,
    /// one per axis ("1,1,1").
    #[arg(long, allow_hyphen_values = true)]
    pub to: String,
    /// The number of variables: with one --from and one --to, the hypercube of that many axes
    /// [default: the number of bounds given].
    #[arg(long)]
    pub dim: Option<usize>,
    /// Integration method.
    #[arg(long, short, value_enum, default_value = "auto")]
    pub method: MethodName,
    /// Intervals of the trapezoid rule, or of Richardson's coarsest grid.
    #[arg(long, default_value_t = 1024)]
    pub intervals: u64,
    /// Richardson: the number of grids, each halving the last.
    #[arg(long, default_value_t = 2)]
    pub grids: u32,
    /// The rule pair on each interval (caq, scaq, bcaq, pscaq, pbcaq*).
    #[arg(long, value_enum, default_value = "gauss-kronrod")]
    pub rule: RuleName,
    /// The cubature rule of cuhre: 9 (DCUHRE), 7 (Genz-Malik), or auto (9 unless the
    /// expression has abs, floor, min, max, ...: a kink or a jump).
    #[arg(long, default_value = "auto")]
    pub cubature_rule: RuleChoice,
    /// The seed of pbcaq-r's coin.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Working precision: f64, dd or qd.
    #[arg(long, short, default_value = "dd")]
    pub precision: Precision,
    /// Relative tolerance [default: 1000 ε of the precision].
    #[arg(long)]
    pub tol: Option<f64>,
    /// Absolute tolerance.
    #[arg(long)]
    pub abs_tol: Option<f64>,
    /// Cap on integrand evaluations.
    #[arg(long)]
    pub max_evals: Option<u64>,
    /// Cap on levels (Romberg; tanh-sinh step halvings).
    #[arg(long)]
    pub max_levels: Option<u32>,
    /// Split the interval into this many pieces refined separately (Romberg).
    #[arg(long)]
    pub subintervals: Option<u64>,
    /// Worker threads [default: all cores].
    #[arg(long, short)]
    pub threads: Option<usize>,
    /// Where to evaluate the integrand: auto (the GPU for large grids when there is one,
    /// started only if a grid is that large), cpu, or gpu (large grids on the GPU; an error
    /// without one).
    #[arg(long, default_value = "auto")]
    pub device: Device,
    /// Print the estimate as JSON, the value as a full-precision decimal string.
    #[arg(long)]
    pub json: bool,
    /// Many integrals at once: --param and what goes with it (see `sweep.rs`).
    #[command(flatten)]
    pub sweep: super::sweep::SweepArgs,
}

pub fn run(args: &IntegrateArgs) -> Result<u8, CliError> {
    if args.sweep.is_sweep() {
        return super::sweep::run(args);
    }
    if args.sweep.out.is_some() {
        return Err(CliError::input(
            "--out writes the integrals of a sweep; give the parameters with --param",
        ));
    }
    let method = match args.method {
        MethodName::Trapezoid => Method::Trapezoid {
            intervals: args.intervals,
        },
        MethodName::Richardson => Method::Richardson {
            intervals: args.intervals,
            grids: args.grids,
        },
        MethodName::Romberg => Method::Romberg,
        MethodName::TanhSinh => Method::TanhSinh,
        MethodName::GaussLegendre => Method::GaussLegendre,
        MethodName::GaussKronrod => Method::GaussKronrod,
        MethodName::Auto => Method::Auto,
        MethodName::Caq => adaptive(args, Scheme::Caq),
        MethodName::Scaq => adaptive(args, Scheme::Scaq),
        MethodName::Bcaq => adaptive(args, Scheme::Bcaq),
        MethodName::Pscaq => adaptive(args, Scheme::Pscaq),
        MethodName::Pbcaq => adaptive(args, Scheme::Pbcaq),
        MethodName::PbcaqR => adaptive(args, Scheme::PbcaqR { seed: args.seed }),
        MethodName::PbcaqS => adaptive(args, Scheme::PbcaqS),
        MethodName::PbcaqG => adaptive(args, Scheme::PbcaqG),
        MethodName::Cuhre => Method::Cuhre {
            schedule: Schedule::Sequential,
        },
        MethodName::CuhreParallel => Method::Cuhre {
            schedule: Schedule::Parallel,
        },
        MethodName::GaussProduct => Method::GaussProduct,
    };
    let (lower, upper) = box_bounds(args)?;
    let dims = lower.len();
    let integral = if lower.len() == 1 && args.dim.is_none() {
        Integral::new(&args.expression)
            .map_err(CliError::input)?
            .bounds(&args.from, &args.to)
    } else {
        let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
        let upper: Vec<&str> = upper.iter().map(String::as_str).collect();
        Integral::with_dims(&args.expression, lower.len())
            .map_err(CliError::input)?
            .box_bounds(&lower, &upper)
    };
    let mut integral = integral
        .method(method)
        .precision(args.precision)
        .device(args.device);
    if let Some(tol) = args.tol {
        integral = integral.tolerance(tol);
    }
    if let Some(tol) = args.abs_tol {
        integral = integral.abs_tolerance(tol);
    }
    if let Some(n) = args.max_evals {
        integral = integral.max_evaluations(n);
    }
    if let Some(n) = args.max_levels {
        integral = integral.max_levels(n);
    }
    if let Some(p) = args.subintervals {
        integral = integral.subintervals(p);
    }
    if let Some(n) = args.threads {
        integral = integral.threads(n);
    }
    if args.cubature_rule != RuleChoice::Auto {
        integral = integral.cubature_rule(args.cubature_rule);
    }
    let estimate = with_spinner("integrating", || integral.compute()).map_err(CliError::of)?;
    if args.json {
        say!("{}", to_json(args, &estimate));
    } else {
        print_text(&estimate, dims, args.method);
    }
    if estimate.converged {
        Ok(0)
    } else {
        eprintln!(
            "warning: the tolerance was not met within the caps; the estimate may be off by \
             about {:.1e}",
            estimate.error
        );
        Ok(NOT_CONVERGED)
    }
}

/// The bounds of --from and --to, one per axis: comma-separated lists of equal length, or
/// one of each repeated --dim times.
fn box_bounds(args: &IntegrateArgs) -> Result<(Vec<String>, Vec<String>), CliError> {
    let split =
        |text: &str| -> Vec<String> { text.split(',').map(|s| s.trim().to_string()).collect() };
    let (mut lower, mut upper) = (split(&args.from), split(&args.to));
    let bad = |message: String| {
        Err(CliError::input(hpquad::Error::InvalidOption {
            option: "box",
            reason: message,
        }))
    };
    if let Some((k, _)) = lower
        .iter()
        .chain(&upper)
        .enumerate()
        .find(|(_, s)| s.is_empty())
    {
        let (flag, axis) = if k < lower.len() {
            ("--from", k + 1)
        } else {
            ("--to", k - lower.len() + 1)
        };
        return bad(format!("{flag} has an empty bound for axis {axis}"));
    }
    if lower.len() != upper.len() {
        return bad(format!(
            "--from gives {} bounds and --to gives {}; give one of each per axis",
            lower.len(),
            upper.len()
        ));
    }
    if let Some(dim) = args.dim {
        if dim == 0 {
            return bad("--dim 0: give at least one axis".to_string());
        }
        if lower.len() == 1 {
            lower = vec![lower[0].clone(); dim];
            upper = vec![upper[0].clone(); dim];
        } else if lower.len() != dim {
            return bad(format!(
                "--dim {dim} contradicts the box of {} axes given by --from and --to",
                lower.len()
            ));
        }
    }
    Ok((lower, upper))
}

/// A member of the adaptive family with the rule pair of --rule.
fn adaptive(args: &IntegrateArgs, scheme: Scheme) -> Method {
    let rule = match args.rule {
        RuleName::GaussKronrod => IntervalRule::GaussKronrod,
        RuleName::TrapezoidSimpson => IntervalRule::TrapezoidSimpson,
    };
    Method::Adaptive { scheme, rule }
}

fn print_text(estimate: &Estimate, dims: usize, asked: MethodName) {
    say!("{}", estimate.value);
    say!(
        "error estimate {:.1e}, {} evaluations, {} levels, {:.3} s, {}, {}, {}",
        estimate.error,
        estimate.evaluations,
        estimate.levels,
        estimate.elapsed.as_secs_f64(),
        estimate.method,
        estimate.value.precision(),
        devices_used(estimate)
    );
    if let Some(set) = estimate.cubature_rule {
        let per_region = set.points(dims) as u64;
        say!(
            "{} regions evaluated ({} points each, degree-{} rule) in {} steps",
            estimate.evaluations / per_region,
            per_region,
            set.degree(),
            estimate.levels
        );
    }
    if let Some(reason) = &estimate.reason {
        match asked {
            MethodName::Auto => say!("auto chose {}: {reason}", estimate.method),
            _ => say!("{}: {reason}", estimate.method),
        }
    }
}

fn to_json(args: &IntegrateArgs, estimate: &Estimate) -> serde_json::Value {
    serde_json::json!({
        "integrand": args.expression,
        "from": args.from,
        "to": args.to,
        "method": estimate.method.to_string(),
        "reason": estimate.reason,
        "cubature_rule": estimate.cubature_rule.map(|set| set.degree()),
        "precision": estimate.value.precision().to_string(),
        "value": estimate.value.to_string(),
        "error_estimate": estimate.error,
        "converged": estimate.converged,
        "evaluations": estimate.evaluations,
        "levels": estimate.levels,
        "seconds": estimate.elapsed.as_secs_f64(),
        "stages": estimate.stages.iter().map(|s| serde_json::json!({
            "level": s.level,
            "points": s.points,
            "device": &*s.device,
            "seconds": s.elapsed.as_secs_f64(),
        })).collect::<Vec<_>>(),
    })
}
