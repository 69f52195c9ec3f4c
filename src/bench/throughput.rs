//! Integrals per second against batch size: the Figures 2 (1-D) and 3 (2-D) of Thuerck et al.
//! (`../shared/papers/heuristic-forward-quadrature-thuerck-et-al.txt`), for the batch methods
//! of [`crate::Batch`]: forward quadrature (FAQ), adaptive Simpson (the paper's comparator,
//! MATLAB's `quad`) and batched Gauss–Kronrod.
//!
//! The paper's 2-D case integrates a bell over [0, 0]–[i, i] with i a pixel's intensity, so
//! that the threads work on different data; here the bell is 1/(1 + x²), whose integrals have
//! closed forms: ∫₀ᵖ dx/(1 + x²) = atan p in 1-D and ∫₀ᵖ∫₀ᵖ dx dy/((1 + x²)(1 + y²)) = atan² p
//! in 2-D, with p evenly spaced from 1/2 to 2 across the batch. Simpson and Gauss–Kronrod are
//! asked for the paper's relative tolerance, 1e-6, in f64; FAQ has none (its error is the
//! a-priori bound of its Theorem 1) and runs with its default steps. 2-D batches run every
//! method by Fubini, as the paper does FAQ. One more 1-D case is the high-precision
//! batch: Gauss–Kronrod in quad-double to 1e-50 ([`QD_TOLERANCE`]), up to 10^5 integrals.
//!
//! Each batch is a sweep of p ([`Batch::sweep`]: the range in, the results as columns out) and
//! runs on one CPU thread, on all cores, and on the GPU when there is one (after a batch of one
//! integral that compiles the kernel, timed apart as `prepare_seconds`). Every answer of a
//! sample of each batch (all of it up to [`SAMPLE`] integrals) is measured against its closed
//! form in quad-double: [`check`] holds each converged Simpson and Gauss–Kronrod integral to
//! its tolerance.

use std::fmt::Write as _;
use std::time::Instant;

use precision::{Dd, Qd};
use serde_json::json;

use super::plot::{Chart, Panel, Series};
use super::speedup::threads_used;
use super::{devices, report, timed, Config, Scale, Status};
use crate::batch::{Batch, ParamRange, ValueColumn};
use crate::methods::batch::BatchMethod;
use crate::options::{Device, Precision};

/// The relative tolerance of Simpson and Gauss–Kronrod in f64: the paper's ε for MATLAB's
/// `quad`.
pub const TOLERANCE: f64 = 1e-6;

/// The relative tolerance of the quad-double Gauss–Kronrod batch.
pub const QD_TOLERANCE: f64 = 1e-50;

/// The most integrals of a quad-double batch: the 10^5.
const QD_MOST: usize = 100_000;

/// The most integrals of a batch measured against their closed form (a stride through it).
pub const SAMPLE: usize = 10_000;

/// The parameter's range across a batch.
const P_FROM: &str = "0.5";
const P_TO: &str = "2";

/// One batch size of one method on one device.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1 or 2.
    pub dims: usize,
    /// The batch method's name (`faq`, `simpson`, `gauss-kronrod`).
    pub method: &'static str,
    /// The working precision.
    pub precision: Precision,
    /// The relative tolerance asked for (none for FAQ).
    pub tolerance: Option<f64>,
    /// Integrals in the batch.
    pub batch: usize,
    /// The device asked for.
    pub device: Device,
    /// CPU worker threads.
    pub threads: usize,
    /// Converged when every integral of the batch did, not converged when some did not,
    /// failed (the batch as a whole, or some of its integrals: the note says), skipped.
    pub status: Status,
    /// Median wall-clock time of the whole batch, in seconds (empty when it did not run).
    pub seconds: Option<f64>,
    /// Timed runs behind the median.
    pub repeats: usize,
    /// Integrand evaluations of the whole batch.
    pub evaluations: u64,
    /// Integrals that converged.
    pub converged: usize,
    /// Integrals measured against the closed form.
    pub sampled: usize,
    /// The largest true relative error among the sampled ones.
    pub worst_error: f64,
    /// Sampled integrals that converged with a true relative error over the tolerance.
    pub over_tolerance: usize,
    /// Sampled integrals whose true error is within the method's own error estimate or bound.
    pub within_estimate: usize,
    /// On the GPU, the time of a first batch of one integral before the timing: the kernel's
    /// compilation by NVRTC (or its load from the disk cache), which the timed runs do not
    /// pay again.
    pub prepare_seconds: Option<f64>,
}

