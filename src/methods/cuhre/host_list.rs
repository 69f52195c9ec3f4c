//! The list algorithm of [`super::device`] on the CPU: a [`RegionList`] that keeps its regions in
//! host memory and computes each round's steps one region at a time with the functions the
//! device's kernels mirror ([`estimate_region`], [`settle`], [`is_active`]), the rule on all
//! cores. The reference the device list is checked against, and a way to study the filter
//! and the error estimate without a device (tests/cuhre.rs runs the PAGANI cases on
//! it); not a method of its own (no backend answers with it).

use std::sync::Arc;

use precision::Real;

use super::device::{
    estimate_region, is_active, settle, ListSums, Raw, RegionList, Round, Share, Threshold,
};
use super::CubatureRule;
use crate::backend::PointSet;
use crate::error::Result;
use crate::integrand::Integrand;

/// A retired entry: corners, value, settled error, axis, marked to come back.
type Retired = (Vec<f64>, Vec<f64>, f64, f64, Option<usize>, bool);

/// The region list of [`super::device::run`] kept on the CPU (f64).
pub struct HostList<'a, F> {
    f: &'a F,
    rule: CubatureRule<f64>,
    dims: usize,
    lower: Vec<f64>,
    upper: Vec<f64>,
    parents: Option<Vec<f64>>,
    raw: Vec<Raw<f64>>,
    settled: Vec<(f64, Option<usize>)>,
    active: Vec<bool>,
    /// The most regions a list may hold (the device's memory).
    capacity: u64,
    /// The retired list: corners, value, settled error, axis, marked.
    retired: Vec<Retired>,
    /// The most entries the retired list may hold.
    retired_capacity: usize,
    /// The retired regions brought back so far.
    revived: usize,
}

impl<'a, F: Integrand> HostList<'a, F> {
    /// A list for `f` of `dims` variables with the rule of point set `set` that may hold
    /// `capacity` regions (the device's memory), its retired list unbounded.
    pub fn new(f: &'a F, dims: usize, capacity: u64, set: PointSet) -> Self {
        HostList {
            f,
            rule: CubatureRule::with_set(set, dims),
            dims,
            lower: Vec::new(),
            upper: Vec::new(),
            parents: None,
            raw: Vec::new(),
            settled: Vec::new(),
            active: Vec::new(),
            capacity,
            retired: Vec::new(),
            retired_capacity: usize::MAX,
            revived: 0,
        }
    }
    /// Bounds the retired list to `entries` (the device's memory for it).
    pub fn with_retired_capacity(mut self, entries: usize) -> Self {
        self.retired_capacity = entries;
        self
    }

    /// The retired regions brought back so far.
    pub fn revived(&self) -> usize {
        self.revived
    }

    fn volume(&self, r: usize) -> f64 {
        let n = self.dims;
        (0..n)
            .map(|d| self.upper[r * n + d] - self.lower[r * n + d])
            .product()
    }
}

fn sums(value: f64, error: f64, volume: f64, active: u64) -> ListSums<f64> {
    ListSums {
        value: value.to_accumulator(),
        error,
        volume,
        active,
        bad: None,
    }
}

