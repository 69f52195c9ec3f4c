//! `hpquad bench`: the reference values against hpquad's own quadrature (independent: MPFR
//! closed forms and tanh-sinh on one side, hpquad's Romberg or tanh-sinh on the other), the digit measure,
//! failed and skipped points, the files and the quick-mode checks; the adaptive family's
//! speedup table, the cubature speedups (their reference π^n against MPFR) and the batch
//! throughput, each with its checks made to fail on a wrong answer.

mod mpfr_support;

use hpquad::bench::report::{self, CSV_HEADER};
use hpquad::bench::suite::{Reference, References, QUICK};
use hpquad::bench::{
    self, check, correct_digits, cubature, speedup, throughput, Config, Curve, Measurement, Point,
    Scale, Status, Work,
};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::{Device, Integral, Method, Precision, Value};
use rug::float::Constant;
use rug::ops::Pow;
use rug::Float;

fn references() -> References {
    References::builtin().expect("the shipped reference file parses")
}

fn hpquad_digits(r: &Reference, method: Method, precision: Precision, tolerance: f64) -> f64 {
    let est = Integral::new(&r.expression)
        .expect("the expression parses")
        .bounds(&r.from, &r.to)
        .method(method)
        .precision(precision)
        .tolerance(tolerance)
        .max_evaluations(1 << 20)
        .compute()
        .expect("integrates");
    correct_digits(&est.value, r).expect("reference parses").0
}

#[test]
fn every_reference_agrees_with_hpquad() {
    let refs = references();
    assert!(refs.integrals.len() >= 9);
    for r in &refs.integrals {
        // The x^(x^x) integrand has an unbounded second derivative at 0, which holds Romberg
        // to about 13 digits; x^(-x) (singular at 0) and the Gaussian on (-∞, ∞) are for
        // tanh-sinh; the others are smooth and reach dd's precision with Romberg.
        let (method, precision, tolerance, want) = match r.name.as_str() {
            "sqrt_exp_cos_xxx" => (Method::Romberg, Precision::F64, 1e-12, 12.0),
            "xpow_mx" | "gauss_inf" => (Method::TanhSinh, Precision::Dd, 1e-28, 27.0),
            _ => (Method::Romberg, Precision::Dd, 1e-28, 27.0),
        };
        let digits = hpquad_digits(r, method, precision, tolerance);
        assert!(
            digits >= want,
            "{}: hpquad's {method} in {precision} agrees with the reference to {digits:.1} digits",
            r.name
        );
    }
}

#[test]
fn references_state_their_provenance() {
    for r in &references().integrals {
        assert!(
            r.trusted_digits >= 64,
            "{} trusts enough digits for qd",
            r.name
        );
        assert!(
            r.provenance.contains("MPFR"),
            "{}: {}",
            r.name,
            r.provenance
        );
        assert!(
            Integral::new(&r.expression).is_ok(),
            "{} parses",
            r.expression
        );
    }
}

#[test]
fn digits_of_pi_in_each_precision() {
    let refs = references();
    let pi = refs.get("pi").expect("π is in the suite");
    // fl(π) = π − 1.2246467991473532e-16, so f64 π has −log10(1.2246e-16 / π) = 16.41 digits.
    let (digits, error) = correct_digits(&Value::F64(std::f64::consts::PI), pi).expect("parses");
    assert!((digits - 16.409).abs() < 0.01, "{digits}");
    assert!((error - 1.2246467991473532e-16).abs() < 1e-30);
    let dd_pi = Dd::parse_decimal(&pi.value).expect("parses");
    let (digits, _) = correct_digits(&Value::Dd(dd_pi), pi).expect("parses");
    assert!((31.0..34.0).contains(&digits), "{digits}");
    // The reference itself, rounded to qd, is capped at the digits a qd reference carries.
    let qd_pi = Qd::parse_decimal(&pi.value).expect("parses");
    assert_eq!(
        correct_digits(&Value::Qd(qd_pi), pi).expect("parses").0,
        63.0
    );
    // An estimate off in the first digit has no correct digits, not a negative count.
    assert_eq!(
        correct_digits(&Value::F64(30.0), pi).expect("parses").0,
        0.0
    );
}

