//! `hpquad bench`: sweeps method × precision × device × work over the reference suite, then
//! the adaptive family's speedups over CAQ, CUHRE's speedups over sequential CUHRE and the
//! batch methods' integrals per second; writes CSV, JSON, plots and a report (see
//! `hpquad::bench`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hpquad::bench::report::{self, human_time};
use hpquad::bench::suite::References;
use hpquad::bench::{self, cubature, plot, speedup, throughput, Config, Scale};
use indicatif::{ProgressBar, ProgressStyle};

use super::CliError;

/// Options of `hpquad bench`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Filter words: trapezoid, richardson, romberg, tanh-sinh, gauss-legendre, \
    gauss-kronrod, auto, caq, bcaq, pbcaq; f64, dd, qd; cpu, gpu; \
    or an integral's name (pi, exp_cos, ...). Words of one kind are alternatives, kinds \
    combine: `--filter romberg,qd` runs Romberg in qd on every device. The filter selects \
    points of the sweep; with a filter and no --parts only the sweep runs.\n\
    Parts: sweep (digits against time: points.csv/json, digits-vs-time.svg/png); speedup \
    (every scheme of the adaptive family over CAQ on one thread: speedup.csv/json/svg/png); \
    large (the paper's regime: the largest Table 2 workloads, CAQ on one thread against BCAQ, \
    PBCAQ on all cores and on the GPU, trapezoid-Simpson and Gauss-Kronrod: \
    speedup-large.csv/json); \
    cubature (parallel CUHRE and gauss-product over sequential CUHRE on one thread against \
    tolerance, n = 3..8 on Genz's product peak: cubature.csv/json/svg/png); batch (integrals \
    per second against batch size for FAQ, adaptive Simpson and batched Gauss-Kronrod, 1-D \
    and 2-D, one thread, all cores and the GPU: throughput.csv/json/svg/png). The report \
    (report.txt) has a section for each.\n\
    Exit codes: 0 done and every check passed (each precision's digits in the sweep; every \
    converged speedup, cubature and batch result within its tolerance against the \
    reference), 1 a check failed (or the files could not be written), 2 bad input."
)]
pub struct BenchArgs {
    /// The CI smoke test: the quick suite, two amounts of work per method, n = 3, 4 for the
    /// cubature, batches of 10^3 and 10^4; a few seconds.
    #[arg(long)]
    pub quick: bool,
    /// What to run (comma-separated): sweep, speedup, large, cubature, batch [default: all; only
    /// the sweep when --filter is given].
    #[arg(long, value_delimiter = ',')]
    pub parts: Vec<String>,
    /// Where the files go (created if needed).
    #[arg(long, default_value = "target/bench")]
    pub out: PathBuf,
    /// Run only what these words select (comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    pub filter: Vec<String>,
    /// Cap on the evaluations of one point [default: 2^22, quick 2^18].
    #[arg(long)]
    pub max_evals: Option<u64>,
    /// Seconds one point may take before the rest of its curve is skipped [default: 3,
    /// quick 1].
    #[arg(long)]
    pub budget: Option<f64>,
    /// Most timed runs per point after the warm-up [default: 5, quick 3].
    #[arg(long)]
    pub repeats: Option<usize>,
    /// CPU worker threads [default: all cores].
    #[arg(long, short)]
    pub threads: Option<usize>,
}

pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let started = Instant::now();
    let mut config = Config::new(if args.quick {
        Scale::Quick
    } else {
        Scale::Full
    });
    config.filter = args.filter.iter().map(|w| w.trim().to_string()).collect();
    config.filter.retain(|w| !w.is_empty());
    if let Some(n) = args.max_evals {
        config.max_evaluations = n;
    }
    if let Some(seconds) = args.budget {
        config.long_point = Duration::try_from_secs_f64(seconds)
            .map_err(|_| CliError::input(format!("--budget {seconds}: give seconds >= 0")))?;
    }
    if let Some(n) = args.repeats {
        config.repeats = n.max(1);
    }
    config.threads = args.threads.unwrap_or(0);

    let references = References::builtin().map_err(CliError::computation)?;
    let unknown = config.unknown_filter_words(&references.integrals);
    if !unknown.is_empty() {
        return Err(CliError::input(format!(
            "--filter: unknown word(s) {}; see `hpquad bench --help`",
            unknown.join(", ")
        )));
    }
    let parts = Parts::from_args(&args.parts, !config.filter.is_empty())?;
    let machine = machine();
    say!(
        "hpquad bench{} on {machine}",
        if args.quick { " --quick" } else { "" }
    );
    let mut report = String::new();
    let mut failures: Vec<String> = Vec::new();
    let mut checked = 0;
    let mut written: Vec<String> = Vec::new();
    let write_error =
        |what: &str, e: std::io::Error| CliError::computation(format!("writing {what}: {e}"));

    if parts.sweep {
        let curves = bench::plan(&references.integrals, &config);
        if curves.is_empty() {
            return Err(CliError::input("--filter selects nothing to run"));
        }
        let total: usize = curves.iter().map(|c| c.work.len()).sum();
        say!(
            "sweep: {} integrals, {} curves, {total} points",
            {
                let mut names: Vec<&str> =
                    curves.iter().map(|c| c.reference.name.as_str()).collect();
                names.dedup();
                names.len()
            },
            curves.len()
        );
        let bar = progress(total as u64, "points");
        let mut points = Vec::with_capacity(total);
        for curve in &curves {
            bar.set_message(format!(
                "{} {} {} {}",
                curve.reference.name, curve.method.name, curve.precision, curve.device
            ));
            points.extend(bench::run_curve(curve, &config, |_| bar.inc(1)));
            // The CSV so far, so that an interrupted sweep leaves its points behind; the final
            // write below reports any error.
            if std::fs::create_dir_all(&args.out).is_ok() {
                let _ = std::fs::write(args.out.join("points.csv"), report::csv(&points));
            }
        }
        bar.finish_and_clear();
        let summary = report::summary(&points, &references.integrals);
        section(&mut report, "Digits against time", &summary);
        report::write_files(&args.out, &points, &references.integrals, &machine)
            .map_err(|e| write_error(&args.out.display().to_string(), e))?;
        let title = format!("hpquad bench: correct digits against time ({machine})");
        plot::write(
            &points,
            &references.integrals,
            &title,
            &args.out.join("digits-vs-time.svg"),
            &args.out.join("digits-vs-time.png"),
        )
        .map_err(CliError::computation)?;
        written.extend(["points.csv/json".into(), "digits-vs-time.svg/png".into()]);
        let (mut f, n) = bench::check(&points);
        if n > 0 && f.is_empty() {
            say!(
                "sweep checks: {n} passed (every adaptive method at the tightest tolerance \
                 reaches f64 {}, dd {}, qd {} digits on the quick suite)",
                bench::required_digits(hpquad::Precision::F64),
                bench::required_digits(hpquad::Precision::Dd),
                bench::required_digits(hpquad::Precision::Qd)
            );
        }
        failures.append(&mut f);
        checked += n;
    }

    if parts.speedup {
        let bar = progress(0, "runs");
        bar.set_message("adaptive family");
        let rows = speedup::run_family(&references.integrals, &config, |_| bar.inc(1));
        bar.finish_and_clear();
        let text = format!(
            "Speedup of each scheme (Gauss-Kronrod pair) over CAQ on one CPU thread; `*`: did \
             not converge\n{}",
            speedup::table(&rows)
        );
        section(&mut report, "Adaptive family: speedup over CAQ", &text);
        speedup::write_files(
            &args.out,
            "speedup",
            &rows,
            &machine,
            "every scheme of the adaptive family (Gauss-Kronrod pair) over CAQ on one CPU \
             thread, per integral, precision and tolerance",
        )
        .map_err(|e| write_error("speedup.csv/json", e))?;
        let title =
            format!("hpquad bench: adaptive family, speedup over CAQ on one thread ({machine})");
        plot::write_chart(
            &speedup::workload_chart(&rows, &title),
            &args.out.join("speedup.svg"),
            &args.out.join("speedup.png"),
        )
        .map_err(CliError::computation)?;
        written.push("speedup.csv/json/svg/png".into());
        let (mut f, n) = speedup::check(&rows);
        say!("speedup checks: {} of {n} passed (every converged scheme within its tolerance, every baseline ran)", n - f.len());
        failures.append(&mut f);
        checked += n;
    }

    if parts.large {
        let bar = progress(0, "runs");
        bar.set_message("large workloads");
        let rows = speedup::run_large(&config, |_| bar.inc(1));
        bar.finish_and_clear();
        let what = "the largest Table 2 workloads of the PBCAQ paper: CAQ on one CPU thread (the \
                    baseline), BCAQ, PBCAQ on all cores and on the GPU with the trapezoid-Simpson \
                    pair (ts); with Gauss-Kronrod (gk), against tanh-sinh and adaptive \
                    Gauss-Kronrod";
        let text = format!("{what}; true err: relative\n{}", speedup::long_table(&rows));
        section(&mut report, "Adaptive family: large workloads", &text);
        speedup::write_files(&args.out, "speedup-large", &rows, &machine, what)
            .map_err(|e| write_error("speedup-large.csv/json", e))?;
        written.push("speedup-large.csv/json".into());
        let (mut f, n) = speedup::check(&rows);
        say!("large-workload checks: {} of {n} passed (every converged run within its tolerance of the closed form, every baseline ran)", n - f.len());
        failures.append(&mut f);
        checked += n;
    }

    if parts.cubature {
        let bar = progress(0, "runs");
        bar.set_message("cubature");
        let rows = cubature::run(&config, |_| bar.inc(1));
        bar.finish_and_clear();
        let text = format!(
            "Parallel CUHRE and the tensor-product Gauss method over sequential CUHRE on one \
             CPU thread, f64, Genz product peak Π 1/(1/4 + (x_i - 1/2)^2) on [0,1]^n (= π^n); \
             `*`: did not converge\n{}",
            speedup::table(&rows)
        );
        section(
            &mut report,
            "Cubature: speedup over sequential CUHRE",
            &text,
        );
        speedup::write_files(
            &args.out,
            "cubature",
            &rows,
            &machine,
            "parallel CUHRE and gauss-product over sequential CUHRE on one CPU thread, f64, \
             Genz product peak with c = 2 on [0,1]^n, reference π^n",
        )
        .map_err(|e| write_error("cubature.csv/json", e))?;
        let title =
            format!("hpquad bench: cubature speedup against tolerance, product peak ({machine})");
        plot::write_chart(
            &speedup::tolerance_chart(&rows, &title),
            &args.out.join("cubature.svg"),
            &args.out.join("cubature.png"),
        )
        .map_err(CliError::computation)?;
        written.push("cubature.csv/json/svg/png".into());
        let (mut f, n) = speedup::check(&rows);
        say!("cubature checks: {} of {n} passed (every converged run within its tolerance of π^n, every baseline ran)", n - f.len());
        failures.append(&mut f);
        checked += n;
    }

    if parts.batch {
        let bar = progress(0, "batches");
        bar.set_message("batches");
        let rows = throughput::run(&config, |_| bar.inc(1));
        bar.finish_and_clear();
        let text = format!(
            "f64: Simpson and Gauss-Kronrod at relative tolerance {:.0e}, FAQ with its default \
             steps; qd: Gauss-Kronrod at {:.0e}; worst err: the largest true relative error of \
             the largest batch's sample\n{}",
            throughput::TOLERANCE,
            throughput::QD_TOLERANCE,
            throughput::table(&rows)
        );
        section(&mut report, "Batches: integrals per second", &text);
        throughput::write_files(&args.out, &rows, &machine)
            .map_err(|e| write_error("throughput.csv/json", e))?;
        let title = format!("hpquad bench: integrals per second against batch size ({machine})");
        plot::write_chart(
            &throughput::chart(&rows, &title),
            &args.out.join("throughput.svg"),
            &args.out.join("throughput.png"),
        )
        .map_err(CliError::computation)?;
        written.push("throughput.csv/json/svg/png".into());
        let (mut f, n) = throughput::check(&rows);
        say!("batch checks: {} of {n} passed (no integral failed; every converged Simpson and Gauss-Kronrod integral sampled within its tolerance of the closed form)", n - f.len());
        failures.append(&mut f);
        checked += n;
    }

    say!();
    print!("{report}");
    std::fs::create_dir_all(&args.out)
        .and_then(|()| std::fs::write(args.out.join("report.txt"), &report))
        .map_err(|e| write_error("report.txt", e))?;
    written.push("report.txt".into());
    say!(
        "wrote {} into {} in {}",
        written.join(", "),
        args.out.display(),
        human_time(started.elapsed().as_secs_f64())
    );
    if !failures.is_empty() {
        return Err(CliError::computation(format!(
            "{} of {checked} checks failed:\n  {}",
            failures.len(),
            failures.join("\n  ")
        )));
    }
    Ok(())
}

