//! CUHRE's speedup against tolerance, one curve per dimension: the Figure 2 of Arumugam et
//! al. (`../shared/papers/cuhre-gpu-arumugam-et-al.txt`), on Genz's product peak.
//!
//! The integrand is Genz's product peak with c = 2 and the peak at the centre,
//! Π 1 / (c^-2 + (x_i − 1/2)^2) on [0, 1]^n, whose factors integrate to 2c·atan(c/2) = 4·atan 1
//! = π each: the integral is π^n, computed here in quad-double from π (no cubature involved).
//! For each dimension and tolerance, sequential CUHRE on one CPU thread is the baseline and
//! the parallel schedule (a batch of the worst regions a round, evaluated by the backend) runs
//! on each device of the sweep with the configured threads, then the tensor-product
//! Gauss–Legendre method ([`crate::methods::gauss_product`]) with the configured threads on the
//! CPU; the rows are those of [`super::speedup`].
//!
//! The peak is milder than the Genz set (c = 50 there), so that sequential CUHRE, the
//! baseline, reaches tight tolerances in seconds rather than hours on a small machine; past
//! a baseline that takes longer than the long-point budget, or stops at the evaluation cap,
//! the tighter tolerances of that dimension are skipped (rows marked, with the reason).

use precision::{Qd, Real};

use super::speedup::{fill_speedups, run_row, threads_used, Row};
use super::suite::Reference;
use super::{devices, Config, Scale, Status};
use crate::methods::cuhre::Schedule;
use crate::options::{Device, Method, Precision};
use crate::Integral;

/// The product peak's width parameter: each factor is 1 / (1/c² + (x − 1/2)²).
pub const PEAK_C: f64 = 2.0;

/// The dimensions of the figure (quick: 3 and 4).
pub fn dimensions(scale: Scale) -> Vec<usize> {
    match scale {
        Scale::Quick => vec![3, 4],
        Scale::Full => (3..=8).collect(),
    }
}

/// The tolerances, loosest first (quick: 1e-3 to 1e-5; full: 1e-3 to 1e-8).
pub fn tolerances(scale: Scale) -> Vec<f64> {
    let last = match scale {
        Scale::Quick => 5,
        Scale::Full => 8,
    };
    (3..=last).map(super::ten_to_minus).collect::<Vec<f64>>()
}

/// The product peak in `dims` variables, in the integrand language.
pub fn product_peak(dims: usize) -> String {
    (1..=dims)
        .map(|i| format!("1/(0.25+(x{i}-0.5)^2)"))
        .collect::<Vec<_>>()
        .join("*")
}

/// The product peak's integral over [0, 1]^dims as a reference: π^dims, each factor
/// 2c·atan(c/2) with c = 2, evaluated in quad-double.
pub fn reference(dims: usize) -> Reference {
    let c = Qd::from_f64(PEAK_C);
    let factor = c * 2.0 * (c / 2.0).atan();
    let mut value = Qd::one();
    for _ in 0..dims {
        value *= factor;
    }
    Reference {
        name: format!("n={dims}"),
        title: format!("product peak, n = {dims}"),
        kind: "Genz product peak".into(),
        expression: product_peak(dims),
        from: "0".into(),
        to: "1".into(),
        value: value.to_string(),
        // atan in quad-double is good to a few units of 2^-212; n ≤ 16 products lose a few
        // more.
        trusted_digits: 60,
        provenance: "closed form (2c·atan(c/2))^n with c = 2, that is π^n, in quad-double".into(),
    }
}

/// Runs the figure's cases: for each dimension and tolerance, sequential CUHRE on one thread,
/// then the parallel schedule on each device; `done` is called after each row.
pub fn run(config: &Config, mut done: impl FnMut(&Row)) -> Vec<Row> {
    let mut rows = Vec::new();
    for dims in dimensions(config.scale) {
        let reference = reference(dims);
        // Why the tighter tolerances of this dimension are not run, once that is known.
        let mut stop: Option<String> = None;
        for tolerance in tolerances(config.scale) {
            // Set by this tolerance's baseline, it stops the next tolerances, not this one's
            // other variants (whose speedup it is).
            let mut next_stop: Option<String> = None;
            let cuhre = |schedule| Method::Cuhre { schedule };
            let threads = threads_used(config.threads);
            let mut variants = vec![(cuhre(Schedule::Sequential), Device::Cpu, 1, true)];
            for device in devices() {
                variants.push((cuhre(Schedule::Parallel), device, threads, false));
            }
            variants.push((Method::GaussProduct, Device::Cpu, threads, false));
            for (method, device, threads, baseline) in variants {
                let row = Row::new(
                    reference.name.clone(),
                    Precision::F64,
                    tolerance,
                    method.to_string(),
                    baseline,
                    device,
                    threads,
                );
                let row = if let Some(why) = &stop {
                    Row {
                        status: Status::Skipped(why.clone()),
                        ..row
                    }
                } else {
                    let bounds = (vec![0.0; dims], vec![1.0; dims]);
                    let integral = Integral::with_dims(&reference.expression, dims).map(|i| {
                        i.over_box(&bounds.0, &bounds.1)
                            .method(method)
                            .precision(Precision::F64)
                            .device(device)
                            .threads(threads)
                            .tolerance(tolerance)
                            .max_evaluations(config.max_evaluations)
                    });
                    run_row(integral, &reference, config, row)
                };
                if baseline && stop.is_none() {
                    let stop = &mut next_stop;
                    match (&row.status, &row.measurement) {
                        (_, Some(m)) if m.seconds > config.long_point.as_secs_f64() => {
                            *stop = Some(format!(
                                "sequential CUHRE took {:.1} s at {tolerance:.0e}, over the \
                                 {:.0} s a point may take",
                                m.seconds,
                                config.long_point.as_secs_f64()
                            ))
                        }
                        (Status::NotConverged, _) => {
                            *stop = Some(format!(
                                "sequential CUHRE stopped at the cap of {} evaluations at \
                                 {tolerance:.0e}",
                                config.max_evaluations
                            ))
                        }
                        _ => {}
                    }
                }
                done(&row);
                rows.push(row);
            }
            if stop.is_none() {
                stop = next_stop;
            }
        }
    }
    fill_speedups(&mut rows);
    rows
}
