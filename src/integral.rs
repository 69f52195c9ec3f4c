//! The builder: one integral, its options chosen at run time, computed by the generic methods
//! monomorphised for the precision asked for.

use std::ops::Range;
use std::time::Instant;

use precision::{Dd, Qd, Real};

use crate::cpu::CpuBackend;
use crate::error::{Error, Result};
use crate::estimate::{Estimate, Value};
use crate::expr::Expr;
use crate::gpu::{GpuBackend, HybridBackend};
use crate::integrand::{Integrand, RealFn};
use crate::methods::{
    auto, cuhre, gauss_kronrod, gauss_legendre, gauss_product, pbcaq, richardson, romberg,
    tanh_sinh, trapezoid, Interval, Options, Outcome,
};
use crate::options::{Device, Method, Precision};

/// The cubature method an integral over a box runs.
#[derive(Debug, Clone, Copy)]
enum Cubature {
    Cuhre(cuhre::Schedule),
    GaussProduct,
}

/// A bound as given: a double, or text read in the working precision, parsed once when it is
/// given (a call's work can be a few microseconds: parsing "0" and "1" anew each time was a
/// third of an f64 integral of sin x over [0, 1]).
#[derive(Debug, Clone)]
enum Bound {
    F64(f64),
    Text {
        text: String,
        parsed: std::result::Result<BoundExpr, String>,
    },
}

/// A bound's text, parsed: ±infinity or a constant expression.
#[derive(Debug, Clone)]
enum BoundExpr {
    Infinite(f64),
    Constant(Box<Expr>),
}

impl BoundExpr {
    /// Parses a bound's text: `inf`, `-inf` (also `infinity`, `∞`) or a constant expression.
    fn parse(text: &str) -> std::result::Result<BoundExpr, String> {
        // Infinity is not part of the expression language, but as a bound it is meaningful:
        // let it through so that the method can say whether it supports infinite intervals.
        let trimmed = text.trim();
        let (sign, magnitude) = match trimmed.strip_prefix('-') {
            Some(rest) => (-1.0, rest),
            None => (1.0, trimmed.strip_prefix('+').unwrap_or(trimmed)),
        };
        if ["inf", "infinity", "∞"].contains(&magnitude.to_ascii_lowercase().as_str()) {
            return Ok(BoundExpr::Infinite(sign * f64::INFINITY));
        }
        Expr::parse(text, 0)
            .map(|expr| BoundExpr::Constant(Box::new(expr)))
            .map_err(|e| e.to_string())
    }

    /// The bound in precision `T`, its literals exact in `T`.
    fn value<T: Real>(&self) -> T {
        match self {
            BoundExpr::Infinite(x) => T::from_f64(*x),
            BoundExpr::Constant(expr) => expr.eval_constant::<T>(),
        }
    }
}

impl Bound {
    fn text(text: &str) -> Bound {
        Bound::Text {
            text: text.to_string(),
            parsed: BoundExpr::parse(text),
        }
    }
}

/// The most worker threads one computation may ask for.
const MAX_THREADS: usize = 1024;

/// A definite integral of a function of one variable and how to compute it.
///
/// ```
/// use hpquad::{Integral, Method, Precision};
/// use hpquad::integrand::RealFn;
/// use hpquad::precision::Real;
///
/// struct Quarter;  // 4 / (1 + x^2): its integral over [0, 1] is π
/// impl RealFn for Quarter {
///     fn eval<T: Real>(&self, x: T) -> T { (x * x + 1.0).recip() * 4.0 }
/// }
/// let est = Integral::from_fn(Quarter)
///     .over(0.0..1.0)
///     .method(Method::Romberg)
///     .precision(Precision::F64)
///     .tolerance(1e-13)
///     .compute()?;
/// assert!(est.converged);
/// assert!((est.value.to_f64() - std::f64::consts::PI).abs() < 1e-13);
/// # Ok::<(), hpquad::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Integral<F> {
    integrand: F,
    lower: Option<Bound>,
    upper: Option<Bound>,
    /// The box's lower and upper bounds, one per axis (n-dimensional integrals).
    axes: Option<(Vec<Bound>, Vec<Bound>)>,
    method: Method,
    precision: Precision,
    device: Device,
    options: Options,
    threads: usize,
}