impl Row {
    /// Integrals per second.
    pub fn per_second(&self) -> Option<f64> {
        self.seconds
            .filter(|&s| s > 0.0)
            .map(|s| self.batch as f64 / s)
    }

    /// The label of the method on its device, with its precision when not f64, e.g.
    /// `faq cpu×16`, `simpson gpu` or `gauss-kronrod qd gpu`.
    pub fn label(&self) -> String {
        let method = match self.precision {
            Precision::F64 => self.method.to_string(),
            p => format!("{} {p}", self.method),
        };
        match self.device {
            Device::Cpu => format!("{method} cpu×{}", self.threads),
            device => format!("{method} {device}"),
        }
    }
}

/// The batch sizes on `device`, least first: 10^3 and 10^4 (quick), 10^3 to 10^6 (full; 10^7
/// too on the GPU, where 10^6 takes milliseconds; a size is run only while the one before
/// took less than the long-point budget). Quad-double batches stop at 10^5 (10^3 quick).
pub fn sizes(scale: Scale, device: Device, precision: Precision) -> Vec<usize> {
    let all = match (scale, device) {
        (Scale::Quick, _) => vec![1_000, 10_000],
        (Scale::Full, Device::Gpu) => vec![1_000, 10_000, 100_000, 1_000_000, 10_000_000],
        (Scale::Full, _) => vec![1_000, 10_000, 100_000, 1_000_000],
    };
    let most = match (precision, scale) {
        (Precision::Qd, Scale::Quick) => 1_000,
        (Precision::Qd, Scale::Full) => QD_MOST,
        _ => usize::MAX,
    };
    all.into_iter().filter(|&n| n <= most).collect()
}

/// The batches measured: every method in f64 in 1-D and 2-D, and Gauss–Kronrod in quad-double
/// in 1-D; (dimensions, method, precision, relative tolerance).
fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for dims in [1, 2] {
        for method in BatchMethod::ALL {
            let tolerance = (method != BatchMethod::Faq).then_some(TOLERANCE);
            cases.push((dims, method, Precision::F64, tolerance));
        }
    }
    cases.push((
        1,
        BatchMethod::GaussKronrod,
        Precision::Qd,
        Some(QD_TOLERANCE),
    ));
    cases
}

/// The parameter's `n` values, evenly spaced from 1/2 to 2: a sweep, as `--param p=0.5:2:n`
/// gives it (on the GPU each thread makes its own from its index).
fn range(n: usize) -> ParamRange {
    ParamRange::new(P_FROM, P_TO, n as u64)
}

/// The closed form of integral `p`, in quad-double: atan p (1-D) or atan² p (2-D).
fn exact(dims: usize, p: Qd) -> Qd {
    let a = p.atan();
    if dims == 2 {
        a * a
    } else {
        a
    }
}

/// The batch of `dims` dimensions for `method` in `precision`, asked for `tolerance`.
fn batch(
    dims: usize,
    method: BatchMethod,
    precision: Precision,
    tolerance: Option<f64>,
    device: Device,
    threads: usize,
) -> crate::Result<Batch> {
    let batch = if dims == 2 {
        Batch::new_2d("1/((1+x^2)*(1+y^2))", &["p"])?
            .bounds("0", "p")
            .y_bounds("0", "p")
    } else {
        Batch::new("1/(1+x^2)", &["p"])?.bounds("0", "p")
    };
    let batch = batch
        .method(method)
        .precision(precision)
        .device(device)
        .threads(threads);
    Ok(match tolerance {
        Some(t) => batch.tolerance(t),
        None => batch,
    })
}

