//! `hpquad integrate EXPR --param p=START:STOP:COUNT --out results.csv`: one integral per
//! tuple of parameter values, written one line each (CSV, or JSON by the extension .json).
//!
//! Parameters: `NAME=START:STOP:COUNT` is COUNT evenly spaced values, computed in the working
//! precision from the decimal text of START and STOP; `NAME=@FILE.csv` is the column of FILE
//! whose header is NAME. Several ranges make a grid (every combination, the first parameter
//! varying slowest); the columns of one file are read row by row, together; a file and ranges
//! combine as a grid of the file's rows and the ranges.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hpquad::{Batch, BatchEstimate, BatchMethod, Error, ParamRange, ParamValue, Precision};
use rayon::prelude::*;

use super::integrate::{IntegrateArgs, NOT_CONVERGED};
use super::progress::with_spinner;
use super::CliError;

/// The most integrals one command runs.
const MAX_ROWS: u64 = 100_000_000;

/// The options of a sweep, flattened into `hpquad integrate`.
#[derive(clap::Args, Debug, Default)]
pub struct SweepArgs {
    /// A parameter of the integrand and the bounds: NAME=START:STOP:COUNT (evenly spaced) or
    /// NAME=@FILE.csv (the column NAME of the file); repeat for several.
    #[arg(long = "param", value_name = "NAME=VALUES")]
    pub params: Vec<String>,
    /// Write one line per integral to this file: CSV, or JSON if it ends in .json [default:
    /// CSV on stdout].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The method of a sweep: faq, simpson or gauss-kronrod.
    #[arg(long, default_value = "gauss-kronrod")]
    pub batch_method: BatchMethod,
    /// Lower y bound: integrates over the rectangle [from, to] × [y-from, y-to] (by Fubini).
    #[arg(long, allow_hyphen_values = true, requires = "y_to")]
    pub y_from: Option<String>,
    /// Upper y bound.
    #[arg(long, allow_hyphen_values = true, requires = "y_from")]
    pub y_to: Option<String>,
    /// FAQ's smallest and largest steps as fractions of the interval, MIN:MAX [default:
    /// 0.01:0.35].
    #[arg(long)]
    pub faq_steps: Option<String>,
}

impl SweepArgs {
    /// Whether the command is a sweep.
    pub fn is_sweep(&self) -> bool {
        !self.params.is_empty()
    }
}

/// One --param: its name and its values.
enum Source {
    Range {
        start: String,
        stop: String,
        count: u64,
    },
    Column(PathBuf),
}

