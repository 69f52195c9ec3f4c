//! The `hpquad` command line: one module per subcommand, all errors reported in one place.

/// `println!` for the command's output: when stdout is a pipe that closed early
/// (`hpquad bench | head`), the program ends quietly, as command-line tools do, instead of
/// panicking the way `println!` does.
macro_rules! say {
    () => {
        $crate::cli::print_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::cli::print_line(format_args!($($arg)*))
    };
}

mod bench;
mod devices;
mod eval;
mod format;
mod integrate;
mod pi;
mod progress;
mod sweep;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// High-precision numerical integration in f64, double-double and quad-double.
#[derive(Parser, Debug)]
#[command(name = "hpquad", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compute π = ∫₀¹ (16x−16)/(x⁴−2x³+4x−4) dx by Romberg integration, level by level.
    Pi(pi::PiArgs),
    /// Integrate an expression over [A, B] or a box, or a batch of them over parameter values.
    Integrate(Box<integrate::IntegrateArgs>),
    /// Evaluate a constant expression in f64, dd or qd, e.g. `hpquad eval "exp(1)"`.
    Eval(eval::EvalArgs),
    /// Benchmark precision against cost: correct digits, evaluations and time over a suite.
    Bench(bench::BenchArgs),
    /// List the CUDA devices, the NVRTC version and the kernel cache directory.
    Devices(devices::DevicesArgs),
}

/// A failure to report: bad input (exit code 2) or a computation that could not give an honest
/// answer (exit code 1).
#[derive(Debug)]
pub struct CliError {
    message: String,
    code: u8,
}

impl CliError {
    pub fn input(error: impl std::fmt::Display) -> CliError {
        CliError {
            message: error.to_string(),
            code: 2,
        }
    }

    pub fn computation(error: impl std::fmt::Display) -> CliError {
        CliError {
            message: error.to_string(),
            code: 1,
        }
    }

    /// A library error by its kind: the problem as stated (bad input, 2) or a computation
    /// that could not answer honestly, or a device that is not there (1).
    pub fn of(error: hpquad::Error) -> CliError {
        match error {
            hpquad::Error::NonFinite { .. }
            | hpquad::Error::Overflow { .. }
            | hpquad::Error::OverflowInHalves { .. }
            | hpquad::Error::ThreadPool { .. }
            | hpquad::Error::Gpu(_) => CliError::computation(error),
            _ => CliError::input(error),
        }
    }
}

/// Parses the command line, runs the subcommand and turns its outcome into an exit code.
pub fn main() -> ExitCode {
    hpquad::gpu::trace::start();
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Pi(args) => pi::run(args).map(|()| 0),
        Command::Integrate(args) => integrate::run(args),
        Command::Eval(args) => eval::run(args).map(|()| 0),
        Command::Bench(args) => bench::run(args).map(|()| 0),
        Command::Devices(args) => devices::run(args).map(|()| 0),
    };
    hpquad::gpu::trace::record("command done", std::time::Duration::ZERO);
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("error: {}", error.message);
            ExitCode::from(error.code)
        }
    }
}

/// Writes one line to stdout, or ends the program if nobody reads it any more.
pub fn print_line(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{args}").is_err() {
        std::process::exit(0);
    }
}