fn curve<'a>(
    reference: &'a Reference,
    method: &str,
    precision: Precision,
    work: Vec<Work>,
) -> Curve<'a> {
    Curve {
        reference,
        method: bench::METHODS
            .iter()
            .find(|m| m.name == method)
            .expect("a registered method"),
        precision,
        device: Device::Cpu,
        work,
    }
}

#[test]
fn a_pole_is_a_failed_point_not_a_missing_one() {
    let pole = Reference {
        name: "pole".into(),
        title: "∫₀¹ 1/x dx".into(),
        kind: "divergent".into(),
        expression: "1/x".into(),
        from: "0".into(),
        to: "1".into(),
        value: "1".into(),
        trusted_digits: 1,
        provenance: "none: the integral diverges".into(),
    };
    let config = Config::new(Scale::Quick);
    let c = curve(&pole, "romberg", Precision::Dd, vec![Work::Tolerance(1e-8)]);
    let points = bench::run_curve(&c, &config, |_| {});
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].status.label(), "failed");
    assert!(points[0].measurement.is_none());
    assert!(!points[0].status.note().is_empty());
}

#[test]
fn a_capped_romberg_curve_skips_the_tolerances_it_cannot_meet() {
    let refs = references();
    let pi = refs.get("pi").expect("π is in the suite");
    let mut config = Config::new(Scale::Quick);
    config.max_evaluations = 65; // enough for 1e-8 (65 points), not for 1e-20
    let work = vec![
        Work::Tolerance(1e-8),
        Work::Tolerance(1e-20),
        Work::Tolerance(1e-30),
    ];
    let mut seen = 0;
    let points = bench::run_curve(&curve(pi, "romberg", Precision::Dd, work), &config, |_| {
        seen += 1
    });
    assert_eq!(seen, 3, "the progress callback sees every point");
    let labels: Vec<&str> = points.iter().map(|p| p.status.label()).collect();
    assert_eq!(labels, ["converged", "not converged", "skipped"]);
    let m = points[1]
        .measurement
        .as_ref()
        .expect("a capped point is measured");
    assert!(m.evaluations <= 65 && m.digits < 20.0);
    // A fixed grid over the cap is skipped before it runs.
    let grid = curve(
        pi,
        "trapezoid",
        Precision::F64,
        vec![Work::Intervals(1 << 10)],
    );
    let points = bench::run_curve(&grid, &config, |_| {});
    assert!(matches!(&points[0].status, Status::Skipped(why) if why.contains("cap")));
}

