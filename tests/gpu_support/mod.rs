//! Shared by the GPU tests: random operands with the special values first, the host's answer
//! for each operation, and the bit-for-bit comparison of host and device results.
#![allow(dead_code)]

pub mod functions;

use hpquad::gpu::{ArithOp, GpuReal, MixedOp};
use precision::{Dd, Qd};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The host arithmetic each device kernel mirrors.
pub trait HostArith: GpuReal + std::fmt::Debug {
    const EPS: f64;
    fn same(op: ArithOp, a: Self, b: Self) -> Self;
    fn mixed(op: MixedOp, a: Self, d: f64) -> Self;
    fn random(rng: &mut StdRng) -> Self;
    fn from_f64(x: f64) -> Self;
    fn limbs(self) -> Vec<f64> {
        let mut v = Vec::new();
        self.push_limbs(&mut v);
        v
    }
    /// |self - other| in units of the last place of `other`, computed in `Self`.
    fn ulps_from(self, other: Self) -> f64;
}

/// A double with a random sign, significand and exponent: mostly moderate exponents, a few
/// near the ends of the range where the special-case branches live.
pub fn random_f64(rng: &mut StdRng) -> f64 {
    let e = match rng.gen_range(0..100) {
        0..=2 => rng.gen_range(-1074..-900),
        3..=5 => rng.gen_range(900..1023),
        _ => rng.gen_range(-60..60),
    };
    let m: f64 = rng.gen_range(1.0..2.0);
    let s = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
    s * m * 2f64.powi(e.clamp(-1022, 1023)) * if e < -1022 { 2f64.powi(e + 1022) } else { 1.0 }
}

fn tail(rng: &mut StdRng, lead: f64) -> f64 {
    // Below half an ulp of `lead`, sometimes zero, sometimes exactly a power of two.
    match rng.gen_range(0..10) {
        0 => 0.0,
        1 => lead * 2f64.powi(-54),
        _ => lead * rng.gen_range(-1.0..1.0) * 2f64.powi(-53),
    }
}

/// The special values every operation is tried on, in all pairs.
pub fn specials() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e300,
        1e-300,
    ]
}

