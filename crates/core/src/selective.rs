//! Selective prediction: coverage and the risk–coverage curve of a model that may
//! abstain (verbalised confidence, where an empty confidence means "no answer").
//!
//! Following Geifman & El-Yaniv, "Selective classification for deep neural networks"
//! (NeurIPS 2017), and El-Yaniv & Wiener, "On the foundations of noise-free
//! selective classification" (JMLR 2010): of `n` questions the model answered `a`
//! (`0 ≤ a ≤ n`), each answer `i` with a confidence `c_i ∈ [0, 1]` and a correctness
//! `z_i ∈ {0, 1}`. Answering only the answers whose confidence is at least a
//! threshold `t` gives
//!
//! - coverage `φ(t) = #{i : c_i ≥ t} / n` (abstentions count in `n`, never as
//!   answered), and
//! - selective accuracy `A(t) = Σ_{c_i ≥ t} z_i / #{i : c_i ≥ t}`, selective risk
//!   `R(t) = 1 − A(t)`.
//!
//! The curve has one point per distinct confidence, from the highest down (tied
//! confidences are answered together: no point splits a tie), ending at coverage
//! `a / n`. Its area is the area under the risk–coverage curve (AURC) as a step
//! function of coverage: answers sorted by confidence descending, answer `j`
//! (1-based) adds `R_j / n`, where `R_j` is the selective risk of the point its tie
//! group ends at:
//!
//! `AURC = (1/n) Σ_{j=1..a} R_{g(j)}`,
//!
//! so it spans coverage `[0, a/n]` (a model that abstains more has a shorter curve)
//! and lies in `[0, a/n]`; lower is better. With no answer (`a = 0`) there is no
//! curve: `None`. With `n = 0`: `None`. NaN confidences are abstentions by the
//! caller's reading and must not be passed here.

/// One point of the risk–coverage curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiskCoveragePoint {
    /// The threshold `t`: the lowest confidence answered at this point.
    pub threshold: f64,
    /// `#{c ≥ t} / n`.
    pub coverage: f64,
    /// Selective accuracy `A(t)`.
    pub accuracy: f64,
    /// Selective risk `1 − A(t)`.
    pub risk: f64,
}

/// The risk–coverage curve and its area (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct RiskCoverage {
    /// `a / n`.
    pub coverage: f64,
    /// Answered `a`.
    pub answered: usize,
    /// Total `n` (answered and abstained).
    pub total: usize,
    /// From the highest threshold down.
    pub points: Vec<RiskCoveragePoint>,
    /// AURC.
    pub area: f64,
}

/// The curve of `answered` pairs `(c_i, z_i)` among `total` questions; `None` when
/// nothing was answered or `total < answered.len()`.
pub fn risk_coverage(answered: &[(f64, bool)], total: usize) -> Option<RiskCoverage> {
    let a = answered.len();
    if a == 0 || total < a {
        return None;
    }
    let mut order: Vec<(f64, bool)> = answered.to_vec();
    order.sort_by(|x, y| y.0.total_cmp(&x.0));
    let n = total as f64;
    let mut points = Vec::new();
    let mut area = 0.0;
    let (mut right, mut j) = (0usize, 0usize);
    while j < a {
        let t = order[j].0;
        let start = j;
        while j < a && order[j].0 == t {
            right += order[j].1 as usize;
            j += 1;
        }
        let accuracy = right as f64 / j as f64;
        // the wrong answers' share, not 1 − accuracy (no rounding of the difference)
        let risk = (j - right) as f64 / j as f64;
        area += (j - start) as f64 * risk / n;
        points.push(RiskCoveragePoint {
            threshold: t,
            coverage: j as f64 / n,
            accuracy,
            risk,
        });
    }
    Some(RiskCoverage {
        coverage: a as f64 / n,
        answered: a,
        total,
        points,
        area,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The area by its definition: for every prefix length j of the descending
    /// order, the risk at the end of j's tie group, times 1/n.
    fn naive_area(answered: &[(f64, bool)], n: usize) -> f64 {
        let mut s = 0.0;
        for &(c, _) in answered {
            let kept: Vec<&(f64, bool)> = answered.iter().filter(|x| x.0 >= c).collect();
            let wrong = kept.iter().filter(|x| !x.1).count();
            s += wrong as f64 / kept.len() as f64;
        }
        s / n as f64
    }

    #[test]
    fn a_small_example_by_hand() {
        // confidences .9 (right), .8 (wrong), .8 (right), .5 (wrong); 6 questions
        let ans = [(0.9, true), (0.8, false), (0.8, true), (0.5, false)];
        let rc = risk_coverage(&ans, 6).unwrap();
        assert_eq!(rc.coverage, 4.0 / 6.0);
        let pts: Vec<(f64, f64)> = rc.points.iter().map(|p| (p.coverage, p.risk)).collect();
        assert_eq!(
            pts,
            vec![(1.0 / 6.0, 0.0), (3.0 / 6.0, 1.0 / 3.0), (4.0 / 6.0, 0.5)]
        );
        // 1 × 0 + 2 × 1/3 + 1 × 1/2, over 6
        assert!((rc.area - (2.0 / 3.0 + 0.5) / 6.0).abs() < 1e-15);
    }

    #[test]
    fn the_area_equals_its_definition_on_random_answers() {
        let mut s = 12345u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..50 {
            let a = 1 + (next() * 40.0) as usize;
            let n = a + (next() * 10.0) as usize;
            let ans: Vec<(f64, bool)> = (0..a)
                .map(|_| (((next() * 10.0).floor() / 10.0), next() < 0.6))
                .collect();
            let rc = risk_coverage(&ans, n).unwrap();
            assert!((rc.area - naive_area(&ans, n)).abs() < 1e-12);
            assert_eq!(rc.points.last().unwrap().coverage, a as f64 / n as f64);
        }
    }

    #[test]
    fn nothing_answered_has_no_curve() {
        assert_eq!(risk_coverage(&[], 5), None);
        assert_eq!(risk_coverage(&[(0.5, true)], 0), None);
    }
}