#[test]
fn quick_sweep_reaches_the_required_digits_and_writes_its_files() {
    let refs = references();
    let mut config = Config::new(Scale::Quick);
    config.filter = vec!["romberg".into(), "pi".into()];
    config.repeats = 1;
    let curves = bench::plan(&refs.integrals, &config);
    assert_eq!(curves.len(), 3 * bench::devices().len());
    let points: Vec<Point> = curves
        .iter()
        .flat_map(|c| bench::run_curve(c, &config, |_| {}))
        .collect();
    let (failures, checked) = check(&points);
    assert_eq!(checked, 3 * bench::devices().len());
    assert!(failures.is_empty(), "{failures:?}");
    for p in &points {
        let m = p.measurement.as_ref().expect("measured");
        assert!(m.seconds > 0.0 && m.evaluations > 0 && m.repeats >= 1);
    }

    let dir = std::env::temp_dir().join(format!("hpquad-bench-test-{}", std::process::id()));
    report::write_files(&dir, &points, &refs.integrals, "test machine").expect("writes");
    let csv = std::fs::read_to_string(dir.join("points.csv")).expect("csv");
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(CSV_HEADER));
    assert_eq!(lines.count(), points.len());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("points.json")).expect("json"))
            .expect("valid JSON");
    assert_eq!(json["points"].as_array().map(Vec::len), Some(points.len()));
    assert_eq!(json["references"][0]["name"], "pi");
    bench::plot::write(
        &points,
        &refs.integrals,
        "test",
        &dir.join("p.svg"),
        &dir.join("p.png"),
    )
    .expect("plots");
    let png = std::fs::read(dir.join("p.png")).expect("png");
    assert_eq!(&png[1..4], b"PNG");
    let svg = std::fs::read_to_string(dir.join("p.svg")).expect("svg");
    assert!(svg.contains("correct digits"));
    let summary = report::summary(&points, &refs.integrals);
    assert!(
        summary.contains("qd, cpu:") && summary.contains("digits of π"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn checks_fail_when_a_precision_misses_its_digits() {
    let mut point = Point {
        integral: QUICK[0].into(),
        method: "romberg",
        precision: Precision::Qd,
        device: Device::Cpu,
        work: Work::Tolerance(1e-60),
        status: Status::Failed("boom".into()),
        measurement: None,
    };
    let (failures, checked) = check(std::slice::from_ref(&point));
    assert_eq!((failures.len(), checked), (1, 1));
    assert!(failures[0].contains("failed"));
    point.work = Work::Tolerance(1e-30);
    assert_eq!(
        check(&[point]).1,
        0,
        "only the tightest tolerance is checked"
    );
}

#[test]
#[ignore = "needs a CUDA device"]
fn gpu_quick_sweep_reaches_the_required_digits() {
    assert!(
        bench::devices().contains(&Device::Gpu),
        "the sweep sees the GPU"
    );
    let refs = references();
    let mut config = Config::new(Scale::Quick);
    config.filter = vec!["gpu".into(), "romberg".into()];
    let points: Vec<Point> = bench::plan(&refs.integrals, &config)
        .iter()
        .flat_map(|c| bench::run_curve(c, &config, |_| {}))
        .collect();
    assert!(points.iter().all(|p| p.device == Device::Gpu));
    let (failures, checked) = check(&points);
    assert_eq!(checked, 3 * QUICK.len());
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn cubature_reference_is_pi_to_the_n_in_mpfr() {
    for n in [1, 3, 8, 16] {
        let r = cubature::reference(n);
        let exact = Float::with_val(mpfr_support::BITS, Constant::Pi).pow(n as u32);
        let value = Float::with_val(
            mpfr_support::BITS,
            Float::parse(&r.value).expect("the reference is a decimal"),
        );
        let error = Float::with_val(mpfr_support::BITS, &value - &exact).abs() / &exact;
        let digits = -error.log10().to_f64();
        assert!(
            digits >= r.trusted_digits as f64,
            "n = {n}: {digits:.1} digits, {} trusted",
            r.trusted_digits
        );
        // The integrand is the product peak in x1..xn.
        assert_eq!(r.expression.matches("x").count(), n);
    }
}

fn measured(digits: f64) -> Measurement {
    Measurement {
        value: "0".into(),
        digits,
        error_estimate: 0.0,
        actual_error: 0.0,
        evaluations: 100,
        levels: 1,
        seconds: 1e-3,
        repeats: 1,
        ran_on: "cpu".into(),
    }
}

fn row(variant: &str, baseline: bool, digits: Option<f64>, status: Status) -> speedup::Row {
    speedup::Row {
        case: "pi".into(),
        precision: Precision::F64,
        tolerance: 1e-12,
        variant: variant.into(),
        baseline,
        device: Device::Cpu,
        threads: 2,
        status,
        measurement: digits.map(measured),
        speedup: None,
    }
}

#[test]
fn speedup_checks_hold_converged_rows_to_their_tolerance() {
    let good = vec![
        row("caq", true, Some(15.0), Status::Converged),
        row("pbcaq", false, Some(12.5), Status::Converged),
        // Not converged: honest, whatever its digits.
        row("scaq", false, Some(3.0), Status::NotConverged),
    ];
    let (failures, checked) = speedup::check(&good);
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(checked, 3, "the baseline ran, two rows converged");
    // A converged row 10^-11.5 off at a tolerance of 1e-12 claims what it did not reach.
    let mut wrong = good.clone();
    wrong[1].measurement = Some(measured(11.5));
    let (failures, _) = speedup::check(&wrong);
    assert_eq!(failures.len(), 1);
    assert!(failures[0].contains("pbcaq"), "{}", failures[0]);
    // A baseline that did not run leaves the case without speedups: a failure.
    let missing = vec![row("caq", true, None, Status::Failed("boom".into()))];
    assert_eq!(speedup::check(&missing).0.len(), 1);
    // One skipped past the budget is not.
    let skipped = vec![row("caq", true, None, Status::Skipped("budget".into()))];
    assert!(speedup::check(&skipped).0.is_empty());
    // Speedups are the baseline's time over the row's.
    let mut rows = good;
    rows[1].measurement.as_mut().expect("measured").seconds = 2.5e-4;
    speedup::fill_speedups(&mut rows);
    assert_eq!(rows[0].speedup, Some(1.0));
    assert_eq!(rows[1].speedup, Some(4.0));
}

fn quick_config() -> Config {
    let mut config = Config::new(Scale::Quick);
    config.repeats = 1;
    config
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("hpquad-bench-{name}-{}", std::process::id()))
}

#[test]
fn family_table_runs_every_scheme_against_caq_and_writes_its_files() {
    let refs = references();
    let config = quick_config();
    let rows = speedup::run_family(&refs.integrals, &config, |_| {});
    let cases = QUICK.len() * 3;
    let per_case = 1 + hpquad::methods::pbcaq::Scheme::ALL.len() * bench::devices().len();
    assert_eq!(rows.len(), cases * per_case);
    assert_eq!(rows.iter().filter(|r| r.baseline).count(), cases);
    for r in &rows {
        assert_eq!(r.status, Status::Converged, "{} {}", r.case, r.label());
        assert!(r.speedup.is_some_and(|s| s > 0.0));
    }
    let (failures, checked) = speedup::check(&rows);
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(checked, cases + rows.len());
    let table = speedup::table(&rows);
    assert_eq!(table.lines().count(), 1 + cases, "{table}");
    assert!(table.contains("pbcaq-g cpu×"), "{table}");

    let dir = temp_dir("speedup");
    speedup::write_files(&dir, "speedup", &rows, "test machine", "test").expect("writes");
    let csv = std::fs::read_to_string(dir.join("speedup.csv")).expect("csv");
    assert_eq!(csv.lines().next(), Some(speedup::CSV_HEADER));
    assert_eq!(csv.lines().count(), rows.len() + 1);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("speedup.json")).expect("json"))
            .expect("valid JSON");
    assert_eq!(json["rows"].as_array().map(Vec::len), Some(rows.len()));
    bench::plot::write_chart(
        &speedup::workload_chart(&rows, "test"),
        &dir.join("s.svg"),
        &dir.join("s.png"),
    )
    .expect("plots");
    assert_eq!(
        &std::fs::read(dir.join("s.png")).expect("png")[1..4],
        b"PNG"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cubature_speedups_meet_their_tolerances_against_pi_to_the_n() {
    let config = quick_config();
    let rows = cubature::run(&config, |_| {});
    // The sequential baseline, parallel CUHRE on each device, gauss-product on the CPU.
    let per_tolerance = 1 + bench::devices().len() + 1;
    assert_eq!(
        rows.len(),
        cubature::dimensions(Scale::Quick).len()
            * cubature::tolerances(Scale::Quick).len()
            * per_tolerance
    );
    for r in &rows {
        let m = r.measurement.as_ref().expect("every quick case runs");
        assert_eq!(r.status, Status::Converged, "{} {}", r.case, r.label());
        // Digits from the closed form: at least the tolerance's (the check's property).
        assert!(m.digits >= -r.tolerance.log10(), "{} {:?}", r.case, m);
    }
    let (failures, _) = speedup::check(&rows);
    assert!(failures.is_empty(), "{failures:?}");
    let chart = speedup::tolerance_chart(&rows, "test");
    // A panel for parallel CUHRE on each device and one for gauss-product.
    assert_eq!(chart.panels.len(), bench::devices().len() + 1);
    assert!(
        rows.iter()
            .any(|r| r.label().contains("gauss-product") && r.speedup.is_some()),
        "gauss-product runs against the baseline"
    );
    assert_eq!(
        chart.panels[0].series.len(),
        cubature::dimensions(Scale::Quick).len(),
        "one curve per dimension"
    );
    let dir = temp_dir("cubature");
    std::fs::create_dir_all(&dir).expect("temp dir");
    bench::plot::write_chart(&chart, &dir.join("c.svg"), &dir.join("c.png")).expect("plots");
    let svg = std::fs::read_to_string(dir.join("c.svg")).expect("svg");
    assert!(svg.contains("relative tolerance") && svg.contains("n=4"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn batch_throughput_measures_every_method_against_the_closed_forms() {
    let config = quick_config();
    let rows = throughput::run(&config, |_| {});
    let (failures, checked) = throughput::check(&rows);
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(checked, rows.len(), "no quick batch is skipped");
    for r in &rows {
        assert!(r.per_second().is_some_and(|x| x > 0.0));
        // Each quick batch is sampled whole (at most SAMPLE integrals).
        assert_eq!(r.sampled, r.batch.min(throughput::SAMPLE));
        match r.method {
            // Converged at 1e-6 in f64 (1e-50 in qd) and measured within it against atan p.
            "gauss-kronrod" => {
                let tolerance = r.tolerance.expect("a tolerance");
                assert_eq!(r.converged, r.batch, "{}", r.label());
                assert!(
                    r.worst_error <= tolerance,
                    "{} {}",
                    r.label(),
                    r.worst_error
                );
            }
            // MATLAB's scheme holds each panel to the tolerance, so the sum over its three
            // starting panels may miss it: some integrals do not converge, honestly, and
            // those that do are within it (the check above).
            "simpson" => assert!(r.converged > 0, "{}", r.label()),
            // FAQ has no tolerance: its errors are those of its steps (about 1e-2 here), and
            // still answers of the right size.
            _ => assert!(r.worst_error < 0.1, "{} {}", r.label(), r.worst_error),
        }
    }
    assert!(rows.iter().any(|r| r.dims == 2 && r.method == "faq"));
    assert!(rows
        .iter()
        .any(|r| r.precision == Precision::Qd && r.tolerance == Some(throughput::QD_TOLERANCE)));
    let table = throughput::table(&rows);
    assert!(table.contains("2-D faq cpu×1"), "{table}");
    assert!(table.contains("1-D gauss-kronrod qd cpu×1"), "{table}");
    let csv = throughput::csv(&rows);
    assert_eq!(csv.lines().next(), Some(throughput::CSV_HEADER));
    assert_eq!(csv.lines().count(), rows.len() + 1);
    // A converged integral outside its tolerance fails the check.
    let mut wrong = rows.clone();
    wrong[0].over_tolerance = 1;
    assert_eq!(throughput::check(&wrong).0.len(), 1);
}

/// A closed form of a large workload in MPFR.
fn workload_closed_form(name: &str) -> Float {
    let f = |x: f64| Float::with_val(mpfr_support::BITS, x);
    let pi = Float::with_val(mpfr_support::BITS, Constant::Pi);
    match name {
        // 3 (1 − e^(−3L)) / (9 + 25π²)
        "exp_m3x_cos5pix_10" | "exp_m3x_cos5pix_20" => {
            let l = if name.ends_with("_10") { 10.0 } else { 20.0 };
            let decay = f(-3.0 * l).exp();
            let denominator = f(9.0) + f(25.0) * pi.clone().pow(2u32);
            (f(1.0) - decay) * f(3.0) / denominator
        }
        // (e^14 (2 sin 21 − 3 cos 21) + 3) / 13
        "exp2x_sin3x_7" => {
            let bracket = f(21.0).sin() * f(2.0) - f(21.0).cos() * f(3.0);
            (f(14.0).exp() * bracket + f(3.0)) / f(13.0)
        }
        // 140 sin 140 + cos 140 − 1 − (68³ + 8) / 3
        "4xcos2x_70" => {
            f(140.0).sin() * f(140.0) + f(140.0).cos()
                - f(1.0)
                - (f(68.0).pow(3u32) + f(8.0)) / f(3.0)
        }
        other => panic!("no closed form for {other}"),
    }
}

#[test]
fn large_workloads_match_their_closed_forms_in_mpfr() {
    for w in &speedup::WORKLOADS {
        let exact = workload_closed_form(w.name);
        let value = Float::with_val(
            mpfr_support::BITS,
            Float::parse(w.value).expect("the value is a decimal"),
        );
        let error =
            Float::with_val(mpfr_support::BITS, &value - &exact).abs() / exact.clone().abs();
        let digits = -error.log10().to_f64();
        assert!(
            digits >= speedup::WORKLOAD_DIGITS as f64,
            "{}: {digits:.1} digits, {} trusted",
            w.name,
            speedup::WORKLOAD_DIGITS
        );
        assert!(
            Integral::new(w.expression).is_ok(),
            "{} parses",
            w.expression
        );
        assert!(w.reference().provenance.contains(w.closed_form));
    }
}

#[test]
fn large_table_runs_the_papers_pair_against_caq_and_holds_every_row_to_its_tolerance() {
    let config = quick_config();
    let rows = speedup::run_large(&config, |_| {});
    let cases = speedup::large_cases(Scale::Quick);
    // Trapezoid–Simpson: CAQ, BCAQ, PBCAQ; Gauss–Kronrod: CAQ, tanh-sinh, Gauss–Kronrod,
    // PBCAQ; each with PBCAQ on the GPU where there is one.
    let gpu = usize::from(bench::devices().contains(&Device::Gpu));
    let expected: usize = cases
        .iter()
        .map(|c| match c.3 {
            speedup::Pairing::TrapezoidSimpson => 3 + gpu,
            speedup::Pairing::GaussKronrod => 4 + gpu,
        })
        .sum();
    assert_eq!(rows.len(), expected);
    assert_eq!(rows.iter().filter(|r| r.baseline).count(), cases.len());
    for r in &rows {
        assert_eq!(r.status, Status::Converged, "{} {}", r.case, r.label());
        assert!(r.speedup.is_some_and(|s| s > 0.0));
    }
    // BCAQ makes PBCAQ's steps where both cut the CPU's regions: the same evaluations.
    for pair in rows.windows(2) {
        if pair[0].variant == "bcaq" && pair[1].variant == "pbcaq" {
            let evaluations = |r: &speedup::Row| r.measurement.as_ref().map(|m| m.evaluations);
            assert_eq!(
                evaluations(&pair[0]),
                evaluations(&pair[1]),
                "{}",
                pair[0].case
            );
        }
    }
    let (failures, checked) = speedup::check(&rows);
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(checked, cases.len() + rows.len());
    let table = speedup::long_table(&rows);
    assert_eq!(table.lines().count(), 1 + rows.len(), "{table}");
    assert!(table.contains("exp_m3x_cos5pix_10 ts"), "{table}");
    // A converged row off by more than its tolerance fails the check.
    let mut wrong = rows.clone();
    let tolerance = wrong[1].tolerance;
    if let Some(m) = wrong[1].measurement.as_mut() {
        m.digits = -tolerance.log10() - 1.0;
    }
    assert_eq!(speedup::check(&wrong).0.len(), 1);
}