/// Runs every case, device and thread count over the batch sizes; `done` is called after
/// each row.
pub fn run(config: &Config, mut done: impl FnMut(&Row)) -> Vec<Row> {
    let mut rows = Vec::new();
    let all = threads_used(config.threads);
    for case in cases() {
        let mut variants = vec![(Device::Cpu, 1)];
        if all > 1 {
            variants.push((Device::Cpu, all));
        }
        if devices().contains(&Device::Gpu) {
            variants.push((Device::Gpu, all));
        }
        for (device, threads) in variants {
            let mut stop: Option<String> = None;
            for n in sizes(config.scale, device, case.2) {
                let row = match &stop {
                    Some(why) => Row {
                        status: Status::Skipped(why.clone()),
                        ..empty(case, n, device, threads)
                    },
                    None => run_row(case, n, device, threads, config),
                };
                if let Some(s) = row.seconds {
                    if s > config.long_point.as_secs_f64() {
                        stop = Some(format!(
                            "{n} integrals took {:.1} s, over the {:.0} s a point may take",
                            s,
                            config.long_point.as_secs_f64()
                        ));
                    }
                }
                done(&row);
                rows.push(row);
            }
        }
    }
    rows
}

/// One batch to measure: dimensions, method, precision, relative tolerance.
type Case = (usize, BatchMethod, Precision, Option<f64>);

/// Row k's value and parameter in quad-double.
type Sample<'a> = Box<dyn Fn(usize) -> (Qd, Qd) + 'a>;

/// A row that has not run.
fn empty(case: Case, n: usize, device: Device, threads: usize) -> Row {
    let (dims, method, precision, tolerance) = case;
    Row {
        dims,
        method: method.name(),
        precision,
        tolerance,
        batch: n,
        device,
        threads,
        status: Status::Skipped(String::new()),
        seconds: None,
        repeats: 0,
        evaluations: 0,
        converged: 0,
        sampled: 0,
        worst_error: 0.0,
        over_tolerance: 0,
        within_estimate: 0,
        prepare_seconds: None,
    }
}

/// Times one batch and measures a sample of its answers.
fn run_row(case: Case, n: usize, device: Device, threads: usize, config: &Config) -> Row {
    let (dims, method, precision, tolerance) = case;
    let mut row = empty(case, n, device, threads);
    let batch = match batch(dims, method, precision, tolerance, device, threads) {
        Ok(b) => b,
        Err(e) => {
            row.status = Status::Failed(e.to_string());
            return row;
        }
    };
    // The first batch on the GPU compiles its kernel (seconds for a 2-D Gauss–Kronrod one,
    // then loaded from the disk cache in milliseconds): one integral pays for it here, timed
    // apart, so that the warm-up in `timed` measures the batch and not NVRTC.
    if device == Device::Gpu {
        let start = Instant::now();
        if let Err(e) = batch.sweep(&[range(1)]) {
            row.status = Status::Failed(e.to_string());
            return row;
        }
        row.prepare_seconds = Some(start.elapsed().as_secs_f64());
    }
    let ranges = [range(n)];
    let result = timed(config, || {
        let start = Instant::now();
        let columns = batch.sweep(&ranges)?;
        Ok((columns, start.elapsed()))
    });
    let (columns, seconds, repeats) = match result {
        Ok(r) => r,
        Err(e) => {
            row.status = Status::Failed(e.to_string());
            return row;
        }
    };
    row.seconds = Some(seconds);
    row.repeats = repeats;
    row.evaluations = columns.evaluations().iter().sum();
    row.converged = columns.converged().iter().filter(|&&c| c).count();
    let failed = columns.failures().len();
    let first_failure = columns
        .failures()
        .first()
        .map_or(String::new(), |f| f.1.to_string());
    // Each sampled value and its parameter in quad-double (exact for f64 and dd values; the
    // parameter as the batch's own precision made it).
    let sample: Result<Sample, String> = match columns.values() {
        ValueColumn::F64(v) => ranges[0].points::<f64>().map(|p| {
            Box::new(move |k: usize| (Qd::from_f64(v[k]), Qd::from_f64(p(k as u64)))) as Sample
        }),
        ValueColumn::Dd(v) => ranges[0].points::<Dd>().map(|p| {
            Box::new(move |k: usize| (Qd::from_dd(v[k]), Qd::from_dd(p(k as u64)))) as Sample
        }),
        ValueColumn::Qd(v) => ranges[0]
            .points::<Qd>()
            .map(|p| Box::new(move |k: usize| (v[k], p(k as u64))) as Sample),
    };
    let sample = match sample {
        Ok(f) => f,
        Err(e) => {
            row.status = Status::Failed(e);
            return row;
        }
    };
    let stride = n.div_ceil(SAMPLE).max(1);
    for k in (0..n).step_by(stride) {
        if columns.row(k).is_err() {
            continue;
        }
        let (value, p) = sample(k);
        let exact = exact(dims, p);
        let error = (value - exact).abs().to_f64();
        let relative = error / exact.abs().to_f64();
        row.sampled += 1;
        row.worst_error = row.worst_error.max(relative);
        if let Some(t) = tolerance {
            if columns.converged()[k] && relative > t {
                row.over_tolerance += 1;
            }
        }
        if error <= columns.errors()[k] {
            row.within_estimate += 1;
        }
    }
    row.status = if failed > 0 {
        Status::Failed(format!(
            "{failed} of {n} integrals failed, the first: {first_failure}"
        ))
    } else if row.converged == n {
        Status::Converged
    } else {
        Status::NotConverged
    };
    row
}

