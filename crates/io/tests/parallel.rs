//! Reading a large CSV in parallel gives the serial read's result: the same dataset,
//! the same errors in the same order with the same rows and lines, the same limit.
//! Generated tables (numeric and named labels, long format, integer and text ids,
//! errors of every kind, quoted fields holding line breaks, CRLF, blank lines) are
//! cut at random offsets (the parallel driver takes any cut: a part that does not
//! start at a record boundary is read again serially) and compared with the serial
//! read; one file of more than 8 MiB goes through `read_path` itself.

use calibscope_io::fuzz::parse_parallel;
use calibscope_io::{parse_bytes_any, read_path, Options};
use proptest::prelude::*;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// The kinds of table generated.
const SHAPES: [&str; 7] = [
    "label,p_0,p_1,p_2",
    "label,p",
    "label,p_cat,p_dog",
    "model,label,p",
    "id,label,p_0,p_1",
    "label,p_0,p_1,note",
    "label,p,model",
];

/// One data row of `shape` (fields without line end), sometimes broken. Odd
/// values (integer labels among names, other model names, text ids) come from row
/// `late` on, so that they start in any part.
fn row(rng: &mut Rng, shape: usize, i: usize, errors: usize, late: usize) -> String {
    let odd = |rng: &mut Rng, percent| i >= late && rng.chance(percent);
    let a = rng.below(1000) as f64 / 1000.0;
    let label = rng.below(2);
    let mut fields: Vec<String> = match shape {
        0 => {
            let b = rng.below(1000 - (a * 1000.0) as usize) as f64 / 1000.0;
            vec![
                rng.below(3).to_string(),
                format!("{a}"),
                format!("{b}"),
                format!("{:.3}", 1.0 - a - b),
            ]
        }
        1 => vec![label.to_string(), format!("{a:.17}")],
        2 => {
            let names = ["cat", "dog", "cat", "dog", "0", "1"];
            // names first and some integers from row `late` on, or the reverse
            let ints_first = late % 2 == 1;
            let l = if odd(rng, 3) != ints_first { 4 } else { 0 } + rng.below(2);
            vec![
                names[l].to_string(),
                format!("{a}"),
                format!("{:.3}", 1.0 - a),
            ]
        }
        3 | 6 => {
            let models = ["m1", "m2", "m1", "m2", "m3", " m1"];
            let m = if odd(rng, 2) { 4 + rng.below(2) } else { i % 2 };
            let mut f = vec![
                models[m].to_string(),
                (i / 2 % 2).to_string(),
                format!("{a}"),
            ];
            if shape == 6 {
                f.rotate_left(1);
            }
            f
        }
        4 => {
            let id = match rng.below(40) {
                0 if i >= late => format!("x{i}"),
                1 => format!("00{i}"),
                _ => i.to_string(),
            };
            vec![
                id,
                label.to_string(),
                format!("{a}"),
                format!("{:.3}", 1.0 - a),
            ]
        }
        _ => {
            let note = match rng.below(6) {
                0 => "\"two\nlines\"".to_string(),
                1 => "\"a,\r\n\"\"b\"\"\"".to_string(),
                2 => "\"\"".to_string(),
                _ => "plain".to_string(),
            };
            vec![
                label.to_string(),
                format!("{a}"),
                format!("{:.3}", 1.0 - a),
                note,
            ]
        }
    };
    if rng.below(100) < errors {
        let n = fields.len();
        let f = rng.below(n);
        match rng.below(9) {
            0 => {
                fields.pop();
            }
            1 => fields.push("9".into()),
            2 => fields[n - 1] = "abc".into(),
            3 => fields[n - 1] = String::new(),
            4 => fields[n - 1] = "1.5".into(),
            5 => fields[f] = "-1".into(),
            6 => fields[f] = "\"0.5\"".into(),
            7 => return "   ".into(),
            _ => return String::new(),
        }
    }
    fields.join(",")
}

