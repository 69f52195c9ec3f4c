//! The nodes of the double exponential rules, level by level, in the working precision, and the
//! process-wide cache that computes each level once.
//!
//! Level 0 holds the nodes t = 0, ±1, ±2, ... (step h = 1); level k ≥ 1 the odd multiples of
//! h_k = 2^-k, the only nodes that are new when the step is halved. A node stores what the method
//! needs to place a point without cancellation (the distance to the end it approaches) and its
//! weight φ'(t), without h and without the interval's half-width:
//!
//! ```text
//! tanh-sinh   x = tanh(u),  u = π/2 sinh t,  offset δ = 1 - |x| = 2q / (1 + q),  q = e^(-2u)
//!             weight (π/2) cosh t / cosh² u = (π/2) cosh t · δ (2 - δ)
//! exp-sinh    x = e^u,                       offset x,                 weight (π/2) cosh t · x
//! sinh-sinh   x = sinh u,                    offset |x|,               weight (π/2) cosh t · cosh u
//! ```
//!
//! Takahasi and Mori, "Double exponential formulas for numerical integration" (1974); the
//! complement form of the tanh-sinh abscissa follows Bailey, "Tanh-sinh high-precision
//! quadrature" (2006), and Boost.Math's `tanh_sinh`.
//!
//! Accuracy: u carries the relative error of sinh t and π/2 (an ulp or two), so e^(-2u) and
//! every offset and weight carry a relative error of about u ulps (up to a few hundred at the
//! last nodes); the offset and the weight of a node come from the same u, so they are the exact
//! pair of a node shifted by about an ulp in t, which moves the sum by rounding-level amounts.

use std::any::{Any, TypeId};
use std::f64::consts::{LN_2, PI};
use std::sync::{Arc, Mutex, OnceLock};

use precision::Real;

use crate::rules::CacheMap;

/// The change of variables: which ends of the interval are infinite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transform {
    /// x = tanh(π/2 sinh t) on (-1, 1), scaled to a finite [a, b].
    TanhSinh,
    /// x = exp(π/2 sinh t) on (0, ∞), shifted to [a, ∞) or reflected to (-∞, b].
    ExpSinh,
    /// x = sinh(π/2 sinh t) on (-∞, ∞).
    SinhSinh,
}

/// The largest |x| an exp-sinh or sinh-sinh node reaches: 2^500. Beyond it the weights pass
/// 10^150, and squaring a point overflows in dd, whose product then turns into NaN, not ∞; an
/// integrand that still matters there (decaying slower than x^-1.4 in qd) shows it in the tail
/// term of the error estimate.
const LN_MAX_OFFSET: f64 = 500.0 * LN_2;

impl Transform {
    /// Whether the nodes at t < 0 mirror those at t > 0 (tanh-sinh, sinh-sinh), so that a level
    /// stores one side only.
    pub fn symmetric(self) -> bool {
        !matches!(self, Transform::ExpSinh)
    }

    /// The range of t used in precision `T`: (largest |t| on the left, largest t on the right).
    ///
    /// Toward a finite end the offset (distance to that end) stops at δ_min = 2^-1022 / ε_T, the
    /// smallest number that still has every bit of the precision (2^-970 in f64, 2^-918 in dd,
    /// 2^-813 in qd); toward an infinite end the offset stops at 2^500.
    pub fn t_range<T: Real>(self) -> (f64, f64) {
        // ln δ_min
        let ln_min = (-1022.0 - T::epsilon().to_f64().log2()) * LN_2;
        match self {
            // δ ≈ 2 e^(-2u) ≥ δ_min  ⇔  u ≤ (ln 2 - ln δ_min) / 2
            Transform::TanhSinh => {
                let t = ((LN_2 - ln_min) / PI).asinh();
                (t, t)
            }
            // e^u ≥ δ_min on the left, e^u ≤ 2^500 on the right.
            Transform::ExpSinh => (
                (-2.0 * ln_min / PI).asinh(),
                (2.0 * LN_MAX_OFFSET / PI).asinh(),
            ),
            // sinh u ≤ 2^500  ⇐  u ≤ 500 ln 2
            Transform::SinhSinh => {
                let t = (2.0 * LN_MAX_OFFSET / PI).asinh();
                (t, t)
            }
        }
    }