impl HostArith for f64 {
    const EPS: f64 = f64::EPSILON;
    fn same(op: ArithOp, a: f64, b: f64) -> f64 {
        match op {
            ArithOp::Add => a + b,
            ArithOp::Sub => a - b,
            ArithOp::Mul => a * b,
            ArithOp::Div => a / b,
            ArithOp::Sqrt => a.sqrt(),
        }
    }
    fn mixed(op: MixedOp, a: f64, d: f64) -> f64 {
        match op {
            MixedOp::AddF64 => a + d,
            MixedOp::SubF64 => a - d,
            MixedOp::MulF64 => a * d,
            MixedOp::DivF64 => a / d,
            MixedOp::F64Sub => d - a,
            MixedOp::F64Div => d / a,
        }
    }
    fn random(rng: &mut StdRng) -> f64 {
        random_f64(rng)
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn ulps_from(self, other: f64) -> f64 {
        ((self - other) / other).abs() / f64::EPSILON
    }
}

impl HostArith for Dd {
    const EPS: f64 = 4.930380657631324e-32;
    fn same(op: ArithOp, a: Dd, b: Dd) -> Dd {
        match op {
            ArithOp::Add => a + b,
            ArithOp::Sub => a - b,
            ArithOp::Mul => a * b,
            ArithOp::Div => a / b,
            ArithOp::Sqrt => a.sqrt(),
        }
    }
    fn mixed(op: MixedOp, a: Dd, d: f64) -> Dd {
        match op {
            MixedOp::AddF64 => a + d,
            MixedOp::SubF64 => a - d,
            MixedOp::MulF64 => a * d,
            MixedOp::DivF64 => a / d,
            MixedOp::F64Sub => d - a,
            MixedOp::F64Div => d / a,
        }
    }
    fn random(rng: &mut StdRng) -> Dd {
        let hi = random_f64(rng);
        let lo = tail(rng, hi);
        Dd::from_sum(hi, lo)
    }
    fn from_f64(x: f64) -> Dd {
        Dd::from(x)
    }
    fn ulps_from(self, other: Dd) -> f64 {
        ((self - other).hi / other.hi).abs() / Self::EPS
    }
}

impl HostArith for Qd {
    const EPS: f64 = 1.2154326714572542e-63;
    fn same(op: ArithOp, a: Qd, b: Qd) -> Qd {
        match op {
            ArithOp::Add => a + b,
            ArithOp::Sub => a - b,
            ArithOp::Mul => a * b,
            ArithOp::Div => a / b,
            ArithOp::Sqrt => a.sqrt(),
        }
    }
    fn mixed(op: MixedOp, a: Qd, d: f64) -> Qd {
        match op {
            MixedOp::AddF64 => a + d,
            MixedOp::SubF64 => a - d,
            MixedOp::MulF64 => a * d,
            MixedOp::DivF64 => a / d,
            MixedOp::F64Sub => d - a,
            MixedOp::F64Div => d / a,
        }
    }
    fn random(rng: &mut StdRng) -> Qd {
        let c0 = random_f64(rng);
        let c1 = tail(rng, c0);
        let c2 = tail(rng, c1);
        let c3 = tail(rng, c2);
        Qd::from_f64(c0) + c1 + c2 + c3
    }
    fn from_f64(x: f64) -> Qd {
        Qd::from(x)
    }
    fn ulps_from(self, other: Qd) -> f64 {
        ((self - other).0[0] / other.0[0]).abs() / Self::EPS
    }
}

/// Operand arrays of length `n` (at least the special pairs): all pairs of special values
/// first, then random values, a tenth of them with `b` close to `-a` or `a` so that
/// additions cancel.
pub fn operands<T: HostArith>(n: usize, seed: u64) -> (Vec<T>, Vec<T>, Vec<f64>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut a, mut b, mut d) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::new());
    let sp = specials();
    for &x in &sp {
        for &y in &sp {
            a.push(T::from_f64(x));
            b.push(T::from_f64(y));
            d.push(y);
        }
    }
    while a.len() < n {
        let x = T::random(&mut rng);
        let y = match rng.gen_range(0..20) {
            0 => T::same(
                ArithOp::Add,
                T::from_f64(0.0),
                T::same(ArithOp::Sub, x, T::random(&mut rng)),
            ),
            1 => T::same(ArithOp::Sub, T::from_f64(0.0), x),
            _ => T::random(&mut rng),
        };
        let dy = match rng.gen_range(0..10) {
            0 => -x.to_f64(),
            1 => x.to_f64(),
            _ => random_f64(&mut rng),
        };
        a.push(x);
        b.push(y);
        d.push(dy);
    }
    (a, b, d)
}

/// Identical components, or both NaN (NaN payloads differ between CPUs and GPUs).
pub fn same_bits<T: HostArith>(x: T, y: T) -> bool {
    let (lx, ly) = (x.limbs(), y.limbs());
    if lx[0].is_nan() && ly[0].is_nan() {
        return true;
    }
    lx.iter().zip(&ly).all(|(p, q)| p.to_bits() == q.to_bits())
}

/// How device results compare with the host's.
#[derive(Debug, Default)]
pub struct Agreement {
    pub total: usize,
    pub identical: usize,
    pub max_ulps: f64,
    pub first_mismatch: Option<String>,
}

pub fn compare<T: HostArith>(
    what: &str,
    a: &[T],
    b_desc: &dyn Fn(usize) -> String,
    host: &[T],
    device: &[T],
) -> Agreement {
    let mut ag = Agreement {
        total: host.len(),
        ..Default::default()
    };
    for i in 0..host.len() {
        if same_bits(host[i], device[i]) {
            ag.identical += 1;
            continue;
        }
        let u = if host[i].to_f64().is_finite() && device[i].to_f64().is_finite() {
            device[i].ulps_from(host[i])
        } else {
            f64::INFINITY
        };
        ag.max_ulps = ag.max_ulps.max(u);
        if ag.first_mismatch.is_none() {
            ag.first_mismatch = Some(format!(
                "{what}: a = {:?}, b = {}: host {:?}, device {:?}",
                a[i].limbs(),
                b_desc(i),
                host[i].limbs(),
                device[i].limbs()
            ));
        }
    }
    ag
}