/// A generated table, over 4 KiB (the parser decides the format after 4 KiB).
fn table(seed: u64) -> (Vec<u8>, Options) {
    let mut rng = Rng(seed | 1);
    let shape = rng.below(SHAPES.len());
    let eol = if rng.chance(30) { "\r\n" } else { "\n" };
    let errors = [0, 1, 5, 40][rng.below(4)];
    let mut text = format!("{}{eol}", SHAPES[shape]);
    let rows = 250 + rng.below(500);
    let late = rng.below(rows * 2);
    for i in 0..rows {
        text.push_str(&row(&mut rng, shape, i, errors, late));
        text.push_str(eol);
    }
    for _ in 0..rng.below(3) {
        text.push_str(eol);
    }
    if rng.chance(20) {
        text.truncate(text.trim_end().len());
    }
    let options = Options {
        max_errors: [1, 3, 100][rng.below(3)],
        ..Options::default()
    };
    (text.into_bytes(), options)
}

fn serial(bytes: &[u8], options: &Options) -> String {
    format!("{:?}", parse_bytes_any("t.csv", bytes, options))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn parallel_read_is_the_serial_read(
        seed in any::<u64>(),
        cuts in proptest::collection::vec(0.0f64..1.0, 1..12),
        at_lines in any::<bool>(),
        head in 4096usize..4400,
        threads in 1usize..4,
        slice in prop::sample::select(vec![1usize, 7, 64, 4096, 1 << 20]),
    ) {
        let (bytes, options) = table(seed);
        let n = bytes.len();
        let lines: Vec<usize> = memchr_all(&bytes);
        let mut splits: Vec<u64> = cuts
            .iter()
            .map(|&c| {
                let at = (c * n as f64) as usize;
                if at_lines {
                    // just after a line break (maybe inside a quoted field)
                    lines.iter().find(|&&l| l >= at).map_or(at, |l| l + 1) as u64
                } else {
                    at as u64
                }
            })
            .collect();
        splits.sort_unstable();
        splits.dedup();
        let (par, _) = parse_parallel("t.csv", &bytes, &options, head, &splits, threads, slice);
        prop_assert_eq!(format!("{par:?}"), serial(&bytes, &options));
    }
}

fn memchr_all(bytes: &[u8]) -> Vec<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect()
}

/// `header`, then rows `row(i, bytes so far)` (line ends included) for i = 1, 2,
/// ... while the text is shorter than `len`.
fn text_of(header: &str, len: usize, mut row: impl FnMut(usize, usize) -> String) -> Vec<u8> {
    let mut text = format!("{header}\n");
    let mut i = 0;
    while text.len() < len {
        i += 1;
        text.push_str(&row(i, text.len()));
    }
    text.into_bytes()
}

/// Reads `bytes` in parallel (head 4 KiB, cut at `splits`, two threads) and checks
/// the result is the serial read's (returned); also returns how many parts were read
/// again.
fn compare(bytes: &[u8], options: &Options, splits: &[u64], slice: usize) -> (String, usize) {
    let (par, again) = parse_parallel("t.csv", bytes, options, 4096, splits, 2, slice);
    let s = serial(bytes, options);
    assert_eq!(format!("{par:?}"), s);
    (s, again)
}

/// Cuts after every line break of a file.
fn every_line(bytes: &[u8]) -> Vec<u64> {
    memchr_all(bytes).iter().map(|&i| i as u64 + 1).collect()
}

#[test]
fn clean_parts_are_joined_not_read_again() {
    // a numeric table without quotes: every part is taken as read in parallel
    let mut checked = 0;
    for seed in 1..120u64 {
        let (bytes, options) = table(seed * 6);
        let text = String::from_utf8_lossy(&bytes);
        // (a part starting with a row without a model field is read again: the
        // row goes to the model of the row before)
        if text.contains('"')
            || text.contains(" m1")
            || text.contains("x")
            || text.starts_with("label,p,model")
        {
            continue;
        }
        checked += 1;
        let (_, again) = compare(&bytes, &options, &every_line(&bytes), 4096);
        assert_eq!(again, 0, "seed {seed}");
    }
    assert!(checked > 10, "{checked}");
}

#[test]
fn a_quoted_line_break_at_a_cut_reads_the_part_again() {
    let bytes = text_of("label,p,note", 6000, |_, _| {
        "1,0.25,plain\n0,0.5,\"two\nlines\"\n".into()
    });
    let cut = bytes.windows(5).rposition(|w| w == b"two\nl").unwrap() as u64 + 4;
    let (s, again) = compare(&bytes, &Options::default(), &[cut], 64);
    assert_eq!(again, 1);
    assert!(s.starts_with("Ok"));
    assert!(s.contains(&format!(
        "labels: [{}",
        "1, 0, ".repeat(text_rows(&bytes) / 2 - 1)
    )));
}

