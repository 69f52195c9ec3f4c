//! The number types the GPU backend computes in, and how their values travel: as limbs, the
//! `#[repr(C)]` components of `f64`, `Dd` and `Qd`, most significant first.
#![deny(unsafe_code)]

use precision::{Dd, Qd, Real};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for precision::Dd {}
    impl Sealed for precision::Qd {}
}

/// A number type with a device twin: `f64` ↔ `double`, `Dd` ↔ `dd_t`, `Qd` ↔ `qd_t`.
pub trait GpuReal: Copy + sealed::Sealed + Send + Sync + 'static {
    /// The short name used in kernel names: `f64`, `dd`, `qd`.
    const NAME: &'static str;
    /// The CUDA type.
    const CUDA_TYPE: &'static str;
    /// Doubles per value.
    const LIMBS: usize;
    /// Doubles per value of the type sums are accumulated in (`f64` sums in double-double).
    const ACC_LIMBS: usize;

    /// Appends the limbs of `self`.
    fn push_limbs(self, out: &mut Vec<f64>);
    /// Rebuilds a value from exactly `LIMBS` limbs.
    fn from_limbs(limbs: &[f64]) -> Self;
    /// Adds accumulator partials (`ACC_LIMBS` doubles each) in a fixed pairwise order, with the
    /// same host arithmetic the device mirrors, and rounds to `Self`.
    fn sum_partials(partials: &[f64]) -> Self;
    /// The nearest double, for messages.
    fn to_f64(self) -> f64;
}

/// Adds `items` pairwise: the order depends on the length alone.
fn pairwise<A: Copy>(items: &[A], zero: A, add: &impl Fn(A, A) -> A) -> A {
    match items.len() {
        0 => zero,
        1 => items[0],
        n => {
            let (l, r) = items.split_at(n / 2);
            add(pairwise(l, zero, add), pairwise(r, zero, add))
        }
    }
}

fn dd_partials(partials: &[f64]) -> Dd {
    let v: Vec<Dd> = partials.chunks_exact(2).map(Dd::from_components).collect();
    pairwise(&v, Dd::ZERO, &|a: Dd, b: Dd| a.add_dd(b))
}