/// Which parts of the bench run.
struct Parts {
    sweep: bool,
    speedup: bool,
    large: bool,
    cubature: bool,
    batch: bool,
}

impl Parts {
    /// From `--parts` (all when empty, or only the sweep when a filter is given).
    fn from_args(words: &[String], filtered: bool) -> Result<Parts, CliError> {
        let words: Vec<String> = words
            .iter()
            .map(|w| w.trim().to_ascii_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            return Ok(Parts {
                sweep: true,
                speedup: !filtered,
                large: !filtered,
                cubature: !filtered,
                batch: !filtered,
            });
        }
        const KNOWN: [&str; 5] = ["sweep", "speedup", "large", "cubature", "batch"];
        if let Some(w) = words.iter().find(|w| !KNOWN.contains(&w.as_str())) {
            return Err(CliError::input(format!(
                "--parts: unknown part '{w}'; expected sweep, speedup, large, cubature or batch"
            )));
        }
        let has = |p: &str| words.iter().any(|w| w == p);
        Ok(Parts {
            sweep: has("sweep"),
            speedup: has("speedup"),
            large: has("large"),
            cubature: has("cubature"),
            batch: has("batch"),
        })
    }
}

/// A progress bar on stderr (drawn only on a terminal); a length of 0 counts without one.
fn progress(total: u64, unit: &str) -> ProgressBar {
    let bar = if total > 0 {
        ProgressBar::new(total)
    } else {
        ProgressBar::no_length()
    };
    let template = if total > 0 {
        format!("{{bar:40}} {{pos}}/{{len}} {unit} ({{elapsed}}) {{msg}}")
    } else {
        format!("{{pos}} {unit} ({{elapsed}}) {{msg}}")
    };
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

/// Appends a titled section to the report.
fn section(report: &mut String, title: &str, body: &str) {
    if !report.is_empty() {
        report.push('\n');
    }
    report.push_str(&format!("== {title} ==\n{body}"));
    if !body.ends_with('\n') {
        report.push('\n');
    }
}

/// The machine in a few words: CPU model and cores, and the worker threads used.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let mut parts: Vec<String> = vec![format!("{model}, {cores} cores")];
    if bench::devices().contains(&hpquad::Device::Gpu) {
        match hpquad::gpu::device_info(0) {
            Ok(info) => parts.push(info.name),
            Err(_) => parts.push("a GPU".to_string()),
        }
    }
    parts.join(" + ")
}
