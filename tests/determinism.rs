//! The same call gives the same bits for any number of threads and on every run.

use hpquad::cpu::CpuBackend;
use hpquad::integrand::RealFn;
use hpquad::methods::{romberg, trapezoid, Interval, Options, Outcome};
use hpquad::precision::{Dd, Qd, Real};
use hpquad::Error;

struct PiIntegrand;
impl RealFn for PiIntegrand {
    fn eval<T: Real>(&self, x: T) -> T {
        let x2 = x * x;
        (x * 16.0 - 16.0) / (x2 * x2 - x2 * x * 2.0 + x * 4.0 - 4.0)
    }
}

/// NaN at two points; the one of smaller index must be reported.
struct TwoHoles;
impl RealFn for TwoHoles {
    fn eval<T: Real>(&self, x: T) -> T {
        let v = x.to_f64();
        if v == 0.25 || v == 0.75 {
            T::from_f64(f64::NAN)
        } else {
            x
        }
    }
}

fn bits<T: Real>(out: &Outcome<T>) -> Vec<[u64; 4]> {
    let mut all = vec![out.value.limbs().map(f64::to_bits)];
    for row in &out.table {
        all.extend(row.iter().map(|v| v.limbs().map(f64::to_bits)));
    }
    all
}

fn same_bits_for_1_2_8_threads<T: Real>(max_levels: u32, trapezoid_intervals: u64) {
    // Many chunks per level: 2^max_levels intervals at the finest level.
    let options = Options {
        relative: Some(0.0),
        max_levels,
        ..Options::default()
    };
    let runs: Vec<Outcome<T>> = [1, 2, 8, 2]
        .iter()
        .map(|&threads| {
            let cpu = CpuBackend::new(threads).expect("a thread pool starts");
            romberg::romberg(
                &PiIntegrand,
                &cpu,
                Interval::new(T::zero(), T::one()),
                &options,
            )
            .expect("integrates")
        })
        .collect();
    for run in &runs[1..] {
        assert_eq!(bits(run), bits(&runs[0]), "{}", T::NAME);
        assert_eq!(run.evaluations, runs[0].evaluations);
    }
    let trap: Vec<_> = [1, 2, 8]
        .iter()
        .map(|&threads| {
            let cpu = CpuBackend::new(threads).expect("a thread pool starts");
            let out = trapezoid::trapezoid(
                &PiIntegrand,
                &cpu,
                Interval::new(T::zero(), T::one()),
                trapezoid_intervals,
                &Options::default(),
            )
            .expect("integrates");
            out.value.limbs().map(f64::to_bits)
        })
        .collect();
    assert!(trap.iter().all(|b| *b == trap[0]), "{}", T::NAME);
}

#[test]
fn same_bits_f64() {
    same_bits_for_1_2_8_threads::<f64>(18, 1_000_000);
}

#[test]
fn same_bits_dd() {
    same_bits_for_1_2_8_threads::<Dd>(15, 100_001);
}

#[test]
fn same_bits_qd() {
    same_bits_for_1_2_8_threads::<Qd>(13, 20_000);
}

#[test]
fn first_bad_point_is_reported_for_any_thread_count() {
    for threads in [1, 2, 8] {
        let cpu = CpuBackend::new(threads).expect("a thread pool starts");
        let err = trapezoid::trapezoid(
            &TwoHoles,
            &cpu,
            Interval::new(0.0, 1.0),
            4096,
            &Options::default(),
        )
        .expect_err("NaN is sampled");
        match err {
            Error::NonFinite { x, value } => {
                assert_eq!(x, "0.25");
                assert_eq!(value, "NaN");
            }
            other => panic!("expected NonFinite, got {other}"),
        }
    }
}
