//! The bin-count slider's scale: log-spaced positions from 1 to `min(n, 2000)`.

/// The bin counts the slider stops at: every count up to 30, then about 300
/// log-spaced counts up to `m_max`, plus `extra` (the audit's bin counts, so every
/// one of them can be reached exactly). Sorted, unique, within `1..=m_max`.
pub fn steps(m_max: usize, extra: &[usize]) -> Vec<usize> {
    let m_max = m_max.max(1);
    let mut out: Vec<usize> = (1..=m_max.min(30)).collect();
    if m_max > 30 {
        let n = 300;
        let (lo, hi) = (30f64.ln(), (m_max as f64).ln());
        for i in 0..=n {
            let m = (lo + (hi - lo) * i as f64 / n as f64).exp().round() as usize;
            out.push(m.clamp(1, m_max));
        }
    }
    out.extend(extra.iter().copied().filter(|&m| (1..=m_max).contains(&m)));
    out.push(m_max);
    out.sort_unstable();
    out.dedup();
    out
}

/// The slider position of bin count `m` (the nearest step).
pub fn position(steps: &[usize], m: usize) -> usize {
    match steps.binary_search(&m) {
        Ok(i) => i,
        Err(0) => 0,
        Err(i) if i >= steps.len() => steps.len() - 1,
        Err(i) => {
            if m - steps[i - 1] <= steps[i] - m {
                i - 1
            } else {
                i
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_cover_the_range() {
        let s = steps(450, &[1, 2, 5, 10, 15, 20, 100, 450, 900]);
        assert_eq!(s[0], 1);
        assert_eq!(*s.last().unwrap(), 450);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        for m in [1, 2, 5, 10, 15, 20, 100, 450] {
            assert!(s.contains(&m));
        }
        assert!(!s.contains(&900));
        let s = steps(2000, &[]);
        assert!(s.len() < 400 && *s.last().unwrap() == 2000);
        assert_eq!(steps(1, &[1, 2]), vec![1]);
        assert_eq!(position(&s, 2000), s.len() - 1);
        assert_eq!(s[position(&s, 7)], 7);
        assert_eq!(position(&[1, 5, 10], 4), 1);
    }
}
