//! `hpquad bench`: sweeps method × precision × device × work over the reference suite and
//! writes CSV, JSON, a plot and a summary (see `hpquad::bench`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use hpquad::bench::report::{self, human_time};
use hpquad::bench::suite::References;
use hpquad::bench::{self, plot, Config, Scale};
use indicatif::{ProgressBar, ProgressStyle};

use super::CliError;

/// Options of `hpquad bench`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Filter words: trapezoid, richardson, romberg, tanh-sinh, gauss-legendre, \
    gauss-kronrod, auto; f64, dd, qd; cpu, gpu; \
    or an integral's name (pi, exp_cos, ...). Words of one kind are alternatives, kinds \
    combine: `--filter romberg,qd` runs Romberg in qd on every device.\n\
    Exit codes: 0 done and every precision reached its digits, 1 a precision missed them \
    (or the files could not be written), 2 bad input."
)]
pub struct BenchArgs {
    /// The CI smoke test: the quick suite, two amounts of work per method, under 30 s.
    #[arg(long)]
    pub quick: bool,
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
    let curves = bench::plan(&references.integrals, &config);
    if curves.is_empty() {
        return Err(CliError::input("--filter selects nothing to run"));
    }
    let total: usize = curves.iter().map(|c| c.work.len()).sum();
    let machine = machine();
    say!(
        "hpquad bench{}: {} integrals, {} curves, {total} points on {machine}",
        if args.quick { " --quick" } else { "" },
        {
            let mut names: Vec<&str> = curves.iter().map(|c| c.reference.name.as_str()).collect();
            names.dedup();
            names.len()
        },
        curves.len()
    );

    // indicatif draws nothing when stderr is not a terminal (CI logs stay clean).
    let bar = ProgressBar::new(total as u64);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} points ({elapsed}) {msg}")
    {
        bar.set_style(style);
    }
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

    say!();
    print!("{}", report::summary(&points, &references.integrals));
    report::write_files(&args.out, &points, &references.integrals, &machine)
        .map_err(|e| CliError::computation(format!("writing to {}: {e}", args.out.display())))?;
    let svg = args.out.join("digits-vs-time.svg");
    let png = args.out.join("digits-vs-time.png");
    let title = format!("hpquad bench: correct digits against time ({machine})");
    plot::write(&points, &references.integrals, &title, &svg, &png)
        .map_err(CliError::computation)?;
    say!();
    say!(
        "wrote {0}/points.csv, {0}/points.json, {1}, {2} in {3}",
        args.out.display(),
        svg.display(),
        png.display(),
        human_time(started.elapsed().as_secs_f64())
    );

    let (failures, checked) = bench::check(&points);
    if checked > 0 {
        if failures.is_empty() {
            say!(
                "checks: {checked} passed (every adaptive method at the tightest tolerance \
                 reaches f64 {}, dd {}, qd {} digits on the quick suite)",
                bench::required_digits(hpquad::Precision::F64),
                bench::required_digits(hpquad::Precision::Dd),
                bench::required_digits(hpquad::Precision::Qd)
            );
        } else {
            return Err(CliError::computation(format!(
                "{} of {checked} checks failed:\n  {}",
                failures.len(),
                failures.join("\n  ")
            )));
        }
    }
    Ok(())
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
