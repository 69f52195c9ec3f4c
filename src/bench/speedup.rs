//! Speedups over a sequential baseline: the adaptive family of Kern and Alaghband
//! (`../shared/papers/pbcaq-kern-alaghband.txt`, their Tables 1–2: every scheme over CAQ on
//! one thread) and, through the same rows, CUHRE's parallel schedules over sequential CUHRE
//! ([`super::cubature`]).
//!
//! A case is one integral in one precision at one tolerance. Its baseline runs first, on one
//! CPU thread; every variant then runs on each device of the sweep with the configured threads,
//! and its speedup is the baseline's median time over its own. Each row is measured against
//! the case's reference like a point of the sweep ([`super::observe`]), so a speedup never
//! hides a wrong answer: [`check`] holds every converged row to its tolerance.

use std::fmt::Write as _;

use serde_json::json;

use super::plot::{Chart, Panel, Series};
use super::suite::{self, Reference};
use super::{devices, family, observe, report, timed, Config, Measurement, Scale, Status};
use crate::methods::pbcaq::{IntervalRule, Scheme};
use crate::options::{Device, Method, Precision};
use crate::Integral;

/// One run of one variant on one case.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The case: an integral's name, or `n=5` for a cubature.
    pub case: String,
    /// The working precision.
    pub precision: Precision,
    /// The relative tolerance asked for.
    pub tolerance: f64,
    /// The variant: a scheme (`caq`, `pbcaq`, ...) or a schedule (`cuhre`, `cuhre-parallel`).
    pub variant: String,
    /// Whether this row is the case's baseline (one thread, the sequential variant).
    pub baseline: bool,
    /// The device asked for.
    pub device: Device,
    /// CPU worker threads.
    pub threads: usize,
    /// What became of it.
    pub status: Status,
    /// What was measured, when it ran.
    pub measurement: Option<Measurement>,
    /// The baseline's time over this row's, when both ran.
    pub speedup: Option<f64>,
}

impl Row {
    /// A row not yet run (status skipped, nothing measured).
    pub fn new(
        case: String,
        precision: Precision,
        tolerance: f64,
        variant: String,
        baseline: bool,
        device: Device,
        threads: usize,
    ) -> Row {
        Row {
            case,
            precision,
            tolerance,
            variant,
            baseline,
            device,
            threads,
            status: Status::Skipped(String::new()),
            measurement: None,
            speedup: None,
        }
    }

    /// The label of the variant on its device, e.g. `pbcaq cpu×16` or `cuhre-parallel gpu`.
    pub fn label(&self) -> String {
        match self.device {
            Device::Cpu => format!("{} cpu×{}", self.variant, self.threads),
            device => format!("{} {device}", self.variant),
        }
    }
}

/// The threads a setting of 0 (one per core) stands for.
pub fn threads_used(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
}

/// The tolerances of the family's table, by precision: the paper's regime (1e-6 to 1e-12 in
/// f64; 1e-25 in dd; 1e-50 in qd); the quick table takes the tightest of each.
pub fn family_tolerances(precision: Precision, scale: Scale) -> Vec<f64> {
    match (precision, scale) {
        (Precision::F64, Scale::Full) => vec![1e-6, 1e-9, 1e-12],
        (Precision::F64, Scale::Quick) => vec![1e-12],
        (Precision::Dd, _) => vec![1e-25],
        (Precision::Qd, _) => vec![1e-50],
    }
}

/// Runs one configured integral as a row: timed (warm-up, then repeats) and measured against
/// `reference`; an integral that could not be configured fails the row with its error.
pub fn run_row(
    integral: crate::Result<Integral<crate::expr::Expr>>,
    reference: &Reference,
    config: &Config,
    row: Row,
) -> Row {
    let integral = match integral {
        Ok(integral) => integral,
        Err(e) => {
            return Row {
                status: Status::Failed(e.to_string()),
                ..row
            }
        }
    };
    let result = timed(config, || {
        let estimate = integral.compute()?;
        let elapsed = estimate.elapsed;
        Ok((estimate, elapsed))
    });
    let (status, measurement) = observe(result, reference);
    Row {
        status,
        measurement,
        ..row
    }
}