/// Runs a sweep; the exit code is 3 when any integral failed or missed its tolerance.
pub fn run(args: &IntegrateArgs) -> Result<u8, CliError> {
    let sweep = &args.sweep;
    let mut names = Vec::new();
    let mut sources = Vec::new();
    for param in &sweep.params {
        let (name, values) = param.split_once('=').ok_or_else(|| {
            CliError::input(format!(
                "--param {param}: write NAME=START:STOP:COUNT or NAME=@FILE.csv"
            ))
        })?;
        names.push(name.trim().to_string());
        sources.push(parse_source(name, values.trim())?);
    }
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut batch = match (&sweep.y_from, &sweep.y_to) {
        (Some(y0), Some(y1)) => Batch::new_2d(&args.expression, &name_refs)
            .map_err(CliError::input)?
            .y_bounds(y0, y1),
        _ => Batch::new(&args.expression, &name_refs).map_err(CliError::input)?,
    }
    .bounds(&args.from, &args.to)
    .method(sweep.batch_method)
    .precision(args.precision)
    // auto: the GPU for sweeps of at least GPU_MIN_BATCH integrals when one is present;
    // gpu: every sweep on the GPU.
    .device(args.device);
    if let Some(tol) = args.tol {
        batch = batch.tolerance(tol);
    }
    if let Some(tol) = args.abs_tol {
        batch = batch.abs_tolerance(tol);
    }
    if let Some(n) = args.max_evals {
        batch = batch.max_evaluations(n);
    }
    if let Some(n) = args.threads {
        batch = batch.threads(n);
    }
    if let Some(steps) = &sweep.faq_steps {
        let parsed = steps
            .split_once(':')
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)));
        let Some((min, max)) = parsed else {
            return Err(CliError::input(format!(
                "--faq-steps {steps}: write MIN:MAX, e.g. 0.01:0.35"
            )));
        };
        batch = batch.steps(min, max);
    }
    let json = sweep.out.as_ref().is_some_and(|p| {
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    });
    // Ranges alone are a sweep: its results come as columns, with no tuple built per row;
    // a file's values go tuple by tuple.
    let ranges: Option<Vec<ParamRange>> = sources
        .iter()
        .map(|s| match s {
            Source::Range { start, stop, count } => Some(ParamRange::new(start, stop, *count)),
            Source::Column(_) => None,
        })
        .collect();
    let (text, n, failed, missed) = match ranges {
        Some(ranges) => {
            let total = ranges
                .iter()
                .try_fold(1u64, |n, r| n.checked_mul(r.count))
                .filter(|&n| n <= MAX_ROWS);
            if total.is_none() {
                return Err(CliError::input(format!(
                    "the parameters make more than {MAX_ROWS} integrals"
                )));
            }
            let columns =
                with_spinner("integrating", || batch.sweep(&ranges)).map_err(CliError::of)?;
            let points = ranges
                .iter()
                .map(|r| shown_points(r, args.precision))
                .collect::<Result<Vec<_>, _>>()?;
            let shown = |i: usize| -> Vec<String> {
                columns
                    .point(i)
                    .iter()
                    .zip(&points)
                    .map(|(&k, show)| show(k))
                    .collect()
            };
            let text = write_rows(args, json, &names, columns.len(), shown, |i| columns.row(i));
            let failed = columns.failures().len();
            let converged = columns.converged().iter().filter(|&&c| c).count();
            (
                text,
                columns.len(),
                failed,
                columns.len() - failed - converged,
            )
        }
        None => {
            let rows = tuples(&names, &sources)?;
            let results =
                with_spinner("integrating", || batch.compute(&rows)).map_err(CliError::of)?;
            let shown = |i: usize| -> Vec<String> {
                rows[i].iter().map(|v| show(v, args.precision)).collect()
            };
            let text = write_rows(args, json, &names, rows.len(), shown, |i| {
                results[i].as_ref().cloned()
            });
            let failed = results.iter().filter(|r| r.is_err()).count();
            let missed = results
                .iter()
                .filter(|r| matches!(r, Ok(e) if !e.converged))
                .count();
            (text, rows.len(), failed, missed)
        }
    };
    match &sweep.out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| CliError::input(format!("could not write {}: {e}", path.display())))?,
        None => print!("{text}"),
    }
    if failed + missed > 0 {
        eprintln!(
            "warning: of {n} integrals, {failed} failed and {missed} missed the tolerance (their \
             lines say which)"
        );
        return Ok(NOT_CONVERGED);
    }
    Ok(0)
}

fn parse_source(name: &str, values: &str) -> Result<Source, CliError> {
    if let Some(file) = values.strip_prefix('@') {
        return Ok(Source::Column(PathBuf::from(file)));
    }
    let parts: Vec<&str> = values.split(':').collect();
    let [start, stop, count] = parts[..] else {
        return Err(CliError::input(format!(
            "--param {name}={values}: write START:STOP:COUNT, e.g. {name}=0.5:100:1000"
        )));
    };
    let count: u64 = count
        .trim()
        .parse()
        .ok()
        .filter(|&c| c >= 1)
        .ok_or_else(|| {
            CliError::input(format!(
                "--param {name}={values}: the count '{count}' is not a whole number of at least 1"
            ))
        })?;
    for end in [start, stop] {
        ParamValue::from(end)
            .value::<f64>()
            .map_err(|e| CliError::input(format!("--param {name}={values}: {e}")))?;
    }
    Ok(Source::Range {
        start: start.trim().to_string(),
        stop: stop.trim().to_string(),
        count,
    })
}

