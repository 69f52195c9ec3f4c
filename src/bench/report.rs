//! The sweep's files and its text summary.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use serde_json::json;

use super::suite::{Reference, PI};
use super::{Point, Work};
use crate::options::{Device, Precision};

/// The CSV columns, in order.
pub const CSV_HEADER: &str = "integral,method,precision,device,work,tolerance,intervals,status,\
digits,error_estimate,actual_error,evaluations,levels,seconds,repeats,ran_on,value,note";

/// The points as CSV, one line each, failed and skipped points included (their measured
/// columns empty).
pub fn csv(points: &[Point]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for p in points {
        let (tolerance, intervals) = work_columns(p.work);
        let mut fields = vec![
            p.integral.clone(),
            p.method.to_string(),
            p.precision.to_string(),
            p.device.to_string(),
            p.work.to_string(),
            tolerance,
            intervals,
            p.status.label().to_string(),
        ];
        match &p.measurement {
            Some(m) => fields.extend([
                format!("{:.2}", m.digits),
                format!("{:.3e}", m.error_estimate),
                format!("{:.3e}", m.actual_error),
                m.evaluations.to_string(),
                m.levels.to_string(),
                format!("{:.6e}", m.seconds),
                m.repeats.to_string(),
                m.ran_on.clone(),
                m.value.clone(),
            ]),
            None => fields.extend(std::iter::repeat_n(String::new(), 9)),
        }
        fields.push(p.status.note().to_string());
        let line: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
pub fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

fn work_columns(work: Work) -> (String, String) {
    match work {
        Work::Tolerance(t) => (format!("{t:e}"), String::new()),
        Work::Intervals(n) => (String::new(), n.to_string()),
    }
}

/// The sweep as JSON: the machine, the references used (with their provenance) and every
/// point.
pub fn json(points: &[Point], references: &[Reference], machine: &str) -> serde_json::Value {
    let used: Vec<&Reference> = references
        .iter()
        .filter(|r| points.iter().any(|p| p.integral == r.name))
        .collect();
    let points: Vec<serde_json::Value> = points
        .iter()
        .map(|p| {
            let (tolerance, intervals) = match p.work {
                Work::Tolerance(t) => (Some(t), None),
                Work::Intervals(n) => (None, Some(n)),
            };
            let mut v = json!({
                "integral": p.integral,
                "method": p.method,
                "precision": p.precision.to_string(),
                "device": p.device.to_string(),
                "work": p.work.to_string(),
                "tolerance": tolerance,
                "intervals": intervals,
                "status": p.status.label(),
                "note": p.status.note(),
            });
            if let (Some(m), Some(map)) = (&p.measurement, v.as_object_mut()) {
                // Non-finite floats have no JSON form; an infinite error is written as null.
                let finite = |x: f64| x.is_finite().then_some(x);
                map.insert("digits".into(), json!(m.digits));
                map.insert("error_estimate".into(), json!(finite(m.error_estimate)));
                map.insert("actual_error".into(), json!(finite(m.actual_error)));
                map.insert("evaluations".into(), json!(m.evaluations));
                map.insert("levels".into(), json!(m.levels));
                map.insert("seconds".into(), json!(m.seconds));
                map.insert("repeats".into(), json!(m.repeats));
                map.insert("ran_on".into(), json!(m.ran_on));
                map.insert("value".into(), json!(m.value));
            }
            v
        })
        .collect();
    json!({
        "machine": machine,
        "references": used,
        "points": points,
    })
}

/// Writes `points.csv` and `points.json` into `dir` (created if needed).
pub fn write_files(
    dir: &Path,
    points: &[Point],
    references: &[Reference],
    machine: &str,
) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("points.csv"), csv(points))?;
    let text = serde_json::to_string_pretty(&json(points, references, machine))
        .map_err(io::Error::other)?;
    std::fs::write(dir.join("points.json"), text + "\n")?;
    Ok(())
}

/// A time for people: µs, ms or s with three significant digits.
pub fn human_time(seconds: f64) -> String {
    let (x, unit) = if seconds < 1e-3 {
        (seconds * 1e6, "µs")
    } else if seconds < 1.0 {
        (seconds * 1e3, "ms")
    } else {
        (seconds, "s")
    };
    let decimals = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.decimals$} {unit}")
}

/// The summary, one paragraph per precision and device: the digits of π reached and the
/// cheapest point that reached them, then the suite as a whole (best digits per integral,
/// points that did not converge, failed or were skipped).
pub fn summary(points: &[Point], references: &[Reference]) -> String {
    let mut out = String::new();
    let mut pairs: Vec<(Precision, Device)> = Vec::new();
    for p in points {
        if !pairs.contains(&(p.precision, p.device)) {
            pairs.push((p.precision, p.device));
        }
    }
    for (precision, device) in pairs {
        let mine: Vec<&Point> = points
            .iter()
            .filter(|p| p.precision == precision && p.device == device)
            .collect();
        let _ = write!(out, "{precision}, {device}: ");
        match best_of(&mine, PI) {
            Some((p, digits)) => {
                if let Some(m) = &p.measurement {
                    let _ = writeln!(
                        out,
                        "{digits} digits of π in {}, {} evaluations ({}, {})",
                        human_time(m.seconds),
                        m.evaluations,
                        p.method,
                        p.work
                    );
                }
            }
            None => {
                let _ = writeln!(out, "π not measured");
            }
        }
        let mut best = Vec::new();
        for r in references {
            if let Some((p, digits)) = best_of(&mine, &r.name) {
                if let Some(m) = &p.measurement {
                    best.push(format!("{} {digits} ({})", r.name, human_time(m.seconds)));
                }
            }
        }
        if !best.is_empty() {
            let _ = writeln!(out, "    best digits: {}", best.join(", "));
        }
        let count = |label: &str| mine.iter().filter(|p| p.status.label() == label).count();
        let _ = writeln!(
            out,
            "    {} points: {} converged, {} not converged, {} failed, {} skipped",
            mine.len(),
            count("converged"),
            count("not converged"),
            count("failed"),
            count("skipped")
        );
    }
    out
}

/// The point of `integral` with the most whole correct digits, the fastest among those that
/// reach that many, and the digits (floored).
fn best_of<'a>(points: &[&'a Point], integral: &str) -> Option<(&'a Point, u32)> {
    let measured = || {
        points
            .iter()
            .filter(move |p| p.integral == integral)
            .filter_map(|p| p.measurement.as_ref().map(|m| (*p, m)))
    };
    let most = measured().map(|(_, m)| m.digits.floor() as u32).max()?;
    measured()
        .filter(|(_, m)| m.digits.floor() as u32 == most)
        .min_by(|a, b| a.1.seconds.total_cmp(&b.1.seconds))
        .map(|(p, _)| (p, most))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_fields_with_commas() {
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"x\", y"), "\"say \"\"x\"\", y\"");
    }

    #[test]
    fn times_for_people() {
        assert_eq!(human_time(0.0123), "12.3 ms");
        assert_eq!(human_time(2.0), "2.00 s");
        assert_eq!(human_time(5e-6), "5.00 µs");
        assert_eq!(human_time(0.274), "274 ms");
    }
}