/// Sets each row's speedup over its case's baseline (the rows of a case follow its baseline).
pub fn fill_speedups(rows: &mut [Row]) {
    let mut base: Option<f64> = None;
    for row in rows.iter_mut() {
        if row.baseline {
            base = row.measurement.as_ref().map(|m| m.seconds);
        }
        row.speedup = match (base, &row.measurement) {
            (Some(b), Some(m)) if m.seconds > 0.0 => Some(b / m.seconds),
            _ => None,
        };
    }
}

/// The family's table: on each integral over a finite interval (the quick suite under
/// [`Scale::Quick`]), precision and
/// tolerance of [`family_tolerances`], CAQ on one CPU thread, then every scheme of
/// [`Scheme::ALL`] with the Gauss–Kronrod pair on each device of the sweep. `done` is called
/// after each row.
pub fn run_family(
    references: &[Reference],
    config: &Config,
    mut done: impl FnMut(&Row),
) -> Vec<Row> {
    let mut rows = Vec::new();
    for reference in references {
        if config.scale == Scale::Quick && !suite::QUICK.contains(&reference.name.as_str()) {
            continue;
        }
        // The family integrates over finite intervals only (an infinite one is an error).
        if reference.is_infinite() {
            continue;
        }
        for precision in super::PRECISIONS {
            for tolerance in family_tolerances(precision, config.scale) {
                let integral = |method: Method, device: Device, threads: usize| {
                    Integral::new(&reference.expression).map(|i| {
                        i.bounds(&reference.from, &reference.to)
                            .method(method)
                            .precision(precision)
                            .device(device)
                            .threads(threads)
                            .tolerance(tolerance)
                            .max_evaluations(config.max_evaluations)
                    })
                };
                let mut variants = vec![(Scheme::Caq, Device::Cpu, 1, true)];
                for device in devices() {
                    for scheme in Scheme::ALL {
                        variants.push((scheme, device, threads_used(config.threads), false));
                    }
                }
                for (scheme, device, threads, baseline) in variants {
                    let row = Row::new(
                        reference.name.clone(),
                        precision,
                        tolerance,
                        scheme.name().to_string(),
                        baseline,
                        device,
                        threads,
                    );
                    let integral = integral(family(scheme), device, threads);
                    let row = run_row(integral, reference, config, row);
                    done(&row);
                    rows.push(row);
                }
            }
        }
    }
    fill_speedups(&mut rows);
    rows
}

/// The CSV columns of a speedup table, in order.
pub const CSV_HEADER: &str = "case,precision,tolerance,variant,baseline,device,threads,status,\
digits,error_estimate,actual_error,evaluations,seconds,repeats,speedup,ran_on,value,note";

/// The rows as CSV, failed ones included (their measured columns empty).
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for r in rows {
        let mut fields = vec![
            r.case.clone(),
            r.precision.to_string(),
            format!("{:e}", r.tolerance),
            r.variant.clone(),
            r.baseline.to_string(),
            r.device.to_string(),
            r.threads.to_string(),
            r.status.label().to_string(),
        ];
        match &r.measurement {
            Some(m) => fields.extend([
                format!("{:.2}", m.digits),
                format!("{:.3e}", m.error_estimate),
                format!("{:.3e}", m.actual_error),
                m.evaluations.to_string(),
                format!("{:.6e}", m.seconds),
                m.repeats.to_string(),
                r.speedup.map_or(String::new(), |s| format!("{s:.3}")),
                m.ran_on.clone(),
                m.value.clone(),
            ]),
            None => fields.extend(std::iter::repeat_n(String::new(), 9)),
        }
        fields.push(r.status.note().to_string());
        let line: Vec<String> = fields.iter().map(|f| report::quote(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// The rows as JSON, with the machine and a line saying what they measure.
pub fn json(rows: &[Row], machine: &str, what: &str) -> serde_json::Value {
    let finite = |x: f64| x.is_finite().then_some(x);
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let mut v = json!({
                "case": r.case,
                "precision": r.precision.to_string(),
                "tolerance": r.tolerance,
                "variant": r.variant,
                "baseline": r.baseline,
                "device": r.device.to_string(),
                "threads": r.threads,
                "status": r.status.label(),
                "note": r.status.note(),
                "speedup": r.speedup,
            });
            if let (Some(m), Some(map)) = (&r.measurement, v.as_object_mut()) {
                map.insert("digits".into(), json!(m.digits));
                map.insert("error_estimate".into(), json!(finite(m.error_estimate)));
                map.insert("actual_error".into(), json!(finite(m.actual_error)));
                map.insert("evaluations".into(), json!(m.evaluations));
                map.insert("seconds".into(), json!(m.seconds));
                map.insert("repeats".into(), json!(m.repeats));
                map.insert("ran_on".into(), json!(m.ran_on));
                map.insert("value".into(), json!(m.value));
            }
            v
        })
        .collect();
    json!({ "machine": machine, "what": what, "rows": rows })
}

/// Writes `<stem>.csv` and `<stem>.json` into `dir` (created if needed).
pub fn write_files(
    dir: &std::path::Path,
    stem: &str,
    rows: &[Row],
    machine: &str,
    what: &str,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(format!("{stem}.csv")), csv(rows))?;
    let text =
        serde_json::to_string_pretty(&json(rows, machine, what)).map_err(std::io::Error::other)?;
    std::fs::write(dir.join(format!("{stem}.json")), text + "\n")?;
    Ok(())
}

