//! The numbers of "Beyond ECE" (seed 002) that the Beyond-ECE lab reproduces, as the
//! paper prints them: Table 5 (Perfect calibration at `N = 100` and `N = 10,000`) and
//! Tables 8 and 9 (every distribution and calibration mode at `N = 1000`), each a mean
//! over 100 repetitions. Percentages are divided by 100, so every value is a fraction;
//! `-0.00 %` stays `-0.0`. `crates/core/tests/lab_paper.rs` checks every value against
//! the seed's text.

use crate::synth::{Distribution, Mode};

/// One row of the seed's Table 5 as printed (fractions, not percents).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperRow {
    /// `N`.
    pub n: usize,
    /// The distribution.
    pub dist: Distribution,
    /// Mean Acc, cwA, gain, CSR, σ_CSR, `>1σ`, `>3σ`, P_risk.
    pub values: [f64; 8],
}

/// One row of the seed's Tables 8 and 9 (`N = 1000`), as printed (fractions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperCell {
    /// The distribution.
    pub dist: Distribution,
    /// The calibration mode.
    pub mode: Mode,
    /// Mean Acc, cwA, gain, CSR, σ_CSR, `>1σ`, `>3σ`, P_risk.
    pub values: [f64; 8],
}

/// The sample size of every row of Tables 8 and 9.
pub const TABLES_8_9_N: usize = 1000;

/// The repetitions behind every mean of Tables 5, 8 and 9.
pub const PAPER_REPS: usize = 100;

macro_rules! t5 {
    ($n:expr, $d:ident, $($v:expr),*) => {
        PaperRow { n: $n, dist: Distribution::$d, values: [$($v),*] }
    };
}

macro_rules! t89 {
    ($d:ident, $m:ident, $($v:expr),*) => {
        PaperCell { dist: Distribution::$d, mode: Mode::$m, values: [$($v),*] }
    };
}

/// The Perfect-calibration rows of Table 5 of "Beyond ECE" (seed 002) at
/// `N = 100` and `N = 10,000`, 100 repetitions each (columns: Acc, cwA, gain, CSR,
/// σ_CSR, `>1σ`, `>3σ`, P_risk).
#[rustfmt::skip]
pub const PAPER_TABLE5: [PaperRow; 20] = [
    t5!(100,   Uniform,        0.4987, 0.6626, 0.3287, 1.0251,  0.3108, 0.13, 0.03, 0.2984),
    t5!(100,   SkewHigh,       0.8662, 0.8956, 0.2199, 0.9115, 11.6795, 0.02,  0.0, 0.1616),
    t5!(100,   SkewLow,        0.1456, 0.3361, 0.2243, 0.9985,  0.0500, 0.15,  0.0, 0.3253),
    t5!(100,   Bimodal,        0.4970, 0.8084, 0.6204, 1.2019,  7.8461, 0.06, 0.02,  0.179),
    t5!(100,   TightHi,        0.9039, 0.9075, 0.0391, 0.9638,  0.6288,  0.1, 0.01, 0.2646),
    t5!(100,   TightLo,        0.0991, 0.1324, 0.0375, 1.0004,  0.0339, 0.19,  0.0,  0.373),
    t5!(100,   Normal,         0.6947, 0.7087, 0.0461, 1.0182,  0.1920, 0.17, 0.01, 0.3581),
    t5!(100,   LogUniformLow,  0.1103, 0.4940, 0.4339, 0.9918,  0.0783, 0.07,  0.0, 0.2853),
    t5!(100,   LogUniformHigh, 0.9358, 0.9620, 0.4175, 0.4842, 27.1426,  0.0,  0.0, 0.0369),
    t5!(100,   Bell,           0.4950, 0.5407, 0.0912, 1.0124,  0.1120, 0.21,  0.0, 0.3783),
    t5!(10_000, Uniform,        0.5006, 0.6671, 0.3333, 0.9993,  0.0375, 0.09, 0.01, 0.3275),
    t5!(10_000, SkewHigh,       0.8571, 0.8889, 0.2225, 1.0297, 16.1439, 0.01, 0.01, 0.1772),
    t5!(10_000, SkewLow,        0.1423, 0.3329, 0.2222, 1.0006,  0.0050, 0.18,  0.0, 0.4214),
    t5!(10_000, Bimodal,        0.5002, 0.8096, 0.6191, 1.0072,  3.6306, 0.01,  0.0, 0.1672),
    t5!(10_000, TightHi,        0.8997, 0.9034, 0.0369, 1.0056,  0.0790, 0.12, 0.01,   0.33),
    t5!(10_000, TightLo,        0.1002, 0.1332, 0.0367, 0.9999,  0.0034, 0.14,  0.0, 0.3756),
    t5!(10_000, Normal,         0.6986, 0.7128, 0.0472, 1.0026,  0.0190, 0.21, 0.02, 0.4026),
    t5!(10_000, LogUniformLow,  0.1087, 0.4989, 0.4378, 1.0012,  0.0106, 0.14, 0.01, 0.3799),
    t5!(10_000, LogUniformHigh, 0.9342, 0.9611, 0.4089, 0.9608,  2.7029, 0.02, 0.01, 0.1022),
    t5!(10_000, Bell,           0.5003, 0.5457, 0.0908, 0.9990,  0.0112, 0.14,  0.0,  0.312),
];