/// The host's replay of a device uniform sum, in the device's exact order: each thread's
/// grid-stride share summed in order, the warp tree (shuffle offsets 16..1), the block tree
/// over the warp sums, then the partials added as `GpuReal::sum_partials` adds them.
pub trait ReplaySum: GpuReal {
    type Acc: Copy;
    fn zero() -> Self::Acc;
    fn add_value(acc: Self::Acc, y: Self) -> Self::Acc;
    fn add_acc(a: Self::Acc, b: Self::Acc) -> Self::Acc;
    fn acc_limbs(a: Self::Acc) -> Vec<f64>;
    /// a + m*h as the kernel computes it.
    fn point(a: Self, h: Self, m: u64) -> Self;
}

impl ReplaySum for f64 {
    type Acc = Dd;
    fn zero() -> Dd {
        Dd::ZERO
    }
    fn add_value(acc: Dd, y: f64) -> Dd {
        acc.add_f64(y)
    }
    fn add_acc(a: Dd, b: Dd) -> Dd {
        a.add_dd(b)
    }
    fn acc_limbs(a: Dd) -> Vec<f64> {
        a.components().to_vec()
    }
    fn point(a: f64, h: f64, m: u64) -> f64 {
        m as f64 * h + a
    }
}

impl ReplaySum for Dd {
    type Acc = Dd;
    fn zero() -> Dd {
        Dd::ZERO
    }
    fn add_value(acc: Dd, y: Dd) -> Dd {
        acc.add_dd(y)
    }
    fn add_acc(a: Dd, b: Dd) -> Dd {
        a.add_dd(b)
    }
    fn acc_limbs(a: Dd) -> Vec<f64> {
        a.components().to_vec()
    }
    fn point(a: Dd, h: Dd, m: u64) -> Dd {
        Dd::from(m) * h + a
    }
}

impl ReplaySum for Qd {
    type Acc = Qd;
    fn zero() -> Qd {
        Qd::ZERO
    }
    fn add_value(acc: Qd, y: Qd) -> Qd {
        acc.add_qd(y)
    }
    fn add_acc(a: Qd, b: Qd) -> Qd {
        a.add_qd(b)
    }
    fn acc_limbs(a: Qd) -> Vec<f64> {
        a.components().to_vec()
    }
    fn point(a: Qd, h: Qd, m: u64) -> Qd {
        Qd::from(m) * h + a
    }
}

const THREADS: u64 = 256;

/// The device's grid for `count` points (src/gpu/launch.rs `sum_blocks`): one point a thread
/// up to 1024 blocks, then a power-of-two cap, 2^k blocks from 2^(k+17) points, up to 8192.
fn blocks_of(count: u64) -> u64 {
    let cap = (1u64 << (count >> 17).max(1).ilog2()).clamp(1024, 8192);
    count.div_ceil(THREADS).clamp(1, cap)
}

fn warp_reduce<T: ReplaySum>(mut v: Vec<T::Acc>) -> T::Acc {
    let mut offset = 16;
    while offset > 0 {
        // A lane whose source is past the warp gets its own value back, as __shfl_down_sync.
        v = (0..32)
            .map(|i| T::add_acc(v[i], if i + offset < 32 { v[i + offset] } else { v[i] }))
            .collect();
        offset >>= 1;
    }
    v[0]
}

/// The device's uniform sum, replayed on the host.
pub fn replay_uniform_sum<T: ReplaySum>(
    f: impl Fn(T) -> T,
    a: T,
    h: T,
    first: u64,
    stride: u64,
    count: u64,
) -> T {
    let blocks = blocks_of(count);
    let step = blocks * THREADS;
    let mut partials = Vec::new();
    for block in 0..blocks {
        let per_thread: Vec<T::Acc> = (0..THREADS)
            .map(|t| {
                let mut acc = T::zero();
                let mut k = block * THREADS + t;
                while k < count {
                    acc = T::add_value(acc, f(T::point(a, h, first + k * stride)));
                    k += step;
                }
                acc
            })
            .collect();
        let warp_sums: Vec<T::Acc> = per_thread
            .chunks(32)
            .map(|w| warp_reduce::<T>(w.to_vec()))
            .collect();
        let mut lanes = vec![T::zero(); 32];
        lanes[..warp_sums.len()].copy_from_slice(&warp_sums);
        partials.extend(T::acc_limbs(warp_reduce::<T>(lanes)));
    }
    T::sum_partials(&partials)
}