/// The table for people: one line per case, the baseline's time and digits, then each
/// variant's speedup (`-` where it did not run, `*` after one that did not converge).
pub fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    let mut labels: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| !r.baseline) {
        if !labels.contains(&r.label()) {
            labels.push(r.label());
        }
    }
    let _ = write!(out, "{:<26} {:>18}", "case", "baseline");
    for label in &labels {
        let _ = write!(out, " {label:>13}");
    }
    out.push('\n');
    let mut i = 0;
    while i < rows.len() {
        let start = i;
        i += 1;
        while i < rows.len() && !rows[i].baseline {
            i += 1;
        }
        let case = &rows[start..i];
        let head = &case[0];
        let name = format!("{} {} {:.0e}", head.case, head.precision, head.tolerance);
        let base = match (&head.measurement, head.baseline) {
            (Some(m), true) => format!(
                "{} {:.0}d {}",
                head.variant,
                m.digits.floor(),
                report::human_time(m.seconds)
            ),
            _ => format!("{} {}", head.variant, head.status.label()),
        };
        let _ = write!(out, "{name:<26} {base:>18}");
        for label in &labels {
            let cell = case
                .iter()
                .find(|r| !r.baseline && &r.label() == label)
                .map_or("-".to_string(), |r| match r.speedup {
                    Some(s) => format!(
                        "{s:.2}×{}",
                        if r.status == Status::Converged {
                            ""
                        } else {
                            "*"
                        }
                    ),
                    None => r.status.label().to_string(),
                });
            let _ = write!(out, " {cell:>13}");
        }
        out.push('\n');
    }
    out
}

/// The relative error a measurement's digits stand for.
fn relative_error(m: &Measurement) -> f64 {
    10f64.powf(-m.digits)
}

/// Every row that converged has a true relative error within its tolerance (digits are capped
/// at the reference's trusted digits, which are far beyond any tolerance here), and no
/// baseline failed (one skipped past the budget or the cap is not a failure). Returns the failures, one line each, and the number of checks made.
pub fn check(rows: &[Row]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for r in rows {
        if r.baseline {
            checked += 1;
            // A skipped baseline is skipped by design (past the budget or the cap).
            if let Status::Failed(_) = r.status {
                failures.push(format!(
                    "{} {} {:.0e}: the baseline {} {} ({})",
                    r.case,
                    r.precision,
                    r.tolerance,
                    r.variant,
                    r.status.label(),
                    r.status.note()
                ));
            }
        }
        if let (Status::Converged, Some(m)) = (&r.status, &r.measurement) {
            checked += 1;
            let error = relative_error(m);
            // The digits are printed to two decimals in the files; the test is on the value.
            if error > r.tolerance {
                failures.push(format!(
                    "{} {} {}: converged at tolerance {:.0e} with a true relative error of \
                     {error:.1e} ({:.2} digits)",
                    r.case,
                    r.precision,
                    r.label(),
                    r.tolerance,
                    m.digits
                ));
            }
        }
    }
    (failures, checked)
}

/// Each non-baseline row with its case's baseline, in order.
fn with_baselines(rows: &[Row]) -> Vec<(&Row, &Row)> {
    let mut out = Vec::new();
    let mut base: Option<&Row> = None;
    for r in rows {
        if r.baseline {
            base = Some(r);
        } else if let Some(b) = base {
            out.push((b, r));
        }
    }
    out
}

