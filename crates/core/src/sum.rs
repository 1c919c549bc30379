//! Compensated summation (Neumaier's variant of Kahan's algorithm).
//!
//! The fixtures' reference values use correctly rounded sums; a Neumaier sum is
//! within a couple of ulps of that for the sums this crate takes, at about the cost
//! of four additions per term.

/// A running compensated sum.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sum {
    hi: f64,
    lo: f64,
}

impl Sum {
    /// An empty sum (value 0).
    pub const fn new() -> Self {
        Sum { hi: 0.0, lo: 0.0 }
    }

    /// Adds `x`.
    #[inline(always)]
    pub fn add(&mut self, x: f64) {
        let t = self.hi + x;
        if self.hi.abs() >= x.abs() {
            self.lo += (self.hi - t) + x;
        } else {
            self.lo += (x - t) + self.hi;
        }
        self.hi = t;
    }

    /// The unevaluated pair `(hi, lo)`; `hi + lo` is the value. Differences of two
    /// such pairs, `(hi1 - hi0) + (lo1 - lo0)`, keep the compensation.
    #[inline(always)]
    pub fn parts(&self) -> (f64, f64) {
        (self.hi, self.lo)
    }

    /// The sum's value.
    #[inline(always)]
    pub fn value(&self) -> f64 {
        self.hi + self.lo
    }
}

impl std::iter::FromIterator<f64> for Sum {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut s = Sum::new();
        for x in iter {
            s.add(x);
        }
        s
    }
}

/// The compensated sum of `values` (0 for an empty iterator).
pub fn sum(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().collect::<Sum>().value()
}

/// The compensated mean of `values`; `None` for an empty iterator.
pub fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut s = Sum::new();
    let mut n = 0usize;
    for x in values {
        s.add(x);
        n += 1;
    }
    (n > 0).then(|| s.value() / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compensates_catastrophic_cancellation() {
        assert_eq!(sum([1e100, 1.0, -1e100]), 1.0);
        assert_eq!(sum([0.1; 10]), 1.0);
        assert_eq!(mean(std::iter::empty()), None);
    }
}
