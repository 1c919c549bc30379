//! Reads and parses one file, printing the outcome, the time taken (read + parse,
//! best of `REPEAT` runs, default 1) and the throughput:
//! `cargo run --release -p calibscope-io --example one -- FILE`
//! (`THREADS=1`: the serial parser; default: one thread per core; `GROUP_BY=a,b`:
//! group by those columns)
fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let repeat: usize = std::env::var("REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let options = calibscope_io::Options {
        threads: std::env::var("THREADS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(0),
        mapping: calibscope_io::ColumnMapping {
            groups: std::env::var("GROUP_BY")
                .map(|g| g.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut best = f64::INFINITY;
    let mut summary = String::new();
    for _ in 0..repeat.max(1) {
        let t = std::time::Instant::now();
        let r = calibscope_io::read_path(std::path::Path::new(&path), &options);
        best = best.min(t.elapsed().as_secs_f64());
        summary = match r {
            Ok(d) => format!(
                "ok: {} models, n = {}, format {}, {} groups",
                d.models.len(),
                d.n(),
                d.format.name(),
                d.groups.as_ref().map_or(0, |g| g.len())
            ),
            Err(e) => e.to_string(),
        };
    }
    let mb = std::fs::metadata(&path)
        .map(|m| m.len() as f64 / 1e6)
        .unwrap_or(0.0);
    println!("{summary}");
    println!("{best:.4} s ({:.0} MB/s)", mb / best);
}