/// The family's picture, as the paper's figures: speedup over the baseline against the
/// workload (the baseline's evaluations), one panel per precision, one curve per variant and
/// device, the points of a curve in order of workload.
pub fn workload_chart(rows: &[Row], title: &str) -> Chart {
    let mut panels: Vec<Panel> = Vec::new();
    for precision in super::PRECISIONS {
        let mut series: Vec<Series> = Vec::new();
        for (base, r) in with_baselines(rows) {
            if r.precision != precision {
                continue;
            }
            let (Some(b), Some(s)) = (&base.measurement, r.speedup) else {
                continue;
            };
            let point = (b.evaluations as f64, s, r.status == Status::Converged);
            match series.iter_mut().find(|x| x.label == r.label()) {
                Some(x) => x.points.push(point),
                None => series.push(Series {
                    label: r.label(),
                    points: vec![point],
                }),
            }
        }
        for s in &mut series {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        if !series.is_empty() {
            panels.push(Panel {
                caption: format!("{precision}"),
                series,
            });
        }
    }
    Chart {
        title: title.to_string(),
        x_desc: "workload: the baseline's evaluations".into(),
        y_desc: "speedup over the baseline".into(),
        panels,
    }
}

/// Figure 2 of the CUHRE paper: speedup against tolerance, one curve per case (dimension), one
/// panel per variant and device.
pub fn tolerance_chart(rows: &[Row], title: &str) -> Chart {
    let mut panels: Vec<Panel> = Vec::new();
    for (_, r) in with_baselines(rows) {
        let Some(s) = r.speedup else { continue };
        let point = (r.tolerance, s, r.status == Status::Converged);
        let caption = r.label();
        let panel = match panels.iter().position(|p| p.caption == caption) {
            Some(i) => &mut panels[i],
            None => {
                panels.push(Panel {
                    caption,
                    series: Vec::new(),
                });
                let last = panels.len() - 1;
                &mut panels[last]
            }
        };
        match panel.series.iter_mut().find(|x| x.label == r.case) {
            Some(x) => x.points.push(point),
            None => panel.series.push(Series {
                label: r.case.clone(),
                points: vec![point],
            }),
        }
    }
    Chart {
        title: title.to_string(),
        x_desc: "relative tolerance".into(),
        y_desc: "speedup over sequential CUHRE, one thread".into(),
        panels,
    }
}

/// One of the paper's Table 2 integrals on one of its intervals, with a closed form: the large
/// workloads of [`run_large`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    /// A short identifier, e.g. `exp_m3x_cos5pix_30`.
    pub name: &'static str,
    /// The integrand in hpquad's expression language.
    pub expression: &'static str,
    /// The lower bound.
    pub from: &'static str,
    /// The upper bound.
    pub to: &'static str,
    /// The closed form, as a person reads it.
    pub closed_form: &'static str,
    /// Its value to 70 significant digits (mpmath at 80 digits; `tests/bench.rs` checks every
    /// digit against the closed form in MPFR).
    pub value: &'static str,
}

/// The digits of [`Workload::value`] that are trusted.
pub const WORKLOAD_DIGITS: u32 = 68;

/// Table 2's functions 1, 3 and 5 on their largest intervals (function 5 on its middle one, see
/// below, and on its smallest for the quick table): those with a closed form in elementary
/// functions.
pub const WORKLOADS: [Workload; 4] = [
    Workload {
        name: "exp_m3x_cos5pix_10",
        expression: "exp(-3*x)*cos(5*pi*x)",
        from: "0",
        to: "10",
        closed_form: "3 (1 − e^−30) / (9 + 25π²)",
        value: "0.01173065890868760051616961354014107216963092726173600600941695383396417",
    },
    // Not [0, 30]: there CAQ's trapezoid–Simpson pair is fooled. Its interval [7.5, 15] has
    // f(7.5) = 0 (cos 37.5π) and samples of 1e-15 and less, so it is accepted while holding
    // 1e-11 of the integral: CAQ claims 1e-10 and is 8.9e-10 off (H100 machine, f64 at 1e-10,
    // dd at 1e-9). On [0, 20] no interval is sampled so.
    Workload {
        name: "exp_m3x_cos5pix_20",
        expression: "exp(-3*x)*cos(5*pi*x)",
        from: "0",
        to: "20",
        closed_form: "3 (1 − e^−60) / (9 + 25π²)",
        value: "0.01173065890868869822700204918721148143386493057659992990957843729432319",
    },
    Workload {
        name: "exp2x_sin3x_7",
        expression: "exp(2*x)*sin(3*x)",
        from: "0",
        to: "7",
        closed_form: "(e^14 (2 sin 21 − 3 cos 21) + 3) / 13",
        value: "306802.9980978833066065271549548957634935600371523529452456340197190403",
    },
    Workload {
        name: "4xcos2x_70",
        expression: "4*x*cos(2*x) - (x-2)^2",
        from: "0",
        to: "70",
        closed_form: "140 sin 140 + cos 140 − 1 − (68³ + 8) / 3",
        value: "-104677.2975945856939893574445609002743154339010556736344597877753840172",
    },
];

