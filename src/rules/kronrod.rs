//! Gauss–Kronrod rules: the n + 1 nodes added to the n-point Gauss rule are the zeros of the
//! Stieltjes polynomial E_{n+1}, expanded in Legendre polynomials with the coefficients of
//! Patterson's recurrence (T. N. L. Patterson, "The optimum addition of points to quadrature
//! formulae", Math. Comp. 22 (1968), eq. 12), normalised so that the coefficient of P_{n+1}
//! is 1. With that normalisation the Kronrod weights are (Monegato, SIAM Review 24 (1982))
//!
//! ```text
//! at a Gauss node x:   w = w_Gauss(x) + 2 / ((n + 1) P_n'(x) E_{n+1}(x))
//! at a new node y:     w = 2 / ((n + 1) P_n(y) E_{n+1}'(y))
//! ```
//!
//! The new nodes interlace the Gauss nodes (Szegő), so each lies in a known bracket, where a
//! safeguarded Newton iteration finds it.

use precision::Real;

use super::legendre::{self, legendre_p};
use super::{complement, corrected_weight, narrow, KronrodRule};

/// The Stieltjes polynomial E_{n+1} as Σ_{i=1}^{r} a_i P_{2i-1-q}, q = n mod 2 (odd terms for
/// even n, even terms for odd n), a_r = 1.
struct Stieltjes<W> {
    q: usize,
    a: Vec<W>,
}

impl<W: Real> Stieltjes<W> {
    /// Patterson's recurrence: a_{r-k} = -Σ_{i=r+1-k}^{r} (Π_{j=r+1-k}^{i} R(j, k)) a_i with
    /// R a ratio of four linear factors in n, i, k.
    fn new(n: usize) -> Stieltjes<W> {
        let q = n % 2;
        let r = if q == 1 { (n - 1) / 2 + 2 } else { n / 2 + 1 };
        // a[0] is unused, to keep Patterson's 1-based indices.
        let mut a = vec![W::zero(); r + 1];
        a[r] = W::one();
        let (n, q) = (n as i64, q as i64);
        for k in 1..r as i64 {
            let mut ratio = W::one();
            let mut sum = W::zero();
            for i in (r as i64 + 1 - k)..=(r as i64) {
                let num = (n - q + 2 * (i + k - 1))
                    * (n + q + 2 * (k - i + 1))
                    * (n - 1 - q + 2 * (i - k))
                    * (2 * (k + i - 1) - 1 - q - n);
                let den = (n - q + 2 * (i - k))
                    * (2 * (k + i - 1) - q - n)
                    * (n + 1 + q + 2 * (k - i))
                    * (n - 1 - q + 2 * (i + k));
                ratio *= W::from_i64(num) / W::from_i64(den);
                sum += ratio * a[i as usize];
            }
            a[r - k as usize] = -sum;
        }
        Stieltjes { q: q as usize, a }
    }

    /// E(x) and E'(x), with P_j by its recurrence and P_j' by P_{j+1}' = P_{j-1}' + (2j+1) P_j.
    fn eval(&self, x: W) -> (W, W) {
        let degree = 2 * (self.a.len() - 1) - 1 - self.q;
        let (mut p0, mut p1) = (W::one(), x);
        let (mut d0, mut d1) = (W::zero(), W::one());
        let mut e = W::zero();
        let mut de = W::zero();
        let mut add = |j: usize, p: W, d: W| {
            // P_j is a term when j = 2i - 1 - q.
            if j % 2 == (1 + self.q) % 2 {
                let i = (j + 1 + self.q) / 2;
                e += self.a[i] * p;
                de += self.a[i] * d;
            }
        };
        add(0, p0, d0);
        add(1, p1, d1);
        for j in 1..degree {
            let jf = j as f64;
            let p2 = (p1 * x * (2.0 * jf + 1.0) - p0 * jf) / (jf + 1.0);
            let d2 = d0 + p1 * (2.0 * jf + 1.0);
            p0 = p1;
            p1 = p2;
            d0 = d1;
            d1 = d2;
            add(j + 1, p1, d1);
        }
        (e, de)
    }
}

/// A zero of `f` (value and derivative) in (lo, hi), where f changes sign: Newton's steps,
/// bisection whenever a step would leave the bracket, until the step is below the precision;
/// then the step at the final point (the δ of the weight correction).
fn bracketed_zero<W: Real>(mut lo: W, mut hi: W, f: impl Fn(W) -> (W, W)) -> (W, W) {
    let eps = W::epsilon().to_f64();
    let sign_lo = f(lo).0 < W::zero();
    let mut x = (lo + hi).ldexp(-1);
    for _ in 0..200 {
        let (v, d) = f(x);
        if v == W::zero() {
            return (x, W::zero());
        }
        if (v < W::zero()) == sign_lo {
            lo = x;
        } else {
            hi = x;
        }
        let next = x - v / d;
        let step = if next > lo && next < hi {
            next
        } else {
            (lo + hi).ldexp(-1)
        };
        let moved = (step - x).abs().to_f64();
        x = step;
        if moved <= eps * x.abs().to_f64() {
            break;
        }
    }
    let (v, d) = f(x);
    (x, -(v / d))
}

/// The (2n+1)-point rule computed in `W`, rounded to `T`.
pub(super) fn compute<W: Real, T: Real>(n: usize) -> KronrodRule<T> {
    let e = Stieltjes::<W>::new(n);
    let gauss = legendre::nodes_and_weights::<W>(n);
    let scale = W::from_i64(n as i64 + 1);

    // The Kronrod weight at a Gauss node, as a formula valid off the node too.
    let at_gauss = |x: W| {
        let (_, _, dp) = legendre_p(n, x);
        let (ex, _) = e.eval(x);
        legendre::weight(n, x) + W::from_f64(2.0) / (scale * dp * ex)
    };
    // The Kronrod weight at a zero of E.
    let at_new = |y: W| {
        let (p, _, _) = legendre_p(n, y);
        let (_, de) = e.eval(y);
        W::from_f64(2.0) / (scale * p * de)
    };

    let mut nodes = Vec::with_capacity(n + 1);
    let mut complements = Vec::with_capacity(n + 1);
    let mut weights = Vec::with_capacity(n + 1);
    let mut gauss_weights = Vec::with_capacity(n + 1);
    // Largest first: the new node above the largest Gauss node (the zero of E between it and
    // 1), then alternately a Gauss node and the new node below it, down to 0.
    let mut upper = W::one();
    for &(g, gauss_weight, delta) in &gauss {
        let (y, delta_y) = bracketed_zero(g, upper, |x| e.eval(x));
        nodes.push(y);
        complements.push(complement(y, delta_y));
        weights.push(corrected_weight(y, delta_y, at_new));
        gauss_weights.push(W::zero());

        nodes.push(g);
        complements.push(complement(g, delta));
        weights.push(corrected_weight(g, delta, at_gauss));
        gauss_weights.push(gauss_weight);
        upper = g;
    }
    if n.is_multiple_of(2) {
        // E_{n+1} is odd: its smallest non-negative zero is 0, below the smallest positive
        // Gauss node.
        nodes.push(W::zero());
        complements.push(W::one());
        weights.push(at_new(W::zero()));
        gauss_weights.push(W::zero());
    }
    KronrodRule {
        gauss_points: n,
        nodes: nodes.into_iter().map(narrow::<W, T>).collect(),
        complements: complements.into_iter().map(narrow::<W, T>).collect(),
        weights: weights.into_iter().map(narrow::<W, T>).collect(),
        gauss_weights: gauss_weights.into_iter().map(narrow::<W, T>).collect(),
    }
}
