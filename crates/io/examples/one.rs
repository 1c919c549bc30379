//! Parses one file and prints the outcome and the time taken (debugging aid):
//! `cargo run --release -p calibscope-io --example one -- FILE`
fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let bytes = std::fs::read(&path).unwrap();
    let t = std::time::Instant::now();
    let r = calibscope_io::parse_bytes(&path, &bytes, &calibscope_io::Options::default());
    let secs = t.elapsed().as_secs_f64();
    match r {
        Ok(d) => println!(
            "ok: {} models, n = {}, format {}",
            d.models.len(),
            d.n(),
            d.format.name()
        ),
        Err(e) => println!("{e}"),
    }
    println!("{secs:.3} s");
}