impl Workload {
    /// The workload as a suite reference, for [`observe`].
    pub fn reference(&self) -> Reference {
        Reference {
            name: self.name.to_string(),
            title: format!("∫ {} over [{}, {}]", self.expression, self.from, self.to),
            kind: "Table 2 of the PBCAQ paper".to_string(),
            expression: self.expression.to_string(),
            from: self.from.to_string(),
            to: self.to.to_string(),
            value: self.value.to_string(),
            trusted_digits: WORKLOAD_DIGITS,
            provenance: format!(
                "closed form {}, mpmath at 80 digits, checked against MPFR by tests/bench.rs",
                self.closed_form
            ),
        }
    }
}

/// The evaluation cap of the large table: far above its largest run (CAQ's 102 M evaluations
/// on e^(-3x) cos(5πx) over [0, 20] at 1e-10), so that no row stops at it.
pub const LARGE_MAX_EVALUATIONS: u64 = 1 << 33;

/// How a large case is integrated: the paper's rule pair, or the Gauss–Kronrod rules against
/// the best CPU methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// Trapezoid against Simpson on both sides: CAQ, BCAQ, PBCAQ.
    TrapezoidSimpson,
    /// Gauss–Kronrod: CAQ, tanh-sinh, adaptive Gauss–Kronrod, PBCAQ.
    GaussKronrod,
}

impl Pairing {
    /// The short tag in a case's name.
    pub fn tag(&self) -> &'static str {
        match self {
            Pairing::TrapezoidSimpson => "ts",
            Pairing::GaussKronrod => "gk",
        }
    }
}