impl Integral<Expr> {
    /// The integral of an expression in `x`, e.g. `"(16*x-16)/(x^4-2*x^3+4*x-4)"`; its
    /// literals are exact in the working precision.
    pub fn new(source: &str) -> Result<Integral<Expr>> {
        Ok(Integral::from_integrand(Expr::parse(source, 1)?))
    }
}

impl Integral<Expr> {
    /// The integral of an expression in `dims` variables, x1..xn (also x, y, z for n ≤ 3),
    /// over a box ([`Integral::over_box`], [`Integral::box_bounds`]):
    ///
    /// ```
    /// use hpquad::{Integral, Method};
    /// use hpquad::methods::cuhre::Schedule;
    ///
    /// let est = Integral::with_dims("x1 * x2^2 * x3^3", 3)?
    ///     .over_box(&[0.0, 0.0, 0.0], &[1.0, 1.0, 1.0])
    ///     .method(Method::Cuhre { schedule: Schedule::Parallel })
    ///     .tolerance(1e-12)
    ///     .compute()?;
    /// assert!((est.value.to_f64() - 1.0 / 24.0).abs() < 1e-14);
    /// # Ok::<(), hpquad::Error>(())
    /// ```
    pub fn with_dims(source: &str, dims: usize) -> Result<Integral<Expr>> {
        Ok(Integral::from_integrand(Expr::parse(source, dims)?))
    }
}

impl<F: RealFn> Integral<F> {
    /// The integral of a Rust function, generic over the precision (see [`RealFn`]).
    pub fn from_fn(f: F) -> Integral<F> {
        Integral::from_integrand(f)
    }
}

impl<F: Integrand> Integral<F> {
    /// The integral of any one-dimensional [`Integrand`]. Defaults: Romberg, f64, CPU on all
    /// cores, the default [`Options`].
    pub fn from_integrand(integrand: F) -> Integral<F> {
        Integral {
            integrand,
            lower: None,
            upper: None,
            axes: None,
            method: Method::default(),
            precision: Precision::default(),
            device: Device::default(),
            options: Options::default(),
            threads: 0,
        }
    }

    /// Integrates from `range.start` to `range.end` (a reversed range negates the integral).
    pub fn over(mut self, range: Range<f64>) -> Self {
        self.lower = Some(Bound::F64(range.start));
        self.upper = Some(Bound::F64(range.end));
        self
    }

    /// Bounds given as text and read in the working precision, so that `"0.1"` is 0.1 to 62
    /// digits in qd; constant expressions such as `"pi/2"` or `"sqrt(2)"` are accepted.
    pub fn bounds(mut self, lower: &str, upper: &str) -> Self {
        self.lower = Some(Bound::text(lower));
        self.upper = Some(Bound::text(upper));
        self
    }

    /// Integrates over the box `[lower[0], upper[0]] × ... × [lower[n-1], upper[n-1]]`, one pair
    /// of bounds per variable of the integrand; each axis must run from its lower to a larger
    /// upper bound.
    pub fn over_box(mut self, lower: &[f64], upper: &[f64]) -> Self {
        let bounds = |xs: &[f64]| xs.iter().map(|&x| Bound::F64(x)).collect();
        self.axes = Some((bounds(lower), bounds(upper)));
        self
    }

    /// [`Integral::over_box`] with each bound given as text and read in the working precision
    /// (`"1/3"` is 1/3 to 62 digits in qd), like [`Integral::bounds`].
    pub fn box_bounds(mut self, lower: &[&str], upper: &[&str]) -> Self {
        let bounds = |xs: &[&str]| xs.iter().map(|x| Bound::text(x)).collect();
        self.axes = Some((bounds(lower), bounds(upper)));
        self
    }

    /// The method (default [`Method::Auto`]: chosen from the interval and a probe of the
    /// integrand; the estimate says which ran and why).
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// The working precision (default f64).
    pub fn precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// The device (default CPU).
    pub fn device(mut self, device: Device) -> Self {
        self.device = device;
        self
    }

    /// The relative tolerance (default: 1000 units in the last place of the precision).
    pub fn tolerance(mut self, relative: f64) -> Self {
        self.options.relative = Some(relative);
        self
    }

    /// The absolute tolerance (default 0: only the relative one counts).
    pub fn abs_tolerance(mut self, absolute: f64) -> Self {
        self.options.absolute = absolute;
        self
    }

