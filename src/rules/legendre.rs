//! Gauss–Legendre nodes and weights: the zeros x_k of the Legendre polynomial P_n by Newton's
//! method from Tricomi's asymptotic guesses, and w_k = 2 / ((1 - x_k²) P_n'(x_k)²)
//! (Abramowitz & Stegun 25.4.29; Golub–Welsch would need an eigensolver in T for the same).

use precision::Real;

use precision::Dd;

use super::{complement, narrow, Rule, Spectrum};

/// P_n(x), P_{n-1}(x) and P_n'(x) by the three-term recurrence
/// (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}, and P_n' = n (x P_n - P_{n-1}) / (x² - 1).
pub(super) fn legendre_p<W: Real>(n: usize, x: W) -> (W, W, W) {
    let mut previous = W::one();
    let mut current = x;
    if n == 0 {
        return (W::one(), W::zero(), W::zero());
    }
    for k in 1..n {
        let k = k as f64;
        let next = (current * x * (2.0 * k + 1.0) - previous * k) / (k + 1.0);
        previous = current;
        current = next;
    }
    // x² - 1 as (x - 1)(x + 1): exact differences near ±1, where the nodes crowd.
    let derivative = (x * current - previous) * (n as f64) / ((x - 1.0) * (x + 1.0));
    (current, previous, derivative)
}

/// Newton's step P_n(x) / P_n'(x) towards a zero of P_n.
fn newton_step<W: Real>(n: usize, x: W) -> W {
    let (p, _, dp) = legendre_p(n, x);
    p / dp
}

/// The n-point rule's non-negative nodes (largest first) in `W`, each with its last Newton
/// step δ (the distance from the node, as rounded in `W`, to the true zero) and P_n' there.
///
/// Newton runs in f64, then (for a quad-double `W`) in double-double, and only its last
/// steps in `W`: each precision's steps cost a recurrence of n steps, a quad-double one
/// several times a double-double one, and a start good to the narrower precision leaves two
/// or three steps in `W` where a start from f64 left four or five.
fn zeros_with_derivative<W: Real>(n: usize) -> Vec<(W, W, W)> {
    let half = n.div_ceil(2);
    let nf = n as f64;
    (1..=half)
        .map(|k| {
            if n % 2 == 1 && k == half {
                // P_n is odd: 0 is a zero, exactly.
                let (_, _, dp) = legendre_p(n, W::zero());
                return (W::zero(), W::zero(), dp);
            }
            // Tricomi: x_k ≈ (1 - 1/(8n²) + 1/(8n³)) cos(π (4k - 1) / (4n + 2)), good to
            // O(n^-4); Newton doubles the digits from there.
            let theta = std::f64::consts::PI * (4.0 * k as f64 - 1.0) / (4.0 * nf + 2.0);
            let guess = (1.0 - 1.0 / (8.0 * nf * nf) + 1.0 / (8.0 * nf * nf * nf)) * theta.cos();
            let coarse = settle(guess, |x| newton_step(n, x));
            let start = if W::LIMBS > 2 {
                narrow::<Dd, W>(settle(Dd::from_f64(coarse), |x| newton_step(n, x)))
            } else {
                W::from_f64(coarse)
            };
            let x = newton(start, |x| newton_step(n, x)).0;
            let (p, _, dp) = legendre_p(n, x);
            (x, -(p / dp), dp)
        })
        .collect()
}

/// Newton's iteration in a precision narrower than the rule's, to where its steps stop
/// shrinking or fall to a few ulp: a start for the next precision, not a result.
fn settle<W: Real>(mut x: W, step: impl Fn(W) -> W) -> W {
    let eps = W::epsilon().to_f64();
    let mut last = f64::INFINITY;
    for _ in 0..16 {
        let dx = step(x);
        let size = dx.abs().to_f64();
        if size >= last {
            break;
        }
        x -= dx;
        last = size;
        if size <= 4.0 * eps * x.abs().to_f64() {
            break;
        }
    }
    x
}