/// Tables 8 (modes Random 0.5 to Random over c) and 9 (the three overconfident modes)
/// of "Beyond ECE" (seed 002): every distribution under every calibration mode at
/// `N = 1000`, 100 repetitions each, in the paper's order (mode by mode, the ten
/// distributions within each). Columns as in [`PAPER_TABLE5`].
#[rustfmt::skip]
#[allow(clippy::approx_constant)] // 0.4342 is a printed gain, not log10(e)
pub const PAPER_TABLES_8_9: [PaperCell; 80] = [
    t89!(Uniform,        Random05,        0.5007, 0.5001, -0.0013,      7.2495,  0.1045,  1.0,  1.0,    1.0),
    t89!(SkewHigh,       Random05,        0.5032, 0.5027, -0.0008, 138863.1123, 88.6478,  1.0,  1.0,    1.0),
    t89!(SkewLow,        Random05,        0.5027, 0.5014, -0.0025,      0.6216,  0.0157,  0.0,  0.0,    0.0),
    t89!(Bimodal,        Random05,        0.5000, 0.4997, -0.0006, 296252.2417,  5.6867,  1.0,  1.0,    1.0),
    t89!(TightHi,        Random05,        0.5010, 0.5009,    -0.0,     37.2159,  0.2336,  1.0,  1.0,    1.0),
    t89!(TightLo,        Random05,        0.4987, 0.4991,  0.0007,      0.5591,  0.0107,  0.0,  0.0,    0.0),
    t89!(Normal,         Random05,        0.4982, 0.4985,  0.0005,      2.0802,  0.0560,  1.0,  1.0,    1.0),
    t89!(LogUniformLow,  Random05,        0.4997, 0.4987, -0.0021,      0.9792,  0.0300, 0.22, 0.19, 0.2558),
    t89!(LogUniformHigh, Random05,        0.5029, 0.5028, -0.0001,  36163.8773,  8.5918,  1.0,  1.0,    1.0),
    t89!(Bell,           Random05,        0.4978, 0.4973,  -0.001,      1.1266,  0.0352, 0.99, 0.63, 0.9918),
    t89!(Uniform,        Perfect,         0.4977, 0.6638,  0.3308,      1.0062,  0.1045, 0.06, 0.01, 0.3252),
    t89!(SkewHigh,       Perfect,         0.8571, 0.8886,  0.2204,      1.0249, 88.6478, 0.01, 0.01, 0.1323),
    t89!(SkewLow,        Perfect,         0.1405, 0.3274,  0.2176,      1.0032,  0.0157, 0.24,  0.0, 0.4165),
    t89!(Bimodal,        Perfect,         0.5000, 0.8094,   0.619,      0.9768,  5.6867,  0.0,  0.0, 0.1619),
    t89!(TightHi,        Perfect,         0.9006, 0.9043,  0.0378,      0.9719,  0.2336, 0.09,  0.0, 0.2479),
    t89!(TightLo,        Perfect,         0.0999, 0.1336,  0.0375,      0.9998,  0.0107, 0.16, 0.01, 0.3782),
    t89!(Normal,         Perfect,         0.6999, 0.7139,  0.0467,      0.9994,  0.0560, 0.17, 0.01, 0.3529),
    t89!(LogUniformLow,  Perfect,         0.1068, 0.4944,  0.4342,      0.9990,  0.0300, 0.06, 0.01, 0.3333),
    t89!(LogUniformHigh, Perfect,         0.9333, 0.9608,  0.4121,      0.7147,  8.5918, 0.01,  0.0, 0.0932),
    t89!(Bell,           Perfect,         0.4987, 0.5443,  0.0911,      0.9997,  0.0352, 0.17,  0.0, 0.3916),
    t89!(Uniform,        UnderconfLinear, 0.6019, 0.7353,  0.3354,      0.7913,  0.1045,  0.0,  0.0, 0.0059),
    t89!(SkewHigh,       UnderconfLinear, 0.8850, 0.9102,  0.2191,      0.7617, 88.6478,  0.0,  0.0, 0.0571),
    t89!(SkewLow,        UnderconfLinear, 0.3122, 0.4623,  0.2185,      0.8029,  0.0157,  0.0,  0.0,    0.0),
    t89!(Bimodal,        UnderconfLinear, 0.5994, 0.8480,   0.621,      0.7849,  5.6867,  0.0,  0.0, 0.0339),
    t89!(TightHi,        UnderconfLinear, 0.9199, 0.9229,  0.0373,      0.7929,  0.2336, 0.03,  0.0, 0.0606),
    t89!(TightLo,        UnderconfLinear, 0.2824, 0.3085,  0.0363,      0.7971,  0.0107,  0.0,  0.0,    0.0),
    t89!(Normal,         UnderconfLinear, 0.7580, 0.7695,  0.0476,      0.8012,  0.0560,  0.0,  0.0,    0.0),
    t89!(LogUniformLow,  UnderconfLinear, 0.2824, 0.5981,  0.4404,      0.8033,  0.0300,  0.0,  0.0,    0.0),
    t89!(LogUniformHigh, UnderconfLinear, 0.9480, 0.9694,  0.4121,      0.6383,  8.5918, 0.01,  0.0, 0.0485),
    t89!(Bell,           UnderconfLinear, 0.5982, 0.6350,  0.0915,      0.8016,  0.0352,  0.0,  0.0,    0.0),
    t89!(Uniform,        UnderconfSqrt,   0.6670, 0.8006,  0.4014,      0.6127,  0.1045,  0.0,  0.0, 0.0077),
    t89!(SkewHigh,       UnderconfSqrt,   0.9202, 0.9396,   0.243,      0.5230, 88.6478, 0.01, 0.01, 0.0203),
    t89!(SkewLow,        UnderconfSqrt,   0.3137, 0.5482,   0.342,      0.7790,  0.0157,  0.0,  0.0,    0.0),
    t89!(Bimodal,        UnderconfSqrt,   0.6169, 0.8834,  0.6959,      0.6306,  5.6867,  0.0,  0.0,    0.0),
    t89!(TightHi,        UnderconfSqrt,   0.9487, 0.9506,  0.0366,      0.4973,  0.2336,  0.0,  0.0, 0.0065),
    t89!(TightLo,        UnderconfSqrt,   0.2970, 0.3562,  0.0844,      0.7769,  0.0107,  0.0,  0.0,    0.0),
    t89!(Normal,         UnderconfSqrt,   0.8350, 0.8433,  0.0501,      0.5439,  0.0560,  0.0,  0.0,    0.0),
    t89!(LogUniformLow,  UnderconfSqrt,   0.2135, 0.6645,  0.5737,      0.8515,  0.0300,  0.0,  0.0,    0.0),
    t89!(LogUniformHigh, UnderconfSqrt,   0.9615, 0.9787,   0.447,      0.3393,  8.5918,  0.0,  0.0, 0.0191),
    t89!(Bell,           UnderconfSqrt,   0.6949, 0.7270,  0.1055,      0.6002,  0.0352,  0.0,  0.0,    0.0),
    t89!(Uniform,        RandomOver,      0.7503, 0.8331,  0.3318,      0.5022,  0.1045,  0.0,  0.0,    0.0),
    t89!(SkewHigh,       RandomOver,      0.9278, 0.9438,  0.2213,      0.4553, 88.6478,  0.0,  0.0, 0.0101),
    t89!(SkewLow,        RandomOver,      0.5727, 0.6693,  0.2263,      0.4975,  0.0157,  0.0,  0.0,    0.0),
    t89!(Bimodal,        RandomOver,      0.7491, 0.9049,  0.6211,      0.4865,  5.6867,  0.0,  0.0, 0.0064),
    t89!(TightHi,        RandomOver,      0.9493, 0.9512,  0.0374,      0.5199,  0.2336, 0.01, 0.01, 0.0155),
    t89!(TightLo,        RandomOver,      0.5496, 0.5656,  0.0357,      0.5004,  0.0107,  0.0,  0.0,    0.0),
    t89!(Normal,         RandomOver,      0.8488, 0.8559,  0.0469,      0.5042,  0.0560,  0.0,  0.0,    0.0),
    t89!(LogUniformLow,  RandomOver,      0.5523, 0.7480,  0.4372,      0.5036,  0.0300,  0.0,  0.0,    0.0),
    t89!(LogUniformHigh, RandomOver,      0.9665, 0.9802,   0.411,      0.5388,  8.5918, 0.01,  0.0,  0.028),
    t89!(Bell,           RandomOver,      0.7486, 0.7719,  0.0929,      0.5004,  0.0352,  0.0,  0.0,    0.0),
    t89!(Uniform,        OverconfSqrt,    0.3345, 0.4677,  0.2003,      1.9643,  0.1045,  1.0, 0.96, 0.9994),
    t89!(SkewHigh,       OverconfSqrt,    0.6860, 0.7249,  0.1239,     10.4461, 88.6478, 0.74, 0.26, 0.8992),
    t89!(SkewLow,        OverconfSqrt,    0.0804, 0.1966,  0.1265,      1.1012,  0.0157,  1.0,  1.0,    1.0),
    t89!(Bimodal,        OverconfSqrt,    0.3849, 0.6530,  0.4362,      5.7695,  5.6867, 0.68,  0.3, 0.8742),
    t89!(TightHi,        OverconfSqrt,    0.7014, 0.7080,  0.0224,      4.4671,  0.2336,  1.0,  1.0,    1.0),
    t89!(TightLo,        OverconfSqrt,    0.0517, 0.0699,  0.0192,      1.0554,  0.0107,  1.0, 0.99,    1.0),
    t89!(Normal,         OverconfSqrt,    0.4622, 0.4760,  0.0257,      1.9201,  0.0560,  1.0,  1.0,    1.0),
    t89!(LogUniformLow,  OverconfSqrt,    0.0655, 0.3269,  0.2799,      1.1650,  0.0300, 0.99, 0.85, 0.9949),
    t89!(LogUniformHigh, OverconfSqrt,    0.8614, 0.8964,  0.2528,    134.9216,  8.5918, 0.96, 0.79, 0.9805),
    t89!(Bell,           OverconfSqrt,    0.2993, 0.3322,   0.047,      1.4764,  0.0352,  1.0,  1.0,    1.0),
    t89!(Uniform,        OverconfHalf,    0.2510, 0.3344,  0.1115,      8.8308,  0.1045,  1.0,  1.0,    1.0),
    t89!(SkewHigh,       OverconfHalf,    0.4277, 0.4436,  0.0278,  57168.2115, 88.6478,  1.0,  1.0,    1.0),
    t89!(SkewLow,        OverconfHalf,    0.0713, 0.1647,  0.1006,      1.1243,  0.0157,  1.0,  1.0,    1.0),
    t89!(Bimodal,        OverconfHalf,    0.2511, 0.4061,  0.2071,  65437.4015,  5.6867,  1.0,  1.0,    1.0),
    t89!(TightHi,        OverconfHalf,    0.4516, 0.4534,  0.0033,     28.5956,  0.2336,  1.0,  1.0,    1.0),
    t89!(TightLo,        OverconfHalf,    0.0500, 0.0665,  0.0174,      1.0576,  0.0107,  1.0,  1.0,    1.0),
    t89!(Normal,         OverconfHalf,    0.3524, 0.3594,  0.0108,      2.5909,  0.0560,  1.0,  1.0,    1.0),
    t89!(LogUniformLow,  OverconfHalf,    0.0545, 0.2534,  0.2105,      1.5712,  0.0300,  1.0, 0.99,    1.0),
    t89!(LogUniformHigh, OverconfHalf,    0.4683, 0.4823,  0.0263,  37298.3427,  8.5918,  1.0,  1.0,    1.0),
    t89!(Bell,           OverconfHalf,    0.2478, 0.2700,  0.0296,      1.6257,  0.0352,  1.0,  1.0,    1.0),
    t89!(Uniform,        RandomUnder,     0.2487, 0.3321,   0.111,      6.1840,  0.1045,  1.0,  1.0,    1.0),
    t89!(SkewHigh,       RandomUnder,     0.4293, 0.4450,  0.0275, 116891.8558, 88.6478, 0.99, 0.99, 0.9953),
    t89!(SkewLow,        RandomUnder,     0.0711, 0.1671,  0.1035,      1.1225,  0.0157,  1.0,  1.0,    1.0),
    t89!(Bimodal,        RandomUnder,     0.2505, 0.4061,  0.2078,  23900.3248,  5.6867,  1.0, 0.98, 0.9984),
    t89!(TightHi,        RandomUnder,     0.4502, 0.4521,  0.0034,     29.2531,  0.2336,  1.0,  1.0,    1.0),
    t89!(TightLo,        RandomUnder,     0.0508, 0.0687,  0.0189,      1.0565,  0.0107,  1.0,  1.0,    1.0),
    t89!(Normal,         RandomUnder,     0.3500, 0.3567,  0.0104,      2.5731,  0.0560,  1.0,  1.0,    1.0),
    t89!(LogUniformLow,  RandomUnder,     0.0550, 0.2537,  0.2104,      1.6221,  0.0300,  1.0,  1.0,    1.0),
    t89!(LogUniformHigh, RandomUnder,     0.4664, 0.4798,  0.0252,  36470.1166,  8.5918,  1.0,  1.0,    1.0),
    t89!(Bell,           RandomUnder,     0.2495, 0.2718,  0.0297,      1.6220,  0.0352,  1.0,  1.0,    1.0),
];

/// The paper's Table 5 row for `(dist, n)`, if it prints one.
pub fn paper_row(dist: Distribution, n: usize) -> Option<&'static PaperRow> {
    PAPER_TABLE5.iter().find(|r| r.dist == dist && r.n == n)
}

/// The paper's Tables 8–9 row for `(dist, mode)` (at `N = 1000`).
pub fn paper_cell(dist: Distribution, mode: Mode) -> Option<&'static PaperCell> {
    PAPER_TABLES_8_9
        .iter()
        .find(|r| r.dist == dist && r.mode == mode)
}

/// Which paper table a cell of Tables 8–9 is printed in: 8 for the first five modes,
/// 9 for the three overconfident ones.
pub fn table_of(mode: Mode) -> u8 {
    match mode {
        Mode::OverconfSqrt | Mode::OverconfHalf | Mode::RandomUnder => 9,
        _ => 8,
    }
}