/// One case of the large table: a workload, a precision, a tolerance and a pairing.
pub type LargeCase = (&'static Workload, Precision, f64, Pairing);

/// The large table's cases. Full: the paper's regime, trapezoid–Simpson at tolerances that
/// make CAQ take 5–20 s a case on one thread (f64 at 1e-10 and 1e-12; dd at 1e-9, where each
/// evaluation costs three times as much), then the Gauss–Kronrod rules near each precision's
/// reach on the same intervals (f64 1e-13, dd 1e-28). Quick: e^(-3x) cos(5πx) over [0, 10] at 1e-6 (under a second
/// for all rows on two cores).
pub fn large_cases(scale: Scale) -> Vec<LargeCase> {
    use Pairing::{GaussKronrod as Gk, TrapezoidSimpson as Ts};
    use Precision::{Dd, F64};
    let [m3x_10, m3x_20, e2x_7, poly_70] = &WORKLOADS;
    match scale {
        Scale::Quick => vec![
            (m3x_10, F64, 1e-6, Ts),
            (m3x_10, Dd, 1e-6, Ts),
            (m3x_10, F64, 1e-12, Gk),
            (m3x_10, Dd, 1e-25, Gk),
        ],
        Scale::Full => vec![
            (m3x_20, F64, 1e-10, Ts),
            (e2x_7, F64, 1e-12, Ts),
            (poly_70, F64, 1e-12, Ts),
            (m3x_20, Dd, 1e-9, Ts),
            (m3x_20, F64, 1e-13, Gk),
            (e2x_7, F64, 1e-13, Gk),
            (poly_70, F64, 1e-13, Gk),
            (m3x_20, Dd, 1e-28, Gk),
            (e2x_7, Dd, 1e-28, Gk),
            (poly_70, Dd, 1e-28, Gk),
        ],
    }
}

/// The variants of a large case after its baseline (CAQ with the case's pair on one thread):
/// (name, method, device, threads). Trapezoid–Simpson: BCAQ on the calling thread, PBCAQ on
/// all threads, PBCAQ on the GPU. Gauss–Kronrod: tanh-sinh and adaptive Gauss–Kronrod (the
/// best CPU methods) and PBCAQ on all threads, PBCAQ on the GPU.
fn large_variants(pairing: Pairing, threads: usize) -> Vec<(&'static str, Method, Device, usize)> {
    let rule = match pairing {
        Pairing::TrapezoidSimpson => IntervalRule::TrapezoidSimpson,
        Pairing::GaussKronrod => IntervalRule::GaussKronrod,
    };
    let scheme = |scheme: Scheme| Method::Adaptive { scheme, rule };
    let mut variants = vec![("caq", scheme(Scheme::Caq), Device::Cpu, 1)];
    match pairing {
        Pairing::TrapezoidSimpson => {
            variants.push(("bcaq", scheme(Scheme::Bcaq), Device::Cpu, 1));
        }
        Pairing::GaussKronrod => {
            variants.push(("tanh-sinh", Method::TanhSinh, Device::Cpu, threads));
            variants.push(("gauss-kronrod", Method::GaussKronrod, Device::Cpu, threads));
        }
    }
    variants.push(("pbcaq", scheme(Scheme::Pbcaq), Device::Cpu, threads));
    if devices().contains(&Device::Gpu) {
        variants.push(("pbcaq", scheme(Scheme::Pbcaq), Device::Gpu, threads));
    }
    variants
}

/// The large table: each case of [`large_cases`], its baseline (CAQ with the case's rule pair
/// on one CPU thread) first, then `large_variants`, each timed as a row of the family's table
/// and measured against the workload's closed form, under [`LARGE_MAX_EVALUATIONS`]. `done`
/// is called after each row.
pub fn run_large(config: &Config, mut done: impl FnMut(&Row)) -> Vec<Row> {
    let threads = threads_used(config.threads);
    let mut rows = Vec::new();
    for (workload, precision, tolerance, pairing) in large_cases(config.scale) {
        let reference = workload.reference();
        for (i, (variant, method, device, threads)) in
            large_variants(pairing, threads).into_iter().enumerate()
        {
            let row = Row::new(
                format!("{} {}", workload.name, pairing.tag()),
                precision,
                tolerance,
                variant.to_string(),
                i == 0,
                device,
                threads,
            );
            let integral = Integral::new(workload.expression).map(|i| {
                i.bounds(workload.from, workload.to)
                    .method(method)
                    .precision(precision)
                    .device(device)
                    .threads(threads)
                    .tolerance(tolerance)
                    .max_evaluations(LARGE_MAX_EVALUATIONS)
            });
            let row = run_row(integral, &reference, config, row);
            done(&row);
            rows.push(row);
        }
    }
    fill_speedups(&mut rows);
    rows
}

/// The rows one a line: case, precision, tolerance, variant and device, time, evaluations,
/// speedup over the case's baseline, the true relative error against the tolerance, and the
/// devices that did the work (a GPU row whose lists stayed on the CPU says so here).
pub fn long_table(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:<4} {:>6} {:<20} {:>9} {:>12} {:>9} {:>9}  {:<13} ran on",
        "case", "prec", "tol", "variant", "time", "evaluations", "speedup", "true err", "status"
    );
    for r in rows {
        let (time, evaluations, error, ran_on) = match &r.measurement {
            Some(m) => (
                report::human_time(m.seconds),
                m.evaluations.to_string(),
                format!("{:.1e}", relative_error(m)),
                m.ran_on.as_str(),
            ),
            None => ("-".into(), "-".into(), "-".into(), r.status.note()),
        };
        let speedup = r.speedup.map_or("-".to_string(), |s| format!("{s:.1}×"));
        let _ = writeln!(
            out,
            "{:<24} {:<4} {:>6.0e} {:<20} {:>9} {:>12} {:>9} {:>9}  {:<13} {}",
            r.case,
            r.precision.to_string(),
            r.tolerance,
            r.label(),
            time,
            evaluations,
            speedup,
            error,
            r.status.label(),
            ran_on
        );
    }
    out
}