    /// The node at t, computed in `T` (`t_f64` is the same dyadic number as a double).
    fn node<T: Real>(self, t: T, t_f64: f64) -> Node<T> {
        let half_pi = T::frac_pi_2();
        if t_f64 == 0.0 {
            let offset = match self {
                Transform::TanhSinh | Transform::ExpSinh => T::one(),
                Transform::SinhSinh => T::zero(),
            };
            return Node {
                t: 0.0,
                offset,
                weight: half_pi,
                ln_offset: offset.to_f64().ln(),
            };
        }
        let c = t.cosh();
        let u = half_pi * t.sinh();
        let (offset, weight) = match self {
            Transform::TanhSinh => {
                // Only t > 0 is stored; δ = 1 - tanh u = 2 e^(-2u) / (1 + e^(-2u)) without
                // forming 1 - tanh u.
                let q = (-(u + u)).exp();
                let delta = (q + q) / (q + 1.0);
                (delta, half_pi * c * delta * (-delta + 2.0))
            }
            Transform::ExpSinh => {
                let x = u.exp();
                (x, half_pi * c * x)
            }
            Transform::SinhSinh => (u.sinh(), half_pi * c * u.cosh()),
        };
        Node {
            t: t_f64,
            offset,
            weight,
            ln_offset: offset.to_f64().ln(),
        }
    }
}

/// One node: its t, the offset that places its point (see the module doc) and its weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node<T> {
    /// The node's t (a dyadic number, exact in f64).
    pub t: f64,
    /// tanh-sinh: the complement δ = 1 - |x|; exp-sinh: x; sinh-sinh: |x|.
    pub offset: T,
    /// φ'(t), without the step h and without the interval's half-width.
    pub weight: T,
    /// ln(offset) in f64, for the local power law of the integrand near an end.
    pub ln_offset: f64,
}

/// The nodes that one level adds.
#[derive(Debug, Clone, PartialEq)]
pub struct Level<T> {
    /// The node t = 0, at level 0 only.
    pub center: Option<Node<T>>,
    /// The nodes at t > 0, t ascending.
    pub right: Vec<Node<T>>,
    /// The nodes at t < 0, |t| ascending (exp-sinh only: for the symmetric transforms the left
    /// side mirrors `right`, and this is empty).
    pub left: Vec<Node<T>>,
}

impl<T: Real> Level<T> {
    /// Computes level `level` of `transform` in precision `T`.
    fn compute(transform: Transform, level: u32) -> Level<T> {
        let (t_left, t_right) = transform.t_range::<T>();
        // Level 0: t = j for j ≥ 1; level k: t = (2i + 1) 2^-k.
        let side = |t_end: f64, sign: f64| -> Vec<Node<T>> {
            let (first, stride) = if level == 0 { (1i64, 1i64) } else { (1, 2) };
            let h_exp = -(level as i32);
            let mut nodes = Vec::new();
            let mut j = first;
            loop {
                let t_f64 = precision::ldexp(j as f64, h_exp) * sign;
                if t_f64.abs() > t_end {
                    break;
                }
                let t = T::from_i64(j).ldexp(h_exp) * sign;
                nodes.push(transform.node(t, t_f64));
                j += stride;
            }
            nodes
        };
        Level {
            center: (level == 0).then(|| transform.node(T::zero(), 0.0)),
            right: side(t_right, 1.0),
            left: if transform.symmetric() {
                Vec::new()
            } else {
                side(t_left, -1.0)
            },
        }
    }
}

/// A computed level, type-erased so that one map holds every precision.
type Erased = Arc<dyn Any + Send + Sync>;

/// One entry per (precision, transform, level).
type Cache = Mutex<CacheMap<(TypeId, Transform, u32), Erased>>;

/// The process-wide cache.
fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(CacheMap::default()))
}

/// Level `level` of `transform` in precision `T`: computed on the first request in this
/// process, shared afterwards (a lock and a hash lookup).
///
/// ```
/// use hpquad::methods::tanh_sinh::nodes::{level, Transform};
/// let zero = level::<f64>(Transform::TanhSinh, 0);
/// assert_eq!(zero.center.map(|n| n.offset), Some(1.0)); // t = 0 is the midpoint
/// assert_eq!(zero.right[0].t, 1.0);
/// assert!(level::<f64>(Transform::TanhSinh, 3).right.iter().all(|n| n.t.fract() != 0.0));
/// ```
pub fn level<T: Real>(transform: Transform, level: u32) -> Arc<Level<T>> {
    let key = (TypeId::of::<T>(), transform, level);
    // A poisoned lock only means another thread panicked while computing a level; the map
    // itself is still consistent (entries are inserted whole).
    let mut map = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = map
        .get(&key)
        .and_then(|e| e.clone().downcast::<Level<T>>().ok())
    {
        return found;
    }
    let computed = Arc::new(Level::<T>::compute(transform, level));
    map.insert(key, computed.clone());
    computed
}