/// The CSV columns, in order.
pub const CSV_HEADER: &str =
    "dims,method,precision,tolerance,batch,device,threads,status,seconds,repeats,\
integrals_per_second,evaluations,converged,sampled,worst_relative_error,over_tolerance,\
within_estimate,prepare_seconds,note";

/// The rows as CSV.
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for r in rows {
        let fields = [
            r.dims.to_string(),
            r.method.to_string(),
            r.precision.to_string(),
            r.tolerance.map_or(String::new(), |t| format!("{t:.0e}")),
            r.batch.to_string(),
            r.device.to_string(),
            r.threads.to_string(),
            r.status.label().to_string(),
            r.seconds.map_or(String::new(), |s| format!("{s:.6e}")),
            r.repeats.to_string(),
            r.per_second().map_or(String::new(), |x| format!("{x:.4e}")),
            r.evaluations.to_string(),
            r.converged.to_string(),
            r.sampled.to_string(),
            format!("{:.3e}", r.worst_error),
            r.over_tolerance.to_string(),
            r.within_estimate.to_string(),
            r.prepare_seconds
                .map_or(String::new(), |s| format!("{s:.3e}")),
            r.status.note().to_string(),
        ];
        let line: Vec<String> = fields.iter().map(|f| report::quote(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// The rows as JSON, with the machine.
pub fn json(rows: &[Row], machine: &str) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            json!({
                "dims": r.dims,
                "method": r.method,
                "precision": r.precision.to_string(),
                "tolerance": r.tolerance,
                "batch": r.batch,
                "device": r.device.to_string(),
                "threads": r.threads,
                "status": r.status.label(),
                "note": r.status.note(),
                "seconds": r.seconds,
                "repeats": r.repeats,
                "integrals_per_second": r.per_second(),
                "evaluations": r.evaluations,
                "converged": r.converged,
                "sampled": r.sampled,
                "worst_relative_error": r.worst_error.is_finite().then_some(r.worst_error),
                "over_tolerance": r.over_tolerance,
                "within_estimate": r.within_estimate,
                "prepare_seconds": r.prepare_seconds,
            })
        })
        .collect();
    json!({
        "machine": machine,
        "what": "integrals per second against batch size: 1-D ∫₀ᵖ dx/(1+x²) and 2-D \
                 ∫₀ᵖ∫₀ᵖ dx dy/((1+x²)(1+y²)), p evenly spaced in [1/2, 2]; Simpson and \
                 Gauss–Kronrod in f64 at relative tolerance 1e-6, FAQ with its default steps; \
                 1-D Gauss–Kronrod in qd at 1e-50",
        "rows": rows,
    })
}

/// Writes `throughput.csv` and `throughput.json` into `dir` (created if needed).
pub fn write_files(dir: &std::path::Path, rows: &[Row], machine: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("throughput.csv"), csv(rows))?;
    let text = serde_json::to_string_pretty(&json(rows, machine)).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("throughput.json"), text + "\n")?;
    Ok(())
}

