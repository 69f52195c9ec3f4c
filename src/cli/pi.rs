//! `hpquad pi`: π = ∫₀¹ (16x − 16)/(x⁴ − 2x³ + 4x − 4) dx by Romberg integration, printed level
//! by level as in parallel-romberg-quad-double.txt, and checked against 100 published digits.

use hpquad::precision::{Dd, Qd, Real};
use hpquad::{Device, Estimate, Integral, Method, Precision, Value};

use super::format::{digits_correct, significant};
use super::progress::with_spinner;
use super::CliError;

/// The integrand whose integral over [0, 1] is π.
pub const PI_INTEGRAND: &str = "(16*x - 16)/(x^4 - 2*x^3 + 4*x - 4)";

/// π to 100 decimal places, the independent reference.
pub const PI_100: &str = "3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679";

/// Options of `hpquad pi`.
#[derive(clap::Args, Debug)]
pub struct PiArgs {
    /// Correct digits wanted [default: 60 in qd, 30 in dd, 15 in f64].
    #[arg(long, short)]
    pub digits: Option<u32>,
    /// Working precision: f64, dd or qd.
    #[arg(long, short, default_value = "qd")]
    pub precision: Precision,
    /// Worker threads [default: all cores].
    #[arg(long, short)]
    pub threads: Option<usize>,
    /// Where to evaluate the integrand: auto (the GPU for large grids when there is one,
    /// started only if a grid is that large), cpu, or gpu (large grids on the GPU; an error
    /// without one).
    #[arg(long, default_value = "auto")]
    pub device: Device,
}

pub fn run(args: &PiArgs) -> Result<(), CliError> {
    match args.precision {
        Precision::F64 => compute::<f64>(args),
        Precision::Dd => compute::<Dd>(args),
        Precision::Qd => compute::<Qd>(args),
    }
}

fn compute<T: Real>(args: &PiArgs) -> Result<(), CliError>
where
    Value: From<T>,
{
    let carried = T::DIGITS;
    let digits = args.digits.unwrap_or(match T::NAME {
        "qd" => 60,
        "dd" => 30,
        _ => 15,
    });
    if digits == 0 || digits > carried {
        return Err(CliError::input(format!(
            "--digits {digits} is not possible in {}: it carries about {carried} digits \
             (choose 1 to {carried}, or a higher --precision)",
            T::NAME
        )));
    }
    let mut integral = Integral::new(PI_INTEGRAND)
        .map_err(CliError::input)?
        .over(0.0..1.0)
        .method(Method::Romberg)
        .precision(precision_of::<T>())
        .device(args.device)
        .tolerance(10f64.powi(-(digits as i32)));
    if let Some(threads) = args.threads {
        integral = integral.threads(threads);
    }
    let estimate = hpquad::gpu::trace::time("integral computed", || {
        with_spinner("computing π by Romberg integration", || integral.compute())
    })
    .map_err(CliError::of)?;
    let pi = T::parse_decimal(PI_100).map_err(CliError::computation)?;
    print_diagonal::<T>(&estimate, pi, digits);

    let value = value_of::<T>(&estimate.value);
    let correct = digits_correct(value, pi, carried + 1);
    say!();
    say!("π ≈ {}", significant(value, digits as usize));
    say!(
        "{correct} digits agree with π (compared with 100 published digits); {} wanted",
        digits
    );
    say!(
        "{} evaluations, {} levels, {:.3} s, {} precision, {}",
        estimate.evaluations,
        estimate.levels,
        estimate.elapsed.as_secs_f64(),
        T::NAME,
        devices_used(&estimate)
    );
    if !estimate.converged || correct < digits {
        return Err(CliError::computation(format!(
            "did not reach {digits} digits (estimated error {:.1e})",
            estimate.error
        )));
    }
    Ok(())
}

/// The Romberg diagonal T[i][i], its change from the previous level (the method's error
/// estimate) and its true error against π.
fn print_diagonal<T: Real>(estimate: &Estimate, pi: T, digits: u32) {
    say!("Romberg integration of {PI_INTEGRAND} over [0, 1]:");
    say!(
        "{:>5} {:>12}  {:<w$}  {:>9}  {:>9}",
        "level",
        "points",
        "T[i][i]",
        "change",
        "error",
        w = digits as usize + 6
    );
    let mut previous: Option<T> = None;
    for (i, row) in estimate.table.iter().enumerate() {
        let Some(last) = row.last() else { continue };
        let t = value_of::<T>(last);
        let change = previous.map(|p| format!("{:.1e}", (t - p).to_f64().abs()));
        say!(
            "{:>5} {:>12}  {:<w$}  {:>9}  {:>9.1e}",
            i,
            (1u64 << i) + 1,
            significant(t, digits as usize),
            change.unwrap_or_default(),
            (t - pi).to_f64(),
            w = digits as usize + 6
        );
        previous = Some(t);
    }
}

/// The devices that did the work, as the estimate's stages record them.
pub fn devices_used(estimate: &Estimate) -> String {
    let mut devices: Vec<&str> = estimate.stages.iter().map(|s| &*s.device).collect();
    devices.dedup();
    devices.join(" then ")
}

pub fn precision_of<T: Real>() -> Precision {
    match T::NAME {
        "qd" => Precision::Qd,
        "dd" => Precision::Dd,
        _ => Precision::F64,
    }
}

/// The value in its own precision; the estimate was computed in `T`, so the variant matches.
pub fn value_of<T: Real>(value: &Value) -> T {
    T::from_limbs(&match *value {
        Value::F64(x) => [x, 0.0, 0.0, 0.0],
        Value::Dd(x) => [x.hi, x.lo, 0.0, 0.0],
        Value::Qd(x) => x.0,
    })
}