    /// The finest Romberg level: at most 2^levels intervals per subinterval (default 25).
    pub fn max_levels(mut self, levels: u32) -> Self {
        self.options.max_levels = levels;
        self
    }

    /// A cap on integrand evaluations (default 2^27).
    pub fn max_evaluations(mut self, evaluations: u64) -> Self {
        self.options.max_evaluations = evaluations;
        self
    }

    /// Worker threads on the CPU; 0 (the default) means one per core. The result has the
    /// same bits for any number.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Splits the interval into `p` equal subintervals, each refined until it meets its share
    /// of the tolerance (Romberg only; default 1).
    pub fn subintervals(mut self, p: u64) -> Self {
        self.options.subintervals = p;
        self
    }

    /// The rule of CUHRE (cubature only; default [`cuhre::RuleChoice::Auto`]: degree 9 for an
    /// expression with no operation that can put a kink or a jump inside, degree 7
    /// otherwise). The estimate's `reason` says which ran and why.
    ///
    /// ```
    /// use hpquad::backend::PointSet;
    /// use hpquad::methods::cuhre::RuleChoice;
    /// use hpquad::Integral;
    ///
    /// let est = Integral::with_dims("exp(-x1^2 - x2^2)", 2)?
    ///     .over_box(&[0.0, 0.0], &[1.0, 1.0])
    ///     .cubature_rule(RuleChoice::Degree7)
    ///     .tolerance(1e-10)
    ///     .compute()?;
    /// assert_eq!(est.cubature_rule, Some(PointSet::Degree7));
    /// assert!(est.reason.unwrap().contains("degree-7 rule: asked for"));
    /// # Ok::<(), hpquad::Error>(())
    /// ```
    pub fn cubature_rule(mut self, rule: cuhre::RuleChoice) -> Self {
        self.options.cubature_rule = rule;
        self
    }

    /// Computes the estimate. Errors are about the problem as stated (bounds, options, a
    /// non-finite integrand value, an estimate that overflowed: a divergent integral); a
    /// tolerance not met is not an error but `converged: false`.
    pub fn compute(&self) -> Result<Estimate> {
        let start = Instant::now();
        self.validate()?;
        let backend = self.backend()?;
        let mut estimate = match self.precision {
            Precision::F64 => self.estimate::<f64>(&backend)?,
            Precision::Dd => self.estimate::<Dd>(&backend)?,
            Precision::Qd => self.estimate::<Qd>(&backend)?,
        };
        if !estimate.value.to_f64().is_finite() {
            return Err(Error::Overflow {
                value: estimate.value.to_string(),
                evaluations: estimate.evaluations,
            });
        }
        estimate.elapsed = start.elapsed();
        Ok(estimate)
    }

    /// The CPU, with the GPU beside it as the device option asks.
    fn backend(&self) -> Result<HybridBackend> {
        let cpu = CpuBackend::new(self.threads)?;
        Ok(match self.device {
            Device::Cpu => HybridBackend::new(cpu, None),
            Device::Gpu => {
                GpuBackend::tape_of(&self.integrand)?;
                HybridBackend::new(cpu, Some(GpuBackend::new(0)?))
            }
            // Started by the first batch large enough for it, if ever; no GPU is not an
            // error here: the CPU does everything.
            Device::Auto if self.integrand.tape().is_some() => HybridBackend::gpu_when_needed(cpu),
            Device::Auto => HybridBackend::new(cpu, None),
        })
    }