impl GpuReal for f64 {
    const NAME: &'static str = "f64";
    const CUDA_TYPE: &'static str = "double";
    const LIMBS: usize = 1;
    const ACC_LIMBS: usize = 2;
    fn push_limbs(self, out: &mut Vec<f64>) {
        out.push(self);
    }
    fn from_limbs(limbs: &[f64]) -> Self {
        limbs[0]
    }
    fn sum_partials(partials: &[f64]) -> Self {
        dd_partials(partials).to_f64()
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl GpuReal for Dd {
    const NAME: &'static str = "dd";
    const CUDA_TYPE: &'static str = "dd_t";
    const LIMBS: usize = 2;
    const ACC_LIMBS: usize = 2;
    fn push_limbs(self, out: &mut Vec<f64>) {
        out.extend_from_slice(&self.components());
    }
    fn from_limbs(limbs: &[f64]) -> Self {
        Dd::from_components(limbs)
    }
    fn sum_partials(partials: &[f64]) -> Self {
        dd_partials(partials)
    }
    fn to_f64(self) -> f64 {
        Dd::to_f64(self)
    }
}

impl GpuReal for Qd {
    const NAME: &'static str = "qd";
    const CUDA_TYPE: &'static str = "qd_t";
    const LIMBS: usize = 4;
    const ACC_LIMBS: usize = 4;
    fn push_limbs(self, out: &mut Vec<f64>) {
        out.extend_from_slice(&self.components());
    }
    fn from_limbs(limbs: &[f64]) -> Self {
        Qd::from_components(limbs)
    }
    fn sum_partials(partials: &[f64]) -> Self {
        let v: Vec<Qd> = partials.chunks_exact(4).map(Qd::from_components).collect();
        pairwise(&v, Qd::ZERO, &|a: Qd, b: Qd| a.add_qd(b))
    }
    fn to_f64(self) -> f64 {
        Qd::to_f64(self)
    }
}

/// The limbs of a slice of values.
pub(crate) fn to_limbs<T: GpuReal>(values: &[T]) -> Vec<f64> {
    let mut out = Vec::with_capacity(values.len() * T::LIMBS);
    for &v in values {
        v.push_limbs(&mut out);
    }
    out
}

/// The values of a limb array whose length is a multiple of `T::LIMBS`.
pub(crate) fn from_limbs<T: GpuReal>(limbs: &[f64]) -> Vec<T> {
    limbs.chunks_exact(T::LIMBS).map(T::from_limbs).collect()
}

/// Writes `values` limb-major into `out` (`values.len() * T::LIMBS` doubles): limb j of value
/// i at `j * values.len() + i`, the layout of `kernels/evaluate.cu`.
pub(crate) fn to_limb_major<T: Real>(values: &[T], out: &mut [f64]) {
    let n = values.len();
    if n == 0 {
        return;
    }
    for (j, column) in out.chunks_exact_mut(n).take(T::LIMBS).enumerate() {
        for (slot, v) in column.iter_mut().zip(values) {
            *slot = v.limbs()[j];
        }
    }
}

/// The `n` values of a limb-major array of `n * T::LIMBS` doubles ([`to_limb_major`]).
pub(crate) fn from_limb_major<T: Real>(limbs: &[f64], n: usize) -> Vec<T> {
    (0..n)
        .map(|i| {
            let mut value = [0.0; 4];
            for (j, v) in value[..T::LIMBS].iter_mut().enumerate() {
                *v = limbs[j * n + i];
            }
            T::from_limbs(&value[..T::LIMBS])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limbs_round_trip() {
        let q = Qd::ONE / Qd::from(3.0);
        let l = to_limbs(&[q, -q]);
        assert_eq!(l.len(), 8);
        assert_eq!(from_limbs::<Qd>(&l), vec![q, -q]);
        let d = Dd::ONE / Dd::from(7.0);
        assert_eq!(from_limbs::<Dd>(&to_limbs(&[d])), vec![d]);
    }

    #[test]
    fn limb_major_keeps_every_limb_in_its_column() {
        // 1 - 1e-300 in qd: a low limb that a conversion through f64 would lose.
        let tiny = Qd::from_components(&[1.0, -1e-300, 0.0, 0.0]);
        let third = Qd::ONE / Qd::from(3.0);
        let values = [third, tiny, -third];
        let mut out = vec![f64::NAN; 12];
        to_limb_major(&values, &mut out);
        assert_eq!(
            out[..3],
            [third.components()[0], 1.0, -third.components()[0]]
        );
        assert_eq!(out[4], -1e-300);
        assert_eq!(out[9], third.components()[3]);
        let back: Vec<Qd> = from_limb_major(&out, 3);
        assert_eq!(back.len(), 3);
        for (b, v) in back.iter().zip(&values) {
            assert_eq!(b.components(), v.components());
        }
        let d = [Dd::ONE / Dd::from(7.0), Dd::from_components(&[1.0, 1e-300])];
        let mut out = vec![0.0; 4];
        to_limb_major(&d, &mut out);
        assert_eq!(out[3], 1e-300);
        assert_eq!(from_limb_major::<Dd>(&out, 2), d.to_vec());
        let mut out = vec![0.0; 2];
        to_limb_major(&[0.5, -2.0], &mut out);
        assert_eq!(from_limb_major::<f64>(&out, 2), vec![0.5, -2.0]);
        assert!(from_limb_major::<Qd>(&[], 0).is_empty());
    }

    #[test]
    fn partials_sum_in_the_accumulator_type() {
        // Three partials whose f64 sum would lose the small one.
        let p = [1.0, 0.0, 1e-20, 0.0, -1.0, 0.0];
        assert_eq!(<Dd as GpuReal>::sum_partials(&p), Dd::from(1e-20));
        assert_eq!(<f64 as GpuReal>::sum_partials(&p), 1e-20);
        assert_eq!(<Qd as GpuReal>::sum_partials(&[]), Qd::ZERO);
    }
}