/// The table for people: one line per method and device, integrals per second at each batch
/// size, then the evaluations per integral, the evaluations per second, the worst true error
/// and the share converged of the largest batch (FAQ has no tolerance, so none of its integrals counts as converged).
pub fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    let mut sizes: Vec<usize> = rows.iter().map(|r| r.batch).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let _ = write!(out, "{:<28}", "integrals/s");
    for n in &sizes {
        let _ = write!(out, " {:>10}", format!("n={n:.0e}"));
    }
    let _ = writeln!(
        out,
        " {:>9} {:>9} {:>10} {:>9}",
        "evals/int", "evals/s", "worst err", "converged"
    );
    let mut lines: Vec<(usize, String)> = Vec::new();
    for r in rows {
        if !lines.contains(&(r.dims, r.label())) {
            lines.push((r.dims, r.label()));
        }
    }
    for (dims, label) in lines {
        let mine: Vec<&Row> = rows
            .iter()
            .filter(|r| r.dims == dims && r.label() == label)
            .collect();
        let _ = write!(out, "{:<28}", format!("{dims}-D {label}"));
        for n in &sizes {
            let cell = mine
                .iter()
                .find(|r| r.batch == *n)
                .map_or("-".to_string(), |r| match r.per_second() {
                    Some(x) => format!("{x:.3e}"),
                    None => r.status.label().to_string(),
                });
            let _ = write!(out, " {cell:>10}");
        }
        match mine.iter().rev().find(|r| r.seconds.is_some()) {
            Some(r) => {
                let _ = writeln!(
                    out,
                    " {:>9.1} {:>9.2e} {:>10.1e} {:>8.1}%",
                    r.evaluations as f64 / r.batch as f64,
                    r.seconds.map_or(0.0, |s| r.evaluations as f64 / s),
                    r.worst_error,
                    100.0 * r.converged as f64 / r.batch as f64
                );
            }
            None => out.push('\n'),
        }
    }
    out
}

/// Every batch ran without a failed integral, and every sampled Simpson and Gauss–Kronrod
/// integral that converged is within its tolerance against the closed form. Returns the
/// failures, one line each, and the number of checks made.
pub fn check(rows: &[Row]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for r in rows {
        if matches!(r.status, Status::Skipped(_)) {
            continue;
        }
        checked += 1;
        if let Status::Failed(note) = &r.status {
            failures.push(format!(
                "{}-D {} batch of {}: {note}",
                r.dims,
                r.label(),
                r.batch
            ));
        } else if r.over_tolerance > 0 {
            failures.push(format!(
                "{}-D {} batch of {}: {} of {} sampled integrals converged with a true error \
                 over the tolerance {:.0e} (worst {:.1e})",
                r.dims,
                r.label(),
                r.batch,
                r.over_tolerance,
                r.sampled,
                r.tolerance.unwrap_or(0.0),
                r.worst_error
            ));
        }
    }
    (failures, checked)
}

/// The picture of the paper's Figures 2 and 3: integrals per second against batch size, one
/// panel per dimension, one curve per method and device.
pub fn chart(rows: &[Row], title: &str) -> Chart {
    let mut panels: Vec<Panel> = Vec::new();
    for dims in [1, 2] {
        let mut series: Vec<Series> = Vec::new();
        for r in rows.iter().filter(|r| r.dims == dims) {
            let Some(rate) = r.per_second() else { continue };
            let point = (r.batch as f64, rate, r.status == Status::Converged);
            match series.iter_mut().find(|s| s.label == r.label()) {
                Some(s) => s.points.push(point),
                None => series.push(Series {
                    label: r.label(),
                    points: vec![point],
                }),
            }
        }
        if !series.is_empty() {
            panels.push(Panel {
                caption: match dims {
                    1 => "1-D: ∫₀ᵖ dx/(1+x²)".to_string(),
                    _ => "2-D: ∫₀ᵖ∫₀ᵖ dx dy/((1+x²)(1+y²))".to_string(),
                },
                series,
            });
        }
    }
    Chart {
        title: title.to_string(),
        x_desc: "integrals in the batch".into(),
        y_desc: "integrals per second".into(),
        panels,
    }
}