    /// Runs the method in precision `T`.
    fn estimate<T: Real>(&self, backend: &HybridBackend) -> Result<Estimate>
    where
        Value: From<T>,
    {
        if let Some(cubature) = self.cubature() {
            return self.estimate_box::<T>(backend, cubature);
        }
        // A box of one axis is an interval.
        let (lower, upper) = match &self.axes {
            Some((lower, upper)) => (lower.first(), upper.first()),
            None => (self.lower.as_ref(), self.upper.as_ref()),
        };
        let interval = Interval::new(
            self.bound::<T>("lower", lower)?,
            self.bound::<T>("upper", upper)?,
        );
        let f = &self.integrand;
        let options = &self.options;
        let outcome: Outcome<T> = match self.method {
            Method::Trapezoid { intervals } => {
                trapezoid::trapezoid(f, backend, interval, intervals, options)?
            }
            Method::Richardson { intervals, grids } => {
                richardson::richardson(f, backend, interval, intervals, grids, options)?
            }
            Method::Romberg => romberg::romberg(f, backend, interval, options)?,
            Method::TanhSinh => tanh_sinh::tanh_sinh(f, backend, interval, options)?,
            Method::GaussLegendre => gauss_legendre::gauss_legendre(f, backend, interval, options)?,
            Method::GaussKronrod => gauss_kronrod::gauss_kronrod(f, backend, interval, options)?,
            Method::Adaptive { scheme, rule } => {
                let config = pbcaq::Config::new(scheme).with_rule(rule);
                pbcaq::pbcaq(f, backend, interval, &config, options)?
            }
            Method::Cuhre { .. } | Method::GaussProduct => {
                unreachable!("cubature runs in estimate_box")
            }
            Method::Auto => {
                let (outcome, choice) = auto::auto(f, backend, interval, options)?;
                let mut estimate = Estimate::from_outcome(outcome, choice.method);
                estimate.reason = Some(choice.reason);
                return Ok(estimate);
            }
        };
        Ok(Estimate::from_outcome(outcome, self.method))
    }

    /// The cubature method when one runs: asked for by name, or chosen by [`Method::Auto`]
    /// for an integrand of several variables.
    fn cubature(&self) -> Option<Cubature> {
        match self.method {
            Method::Cuhre { schedule } => Some(Cubature::Cuhre(schedule)),
            Method::GaussProduct => Some(Cubature::GaussProduct),
            Method::Auto if self.integrand.dims() > 1 => {
                // CUHRE where a cubature rule was asked for: the product rule has its own.
                let product = self.options.cubature_rule == cuhre::RuleChoice::Auto
                    && gauss_product::suits(
                        &self.integrand,
                        self.integrand.dims(),
                        self.precision != Precision::F64,
                        self.options.relative,
                    )
                    .is_some();
                Some(if product {
                    Cubature::GaussProduct
                } else {
                    Cubature::Cuhre(cuhre::Schedule::Parallel)
                })
            }
            _ => None,
        }
    }

    /// Runs the cubature method in precision `T` over the box (or the interval, as a box of
    /// one axis).
    fn estimate_box<T: Real>(&self, backend: &HybridBackend, cubature: Cubature) -> Result<Estimate>
    where
        Value: From<T>,
    {
        let (lower, upper) = match &self.axes {
            Some((lower, upper)) => {
                let parse = |which, bounds: &[Bound]| -> Result<Vec<T>> {
                    (0..bounds.len())
                        .map(|k| {
                            self.bound::<T>(which, Some(&bounds[k]))
                                .map_err(|e| match e {
                                    Error::InvalidBound {
                                        which,
                                        text,
                                        reason,
                                    } => Error::InvalidBound {
                                        which,
                                        text,
                                        reason: format!("axis {}: {reason}", k + 1),
                                    },
                                    e => e,
                                })
                        })
                        .collect()
                };
                (parse("lower", lower)?, parse("upper", upper)?)
            }
            None => (
                vec![self.bound::<T>("lower", self.lower.as_ref())?],
                vec![self.bound::<T>("upper", self.upper.as_ref())?],
            ),
        };
        let region = cuhre::Hyperbox::new(lower, upper)?;
        let schedule = match cubature {
            Cubature::Cuhre(schedule) => schedule,
            Cubature::GaussProduct => {
                let outcome =
                    gauss_product::gauss_product(&self.integrand, backend, &region, &self.options)?;
                let mut estimate = Estimate::from_outcome(outcome, Method::GaussProduct);
                let m = gauss_product::points_per_axis::<T>(region.dims())?;
                let rule = format!(
                    "products of Gauss–Legendre rules, {m} points an axis ({m}^{} a region) to \
                     start, raised up to {} on the axes whose coefficients fall fast",
                    region.dims(),
                    gauss_product::most_points_per_axis::<T>()
                );
                let why = gauss_product::suits(
                    &self.integrand,
                    region.dims(),
                    self.precision != Precision::F64,
                    self.options.relative,
                );
                estimate.reason = Some(match why {
                    Some(why) if self.method == Method::Auto => format!("{why}; {rule}"),
                    _ => rule,
                });
                return Ok(estimate);
            }
        };
        let rule = cuhre::choose_rule(&self.integrand, region.dims(), self.options.cubature_rule)?;
        let outcome = cuhre::cuhre(&self.integrand, backend, &region, schedule, &self.options)?;
        let mut estimate = Estimate::from_outcome(outcome, Method::Cuhre { schedule });
        estimate.cubature_rule = Some(rule.set);
        estimate.reason = Some(if self.method == Method::Auto {
            format!(
                "the integrand has {} variables: CUHRE is the n-dimensional method; {}",
                self.integrand.dims(),
                rule.reason
            )
        } else {
            rule.reason
        });
        Ok(estimate)
    }