impl<F: Integrand> RegionList<f64> for HostList<'_, F> {
    fn device(&self) -> Arc<str> {
        Arc::from("host list")
    }
    fn point_set(&self) -> PointSet {
        self.rule.set()
    }
    fn load(&mut self, lower: &[f64], upper: &[f64]) -> Result<()> {
        self.lower = lower.to_vec();
        self.upper = upper.to_vec();
        self.parents = None;
        self.retired.clear();
        Ok(())
    }
    fn regions(&self) -> u64 {
        (self.lower.len() / self.dims) as u64
    }
    fn rule(&mut self, share: &Share) -> Result<Round<f64>> {
        use rayon::prelude::*;
        let n = self.dims;
        let (f, rule, checked) = (self.f, &self.rule, self.parents.is_some());
        self.raw = (0..self.regions() as usize)
            .into_par_iter()
            .map(|r| {
                let (l, u) = (&self.lower[r * n..][..n], &self.upper[r * n..][..n]);
                estimate_region(f, rule, l, u, checked)
            })
            .collect();
        self.settled = match &self.parents {
            None => self.raw.iter().flat_map(|r| settle(&[*r], None)).collect(),
            Some(parents) => self
                .raw
                .chunks(2)
                .zip(parents)
                .flat_map(|(pair, &p)| settle(pair, Some(p)))
                .collect(),
        };
        let value = self.raw.iter().map(|r| r.value).sum();
        let error = self.settled.iter().map(|s| s.0).sum();
        let volume = (0..self.regions() as usize).map(|r| self.volume(r)).sum();
        let list = sums(value, error, volume, 0);
        let tol = share
            .absolute
            .max(share.relative * (share.retired_value + value).abs());
        let density = share.part * (tol - share.spent).max(0.0) / volume;
        let finished = self.filter(Threshold {
            density,
            relative: share.per_region,
        })?;
        Ok(Round {
            list,
            finished,
            density,
        })
    }
    fn filter(&mut self, threshold: Threshold) -> Result<ListSums<f64>> {
        let mut out = sums(0.0, 0.0, 0.0, 0);
        self.active = (0..self.regions() as usize)
            .map(|r| {
                is_active(
                    self.settled[r].0,
                    self.settled[r].1,
                    self.raw[r].value.abs(),
                    self.volume(r),
                    threshold,
                )
            })
            .collect();
        for (r, &on) in self.active.iter().enumerate() {
            if on {
                out.active += 1;
            } else {
                out.value += self.raw[r].value.to_accumulator();
                out.error += self.settled[r].0;
                out.volume += self.volume(r);
            }
        }
        Ok(out)
    }
    fn room(&mut self, regions: u64) -> Result<u64> {
        Ok(regions.min(self.capacity))
    }
    fn keep(&mut self, regions: u64) -> Result<bool> {
        Ok(self.retired.len() + regions as usize <= self.retired_capacity)
    }
    fn revive(&mut self, threshold: Threshold) -> Result<ListSums<f64>> {
        let mut out = sums(0.0, 0.0, 0.0, 0);
        for entry in self.retired.iter_mut() {
            let volume: f64 = entry.0.iter().zip(&entry.1).map(|(a, b)| b - a).product();
            entry.5 = is_active(entry.3, entry.4, entry.2.abs(), volume, threshold);
            if entry.5 {
                out.active += 1;
                out.value += entry.2.to_accumulator();
                out.error += entry.3;
                out.volume += volume;
            }
        }
        Ok(out)
    }
    fn retired(&mut self) -> Result<ListSums<f64>> {
        let mut out = sums(0.0, 0.0, 0.0, 0);
        for entry in self.retired.iter_mut() {
            entry.5 = false;
            out.value += entry.2.to_accumulator();
            out.error += entry.3;
            out.volume += entry
                .0
                .iter()
                .zip(&entry.1)
                .map(|(a, b)| b - a)
                .product::<f64>();
        }
        Ok(out)
    }
    fn split(&mut self, keep: bool) -> Result<()> {
        let n = self.dims;
        let (mut lower, mut upper, mut parents) = (Vec::new(), Vec::new(), Vec::new());
        let mut halve = |l: &[f64], u: &[f64], axis: usize, value: f64| {
            let middle = (l[axis] + u[axis]) / 2.0;
            let (mut lu, mut rl) = (u.to_vec(), l.to_vec());
            lu[axis] = middle;
            rl[axis] = middle;
            lower.extend_from_slice(l);
            upper.extend_from_slice(&lu);
            lower.extend_from_slice(&rl);
            upper.extend_from_slice(u);
            parents.push(value);
        };
        let mut finished = Vec::new();
        for r in 0..self.regions() as usize {
            let (l, u) = (&self.lower[r * n..][..n], &self.upper[r * n..][..n]);
            if self.active[r] {
                let axis = self.settled[r].1.expect("an active region has an axis");
                halve(l, u, axis, self.raw[r].value);
            } else if keep {
                let (error, axis) = self.settled[r];
                finished.push((
                    l.to_vec(),
                    u.to_vec(),
                    self.raw[r].value,
                    error,
                    axis,
                    false,
                ));
            }
        }
        for entry in self.retired.iter_mut().filter(|e| e.5) {
            self.revived += 1;
            let axis = entry.4.expect("a marked entry has an axis");
            halve(&entry.0, &entry.1, axis, entry.2);
            // Emptied, as the device empties it.
            *entry = (entry.0.clone(), entry.1.clone(), 0.0, 0.0, None, false);
        }
        self.retired.extend(finished);
        self.lower = lower;
        self.upper = upper;
        self.parents = Some(parents);
        Ok(())
    }
    fn bounds(&mut self, region: u64) -> Result<(Vec<f64>, Vec<f64>)> {
        let (n, r) = (self.dims, region as usize);
        Ok((
            self.lower[r * n..][..n].to_vec(),
            self.upper[r * n..][..n].to_vec(),
        ))
    }
}