/// The tuples: the file's rows (columns of one file together), times every range.
fn tuples(names: &[String], sources: &[Source]) -> Result<Vec<Vec<ParamValue>>, CliError> {
    // Each factor is a list of partial tuples over some of the parameters (by index).
    let mut factors: Vec<(Vec<usize>, Vec<Vec<ParamValue>>)> = Vec::new();
    let mut files: Vec<(PathBuf, Vec<usize>)> = Vec::new();
    for (k, source) in sources.iter().enumerate() {
        match source {
            Source::Range { start, stop, count } => factors.push((
                vec![k],
                (0..*count)
                    .map(|i| vec![ParamValue::linspace(start, stop, i, *count)])
                    .collect(),
            )),
            Source::Column(path) => match files.iter_mut().find(|(p, _)| p == path) {
                Some((_, ks)) => ks.push(k),
                None => files.push((path.clone(), vec![k])),
            },
        }
    }
    for (path, ks) in files {
        let wanted: Vec<&str> = ks.iter().map(|&k| names[k].as_str()).collect();
        factors.insert(0, (ks, read_columns(&path, &wanted)?));
    }
    let total = factors
        .iter()
        .try_fold(1u64, |n, (_, rows)| n.checked_mul(rows.len() as u64))
        .filter(|&n| n <= MAX_ROWS)
        .ok_or_else(|| {
            CliError::input(format!(
                "the parameters make more than {MAX_ROWS} integrals"
            ))
        })?;
    let mut out: Vec<Vec<Option<ParamValue>>> = vec![vec![None; names.len()]];
    for (ks, rows) in &factors {
        let mut next = Vec::with_capacity(out.len() * rows.len());
        for partial in &out {
            for row in rows {
                let mut t = partial.clone();
                for (&k, v) in ks.iter().zip(row) {
                    t[k] = Some(v.clone());
                }
                next.push(t);
            }
        }
        out = next;
    }
    debug_assert_eq!(out.len() as u64, total);
    Ok(out
        .into_iter()
        .map(|t| t.into_iter().flatten().collect())
        .collect())
}

/// The columns `wanted` of a CSV file with a header line, as decimal text, checked to be
/// numbers.
fn read_columns(path: &Path, wanted: &[&str]) -> Result<Vec<Vec<ParamValue>>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("could not read {}: {e}", path.display())))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(CliError::input(format!("{} is empty", path.display())));
    };
    let header: Vec<&str> = header
        .split(',')
        .map(|h| h.trim().trim_matches('"'))
        .collect();
    let mut columns = Vec::new();
    for name in wanted {
        let k = header.iter().position(|h| h == name).ok_or_else(|| {
            CliError::input(format!(
                "{} has no column '{name}' (its header is {}); the column of a parameter is \
                 the one its name heads",
                path.display(),
                header.join(",")
            ))
        })?;
        columns.push(k);
    }
    let mut rows = Vec::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line
            .split(',')
            .map(|c| c.trim().trim_matches('"'))
            .collect();
        let mut row = Vec::new();
        for (&k, name) in columns.iter().zip(wanted) {
            let cell = cells.get(k).copied().unwrap_or("");
            ParamValue::from(cell).value::<f64>().map_err(|e| {
                CliError::input(format!(
                    "{} line {}: the value '{cell}' of {name} is not a number ({e})",
                    path.display(),
                    n + 1
                ))
            })?;
            row.push(ParamValue::from(cell));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// A parameter value as written out: its text as given, or an evenly spaced value to every
/// digit of the precision.
fn show(value: &ParamValue, precision: Precision) -> String {
    match value {
        ParamValue::Text(text) => text.clone(),
        other => {
            let text = match precision {
                Precision::F64 => other.value::<f64>().map(|x| x.to_string()),
                Precision::Dd => other
                    .value::<hpquad::precision::Dd>()
                    .map(|x| x.to_string()),
                Precision::Qd => other
                    .value::<hpquad::precision::Qd>()
                    .map(|x| x.to_string()),
            };
            text.unwrap_or_else(|e| e)
        }
    }
}

/// A range's points as written out, by index: to every digit of the precision, as [`show`]
/// writes an evenly spaced value.
fn shown_points(
    range: &ParamRange,
    precision: Precision,
) -> Result<Box<dyn Fn(u64) -> String + Sync>, CliError> {
    let bad = |e: String| CliError::input(format!("--param {}:{}: {e}", range.start, range.stop));
    Ok(match precision {
        Precision::F64 => {
            let f = range.points::<f64>().map_err(bad)?;
            Box::new(move |k| f(k).to_string())
        }
        Precision::Dd => {
            let f = range.points::<hpquad::precision::Dd>().map_err(bad)?;
            Box::new(move |k| f(k).to_string())
        }
        Precision::Qd => {
            let f = range.points::<hpquad::precision::Qd>().map_err(bad)?;
            Box::new(move |k| f(k).to_string())
        }
    })
}

type Row<'a> = Result<BatchEstimate, &'a Error>;

/// The `n` rows as CSV or JSON: `shown(i)` gives row i's parameters as written, `result(i)`
/// its estimate or error. The rows are formatted on all cores, in order: a qd number's decimal
/// form costs tens of microseconds, and on one thread the text of 10^5 qd integrals took 9.6 s
/// of a 9.9 s sweep whose integrals the GPU computed in 0.05 s.
fn write_rows<'a>(
    args: &IntegrateArgs,
    json: bool,
    names: &[String],
    n: usize,
    shown: impl Fn(usize) -> Vec<String> + Sync,
    result: impl Fn(usize) -> Row<'a> + Sync,
) -> String {
    if json {
        to_json(args, names, n, shown, result)
    } else {
        to_csv(names, n, shown, result)
    }
}