/// Newton's iteration x ← x - step(x) until the step is below the precision of x, then the
/// step at the final x (the δ of the weight correction).
pub(super) fn newton<W: Real>(mut x: W, step: impl Fn(W) -> W) -> (W, W) {
    let eps = W::epsilon().to_f64();
    // Quadratic convergence from a guess good to a few digits takes a handful of steps; the
    // cap only stops an iteration that rounding keeps one ulp from settling.
    for _ in 0..64 {
        let dx = step(x);
        x -= dx;
        if dx.abs().to_f64() <= eps * x.abs().to_f64() {
            break;
        }
    }
    (x, -step(x))
}

/// The Gauss–Legendre weight formula, valid at any x (not only at a zero).
pub(super) fn weight<W: Real>(n: usize, x: W) -> W {
    let (_, _, dp) = legendre_p(n, x);
    W::from_f64(2.0) / ((W::one() - x) * (W::one() + x) * dp * dp)
}

/// The non-negative nodes, each with its weight and its last Newton step δ, in `W`:
/// w = 2 / ((1 - x²) P_n'(x)²) with P_n' from the last Newton evaluation, corrected to the
/// true zero x + δ by δ w'(x). δ is below an ulp of x, so w' needs a few digits only: it is a
/// central difference of the f64 weight (step 10^-4 (1 - |x|), good to about 8 digits), where
/// a difference in `W` cost two more recurrences per node.
pub(super) fn nodes_and_weights<W: Real>(n: usize) -> Vec<(W, W, W)> {
    zeros_with_derivative::<W>(n)
        .into_iter()
        .map(|(x, delta, dp)| {
            let w = W::from_f64(2.0) / ((W::one() - x) * (W::one() + x) * dp * dp);
            if delta == W::zero() {
                return (x, w, delta);
            }
            let x64 = x.to_f64();
            let h = 1e-4 * (1.0 - x64.abs());
            let slope = (weight(n, x64 + h) - weight(n, x64 - h)) / (2.0 * h);
            (x, w + delta * slope, delta)
        })
        .collect()
}

/// The n-point rule computed in `W`, rounded to `T`, with its spectrum functionals.
pub(super) fn compute<W: Real, T: Real>(n: usize) -> Rule<T> {
    let wide = nodes_and_weights::<W>(n);
    let spectrum = spectrum(n, &wide);
    Rule {
        points: n,
        nodes: wide.iter().map(|&(x, _, _)| narrow(x)).collect(),
        complements: wide
            .iter()
            .map(|&(x, _, delta)| narrow(complement(x, delta)))
            .collect(),
        weights: wide.iter().map(|&(_, w, _)| narrow(w)).collect(),
        spectrum,
    }
}

/// The functionals that give the Legendre coefficients c_k of the rule's interpolant at the
/// degrees of [`Spectrum::degrees_for`]: c_k = (2k + 1)/2 Σ w_i P_k(x_i) f(x_i), exact for
/// a polynomial of degree below n (discrete orthogonality of P_j and P_k under the rule
/// for j + k ≤ 2n - 1). One recurrence per node, in `W`, for the four degrees at once.
fn spectrum<W: Real, T: Real>(n: usize, nodes_and_weights: &[(W, W, W)]) -> Option<Spectrum<T>> {
    let degrees = Spectrum::<T>::degrees_for(n)?;
    let top = degrees[3];
    let mut functionals: [Vec<T>; 4] = Default::default();
    for &(x, w, _) in nodes_and_weights {
        let (mut previous, mut current) = (W::one(), x);
        let mut at = |k: usize, p: W| {
            if let Some(j) = degrees.iter().position(|&d| d == k) {
                functionals[j].push(narrow::<W, T>(w * p * (k as f64 + 0.5)));
            }
        };
        at(0, previous);
        at(1, current);
        for k in 1..top {
            let kf = k as f64;
            let next = (current * x * (2.0 * kf + 1.0) - previous * kf) / (kf + 1.0);
            previous = current;
            current = next;
            at(k + 1, current);
        }
    }
    Some(Spectrum::new(degrees, functionals))
}