fn text_rows(bytes: &[u8]) -> usize {
    // records: lines that start with a label digit
    memchr_all(bytes)
        .iter()
        .filter(|&&i| bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()))
        .count()
}

#[test]
fn more_than_100_errors_across_parts() {
    // errors after the head (4 KiB), more than 100 in each part
    let bytes = text_of("label,p_0,p_1", 20_000, |i, len| {
        let p = if len > 5000 && i % 3 != 0 {
            "abc"
        } else {
            "0.5"
        };
        format!("{},{p},0.5\n", i % 2)
    });
    let splits: Vec<u64> = every_line(&bytes).into_iter().step_by(400).collect();
    let (s, again) = compare(&bytes, &Options::default(), &splits, 100);
    assert_eq!(again, 0);
    assert_eq!(s.matches("BadNumber").count(), 100);
    let more: usize = s
        .split("more: ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(more > 100, "{more}");
}

/// A file of more than 8 MiB read by `read_path` with 1, 2 and 3 threads.
#[test]
fn read_path_in_parallel() {
    let mut rng = Rng(7);
    let mut text = String::from("id,label,p_0,p_1,p_2,note\n");
    let mut i = 0u64;
    while text.len() < 9 << 20 {
        i += 1;
        let a = rng.below(500) as f64 / 1000.0;
        let note = if i % 50_000 == 7 { "\"a\nb\"" } else { "n" };
        let p0 = if i % 100_003 == 0 {
            "x".to_string()
        } else {
            format!("{a}")
        };
        text.push_str(&format!("{i},{},{p0},{:.3},0.5,{note}\n", i % 3, 0.5 - a));
    }
    let path = std::env::temp_dir().join(format!("calibscope-parallel-{}.csv", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let one = Options {
        threads: 1,
        ..Options::default()
    };
    let serial = format!("{:?}", read_path(&path, &one));
    assert!(serial.contains("BadNumber"));
    for threads in [2, 3] {
        let opts = Options {
            threads,
            ..Options::default()
        };
        assert_eq!(
            format!("{:?}", read_path(&path, &opts)),
            serial,
            "{threads} threads"
        );
    }
    std::fs::remove_file(&path).unwrap();
}

/// A header longer than the first read (here ~75 KB: 10,000 classes) is read to
/// its end before the rest goes to the threads; the result is the serial read's.
#[test]
fn read_path_in_parallel_after_a_long_header() {
    let k = 10_000;
    let names: Vec<String> = (0..k).map(|j| format!("p_{j}")).collect();
    let mut text = format!("label,{}\n", names.join(","));
    assert!(text.len() > 64 << 10);
    let mut row = 0;
    while text.len() < 9 << 20 {
        let label = row % k;
        let cells: Vec<&str> = (0..k).map(|j| if j == label { "1" } else { "0" }).collect();
        let bad = if row == 90 { "x" } else { "" };
        text.push_str(&format!("{label}{bad},{}\n", cells.join(",")));
        row += 1;
    }
    let path = std::env::temp_dir().join(format!("calibscope-wide-{}.csv", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let one = Options {
        threads: 1,
        ..Options::default()
    };
    let serial = format!("{:?}", read_path(&path, &one));
    assert!(
        serial.contains("row: Some(90)"),
        "{}",
        &serial[..300.min(serial.len())]
    );
    let two = Options {
        threads: 2,
        ..Options::default()
    };
    assert!(
        format!("{:?}", read_path(&path, &two)) == serial,
        "2 threads"
    );
    std::fs::remove_file(&path).unwrap();
}

/// Labels that mix names and integers: the error is reported once, at the first
/// label of the later kind, and that row's contract errors are not repeated —
/// wherever the cuts fall.
#[test]
fn mixed_labels_are_reported_once_at_their_row() {
    for (first, later) in [("cat", "1"), ("1", "dog")] {
        let mut bytes = text_of("label,p_cat,p_dog", 6000, |_, _| {
            format!("{first},0.25,0.75\n")
        });
        // the first label of the later kind, with a probability out of range, then
        // errors in the same part (the last one)
        let last = bytes.len() as u64;
        bytes.extend(format!("{later},1.5,0.75\n{first},0.5,0.5\n{later},0.5,0.5\n").bytes());
        bytes.extend(format!("{first},abc,0.5\n").repeat(3).bytes());
        let mut splits: Vec<u64> = every_line(&bytes).into_iter().step_by(50).collect();
        splits.retain(|&s| s < last);
        splits.push(last);
        let (s, again) = compare(&bytes, &Options::default(), &splits, 64);
        assert_eq!(again, 0);
        assert_eq!(s.matches("MixedLabelTypes").count(), 1);
        assert!(!s.contains("ProbOutOfRange"), "{first}");
        // with 2 errors kept: the mixed labels and the first bad number
        let two = Options {
            max_errors: 2,
            ..Options::default()
        };
        let (s, _) = compare(&bytes, &two, &splits, 64);
        assert!(
            s.contains("MixedLabelTypes") && s.contains("more: 2"),
            "{s}"
        );
    }
}

/// Long format with the model column last: a row without it goes to the model of
/// the row before; a part that starts with such a row is read again after the
/// part before it, which must leave that model as the last one.
#[test]
fn rows_without_a_model_follow_the_model_before() {
    let bytes = text_of("label,p,model", 8000, |i, len| {
        if len > 4500 && i % 5 == 0 {
            "1,0.5\n".into()
        } else {
            format!("{},0.5,{}\n", i % 2, ["a", "b", "c"][i % 3])
        }
    });
    let (_, again) = compare(&bytes, &Options::default(), &every_line(&bytes), 64);
    assert!(again > 0);
}

/// The head holds no row (blank lines after the header): the first part gives the
/// first data line, from which rows get their line numbers.
#[test]
fn rows_after_a_blank_head() {
    let bytes = text_of(&format!("label,p{}", "\n".repeat(5000)), 6000, |i, _| {
        let p = if i % 37 == 6 { "1.5" } else { "0.5" };
        format!("{},{p}\n", i % 2)
    });
    let splits: Vec<u64> = every_line(&bytes)
        .into_iter()
        .skip(5000)
        .step_by(40)
        .collect();
    let (s, again) = compare(&bytes, &Options::default(), &splits, 64);
    assert_eq!(again, 0);
    assert!(s.contains("line: Some(5007)"), "{}", &s[..400]);
}

/// A record too long to be read ends the read: parts after it are not joined.
#[test]
fn a_record_too_long_in_a_part_ends_the_read() {
    let mut bytes = text_of("label,p", 90_000, |i, _| {
        let long = if i == 1200 {
            format!("1,{}\n", "7".repeat(70_000))
        } else {
            String::new()
        };
        format!("{},0.5\n{long}", i % 2)
    });
    bytes.extend(b"x,0.5\n");
    let options = Options {
        max_record_bytes: 1000,
        ..Options::default()
    };
    // the record in a part, then in the head part (the read stops before the parts)
    for skip in [600, 1300] {
        let splits: Vec<u64> = every_line(&bytes)
            .into_iter()
            .skip(skip)
            .step_by(100)
            .collect();
        let (s, again) = compare(&bytes, &options, &splits, 4096);
        assert_eq!(again, 0);
        assert!(s.contains("RecordTooLong"), "{}", &s[..400]);
        assert!(!s.contains("BadLabel"));
    }
}

/// Integer ids become text at the first id that is no integer; ids read as text
/// keep their text (`007`). A part read on its own cannot know that the ids before
/// it were text already: it is read again.
#[test]
fn ids_keep_their_text() {
    let bytes = text_of("id,label,p", 9000, |i, len| {
        let id = match i {
            3 => "x3".to_string(),
            _ if len > 6000 && i % 50 == 0 => format!("00{i}"),
            _ if len > 6000 && i % 50 == 10 => format!("y{i}"),
            _ => i.to_string(),
        };
        format!("{id},{},0.5\n", i % 2)
    });
    let splits: Vec<u64> = every_line(&bytes).into_iter().step_by(100).collect();
    let (s, again) = compare(&bytes, &Options::default(), &splits, 64);
    assert!(s.contains("\"00"), "{}", &s[..300]);
    assert!(again > 0);
}