    /// A bound in precision `T`.
    fn bound<T: Real>(&self, which: &'static str, bound: Option<&Bound>) -> Result<T> {
        let invalid = |text: &str, reason: String| Error::InvalidBound {
            which,
            text: text.to_string(),
            reason,
        };
        let value = match bound {
            None => {
                return Err(Error::InvalidOption {
                    option: "bounds",
                    reason: "no interval was given; call .over(a..b) or .bounds(\"a\", \"b\")"
                        .to_string(),
                })
            }
            Some(Bound::F64(x)) => T::from_f64(*x),
            Some(Bound::Text { text, parsed }) => parsed
                .as_ref()
                .map(BoundExpr::value::<T>)
                .map_err(|e| invalid(text, e.clone()))?,
        };
        if value.is_nan() {
            return Err(invalid(
                &value.to_string(),
                "NaN is not a bound".to_string(),
            ));
        }
        Ok(value)
    }

    /// Refuses option combinations before any work is done.
    fn validate(&self) -> Result<()> {
        self.options.validate()?;
        if self.threads > MAX_THREADS {
            return Err(Error::InvalidOption {
                option: "threads",
                reason: format!(
                    "{} threads were asked for; give 0 (one per core) to {MAX_THREADS}",
                    self.threads
                ),
            });
        }
        let cuhre_runs = matches!(self.cubature(), Some(Cubature::Cuhre(_)));
        if self.options.cubature_rule != cuhre::RuleChoice::Auto && !cuhre_runs {
            return Err(Error::InvalidOption {
                option: "cubature_rule",
                reason: format!(
                    "a cubature rule ({}) was asked for, but {} {}; the rule applies to cuhre \
                     and cuhre-parallel, and to auto over a box",
                    self.options.cubature_rule,
                    self.method,
                    if self.method == Method::GaussProduct {
                        "has its own (products of Gauss–Legendre rules)"
                    } else {
                        "integrates over an interval here"
                    }
                ),
            });
        }
        if self.options.subintervals != 1 && self.method != Method::Romberg {
            return Err(Error::InvalidOption {
                option: "subintervals",
                reason: format!(
                    "subintervals apply to Romberg; {} already samples a fixed grid of its \
                     intervals",
                    self.method
                ),
            });
        }
        self.validate_box()
    }

    /// Refuses a box that does not fit the integrand, and n-D integrands for 1-D methods.
    fn validate_box(&self) -> Result<()> {
        let dims = self.integrand.dims();
        if let Some((lower, upper)) = &self.axes {
            let reason = if lower.len() != upper.len() {
                format!(
                    "{} lower and {} upper bounds were given; give one of each per axis",
                    lower.len(),
                    upper.len()
                )
            } else if lower.len() != dims {
                format!(
                    "the box has {} axes but the integrand has {dims} variables",
                    lower.len()
                )
            } else {
                String::new()
            };
            if !reason.is_empty() {
                return Err(Error::InvalidOption {
                    option: "box",
                    reason,
                });
            }
        }
        if dims != 1 && self.cubature().is_none() {
            return Err(Error::InvalidOption {
                option: "method",
                reason: format!(
                    "{} integrates functions of one variable, but the integrand has {dims}; \
                     cuhre, cuhre-parallel and gauss-product integrate over n-dimensional boxes",
                    self.method
                ),
            });
        }
        if dims > 1 && self.axes.is_none() {
            return Err(Error::InvalidOption {
                option: "box",
                reason: format!(
                    "the integrand has {dims} variables; give a box of {dims} axes with \
                     .over_box(..) or .box_bounds(..)"
                ),
            });
        }
        Ok(())
    }
}

/// A bound's text in precision `T`: ±infinity or a constant expression, its literals exact
/// in `T`.
pub(crate) fn parse_bound<T: Real>(text: &str) -> std::result::Result<T, String> {
    BoundExpr::parse(text).map(|bound| bound.value::<T>())
}