fn to_csv<'a>(
    names: &[String],
    n: usize,
    shown: impl Fn(usize) -> Vec<String> + Sync,
    result: impl Fn(usize) -> Row<'a> + Sync,
) -> String {
    let mut out = String::new();
    let header: Vec<&str> = names.iter().map(String::as_str).collect();
    let _ = writeln!(
        out,
        "{}{}value,error_estimate,evaluations,converged,failure",
        header.join(","),
        if names.is_empty() { "" } else { "," }
    );
    let lines: Vec<String> = (0..n)
        .into_par_iter()
        .map(|i| {
            let values = shown(i);
            let params = values.join(",");
            let sep = if values.is_empty() { "" } else { "," };
            match result(i) {
                Ok(e) => format!(
                    "{params}{sep}{},{:.3e},{},{},\n",
                    e.value, e.error, e.evaluations, e.converged
                ),
                Err(err) => format!(
                    "{params}{sep},,,false,\"{}\"\n",
                    err.to_string().replace('"', "'")
                ),
            }
        })
        .collect();
    out.extend(lines);
    out
}

fn to_json<'a>(
    args: &IntegrateArgs,
    names: &[String],
    n: usize,
    shown: impl Fn(usize) -> Vec<String> + Sync,
    result: impl Fn(usize) -> Row<'a> + Sync,
) -> String {
    let rows: Vec<serde_json::Value> = (0..n)
        .into_par_iter()
        .map(|i| {
            let parameters: serde_json::Map<String, serde_json::Value> = names
                .iter()
                .zip(shown(i))
                .map(|(n, v)| (n.clone(), serde_json::Value::String(v)))
                .collect();
            match result(i) {
                Ok(e) => serde_json::json!({
                    "parameters": parameters,
                    "value": e.value.to_string(),
                    "error_estimate": e.error,
                    "evaluations": e.evaluations,
                    "converged": e.converged,
                }),
                Err(err) => serde_json::json!({
                    "parameters": parameters,
                    "converged": false,
                    "failure": err.to_string(),
                }),
            }
        })
        .collect();
    let doc = serde_json::json!({
        "integrand": args.expression,
        "from": args.from,
        "to": args.to,
        "method": args.sweep.batch_method.to_string(),
        "precision": args.precision.to_string(),
        "integrals": rows,
    });
    format!("{doc:#}\n")
}
